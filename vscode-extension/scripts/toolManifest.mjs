// The `languageModelTools` contribution, derived from `waymark describe-tools` (the server's
// command spec) so the model sees exactly the server's descriptions and schemas. Shared by
// `npm run sync-tools` (writes package.json) and the drift unit test (compares), which CI runs.
import { execFileSync } from "node:child_process";

const DISPLAY_NAMES = {
  waymark_read: "Read File with Line Anchors",
  waymark_edit: "Anchored Edit",
  waymark_replace: "Replace String in File",
  waymark_multi_replace: "Multiple String Replacements",
  waymark_write: "Write File",
  waymark_sed: "Simulated sed -i",
  waymark_patch: "Apply Patch",
  waymark_snapshot: "Start Turn Snapshot",
  waymark_turns: "List Turns",
  waymark_diff_stats: "Changes Since Turn",
  waymark_rewind: "Rewind to Turn",
};

export function describeTools(command = process.env.WAYMARK_CLI ?? "waymark") {
  let stdout;
  try {
    stdout = execFileSync(command, ["describe-tools"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  } catch (error) {
    const detail = error.code === "ENOENT" ? `"${command}" is not on PATH` : (error.stderr || error.message).toString().trim();
    throw new Error(`cannot run "${command} describe-tools" (install the server: pip install -e <repo>): ${detail}`, { cause: error });
  }
  const parsed = JSON.parse(stdout);
  if (parsed.ok !== true || !Array.isArray(parsed.tools)) {
    throw new Error(`"${command} describe-tools" did not answer {"ok": true, "tools": [...]}`);
  }
  return parsed.tools;
}

export function manifestTools(tools) {
  return tools.map((tool) => ({
    name: tool.name,
    displayName: DISPLAY_NAMES[tool.name] ?? tool.name,
    toolReferenceName: tool.name.replace(/^waymark_/, "waymark-").replace(/_/g, "-"),
    canBeReferencedInPrompt: true,
    userDescription: firstSentence(tool.description),
    modelDescription: tool.description,
    tags: ["waymark"],
    inputSchema: tool.inputSchema,
  }));
}

function firstSentence(text) {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (match ? match[1] : text.trim()).replace(/\s+/g, " ");
}
