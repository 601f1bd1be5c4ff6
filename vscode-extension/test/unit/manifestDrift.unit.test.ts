/**
 * package.json must say exactly what the server's spec says. The chain is checked end to end:
 * tests/unit/test_ts_spec.py holds src/generated/spec.ts to the Python command spec, and this
 * test holds package.json to the generated spec.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

import * as spec from "../../src/generated/spec";
import { TOOL_NAMES } from "../../src/tools/toolCatalog";

type ToolManifestModule = typeof import("../../scripts/toolManifest.mjs", { with: { "resolution-mode": "import" } });

const root = path.resolve(__dirname, "../../..");

describe("package.json contributions", () => {
  let module: ToolManifestModule;
  let manifest: { contributes: { languageModelTools: { name: string }[] } };

  before(async () => {
    module = (await import(pathToFileURL(path.join(root, "scripts/toolManifest.mjs")).href)) as ToolManifestModule;
    manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  });

  it("match the generated spec (run `npm run sync-tools` after `npm run gen-spec`)", () => {
    assert.deepEqual(manifest, module.syncedManifest(manifest, spec));
  });

  it("contribute a tool for every forwarding rule and no others", () => {
    assert.deepEqual(
      manifest.contributes.languageModelTools.map((tool) => tool.name),
      TOOL_NAMES,
    );
  });

  it("are what the scripts see when they compile the spec themselves", async () => {
    const compiled = await module.loadSpec();
    assert.deepEqual(compiled.COMMAND_SPECS, spec.COMMAND_SPECS);
    assert.deepEqual(compiled.SERVER_OPTIONS, spec.SERVER_OPTIONS);
  });
});
