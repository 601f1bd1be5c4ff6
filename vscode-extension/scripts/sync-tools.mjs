// npm run sync-tools: rewrites package.json's languageModelTools and server-option setting
// defaults from the generated spec (src/generated/spec.ts; `npm run gen-spec` runs this too).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { loadSpec, syncedManifest } from "./toolManifest.mjs";

const manifestPath = fileURLToPath(new URL("../package.json", import.meta.url));
const manifest = syncedManifest(JSON.parse(readFileSync(manifestPath, "utf8")), await loadSpec());
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`package.json: ${manifest.contributes.languageModelTools.length} language model tools synced`);
