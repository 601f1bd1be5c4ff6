// What package.json contributes that the server's spec (src/generated/spec.ts) decides: the
// `languageModelTools` (names, titles, descriptions, schemas) and the defaults of the settings
// that are server options. Shared by `npm run sync-tools` (writes package.json) and the drift
// unit test (compares), which CI runs.
import { readFileSync } from "node:fs";

import { transform } from "esbuild";

const SPEC_PATH = new URL("../src/generated/spec.ts", import.meta.url);

// Settings passed to the server unchanged, so their default (and minimum) are the server's.
const SERVER_SETTINGS = ["checkpointing", "watch", "protectedPaths", "maxSnapshots", "maxHistoryBytes"];

/** The generated module's exports, compiled on the fly so scripts need no build step. */
export async function loadSpec() {
  const { code } = await transform(readFileSync(SPEC_PATH, "utf8"), { loader: "ts", format: "esm" });
  return import(`data:text/javascript,${encodeURIComponent(code)}`);
}

export function manifestTools(commands) {
  return commands
    .filter((command) => command.tool !== null)
    .map((command) => ({
      name: command.tool,
      displayName: command.title ?? command.tool,
      toolReferenceName: command.tool.replace(/^waymark_/, "waymark-").replace(/_/g, "-"),
      canBeReferencedInPrompt: true,
      userDescription: firstSentence(command.description),
      modelDescription: command.description,
      tags: ["waymark"],
      inputSchema: structuredClone(command.inputSchema),
    }));
}

/** `manifest` with every spec-derived part rewritten from `spec`; the input is left as it is. */
export function syncedManifest(manifest, spec) {
  const synced = structuredClone(manifest);
  synced.contributes.languageModelTools = manifestTools(spec.COMMAND_SPECS);
  for (const name of SERVER_SETTINGS) {
    const setting = synced.contributes.configuration.properties[`waymark.${name}`];
    const option = spec.SERVER_OPTIONS[name];
    setting.default = structuredClone(option.default);
    if ("minimum" in option) {
      setting.minimum = option.minimum;
    }
  }
  return synced;
}

function firstSentence(text) {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (match ? match[1] : text.trim()).replace(/\s+/g, " ");
}
