// npm run sync-tools: rewrites package.json's languageModelTools from `waymark describe-tools`.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { describeTools, manifestTools } from "./toolManifest.mjs";

const manifestPath = fileURLToPath(new URL("../package.json", import.meta.url));
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
manifest.contributes.languageModelTools = manifestTools(describeTools());
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`package.json: ${manifest.contributes.languageModelTools.length} language model tools synced`);
