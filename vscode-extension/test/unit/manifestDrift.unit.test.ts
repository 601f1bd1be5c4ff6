/**
 * The tool manifest must say exactly what the server says. This test needs the `waymark` CLI:
 * without it it fails (with the reason) rather than skipping, so CI cannot go green unchecked.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

import { TOOL_NAMES } from "../../src/tools/toolCatalog";

type ToolManifestModule = typeof import("../../scripts/toolManifest.mjs", { with: { "resolution-mode": "import" } });

const root = path.resolve(__dirname, "../../..");

describe("languageModelTools manifest", () => {
  let described: { name: string }[];
  let generated: Record<string, unknown>[];

  before(async () => {
    const module = (await import(pathToFileURL(path.join(root, "scripts/toolManifest.mjs")).href)) as ToolManifestModule;
    const tools = module.describeTools();
    described = tools;
    generated = module.manifestTools(tools);
  });

  it("matches `waymark describe-tools` (run `npm run sync-tools` after changing the server's tools)", () => {
    const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    assert.deepEqual(manifest.contributes.languageModelTools, generated);
  });

  it("has a forwarding rule for every described tool and no others", () => {
    assert.deepEqual([...described.map((tool) => tool.name)].sort(), [...TOOL_NAMES].sort());
  });
});
