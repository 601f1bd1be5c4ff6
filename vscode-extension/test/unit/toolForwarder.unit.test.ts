import * as assert from "node:assert/strict";

import type { Decision } from "../../src/approval/pendingStore";
import type { CommandId, Preview, Result } from "../../src/protocol";
import type { ApprovalMode } from "../../src/settings";
import { TOOL_NAMES } from "../../src/tools/toolCatalog";
import { forwardTool, modelText, toolResultText } from "../../src/tools/toolForwarder";

const PREVIEW = {
  ok: true as const,
  preview: true as const,
  token: "tok-1",
  diff: "--- a\n+++ b\n",
  workspaceEdit: { documentChanges: [] },
  files: [{ path: "a.py", uri: "file:///w/a.py", action: "updated" as const, newContent: "new\n" }],
};

function harness(mode: ApprovalMode, answers: Partial<Record<CommandId, Result>>, decision: Decision = { kind: "rejected" }) {
  const calls: { command: CommandId; params: Record<string, unknown> }[] = [];
  const proposed: { preview: Preview; origin: string }[] = [];
  return {
    calls,
    proposed,
    deps: {
      execute: async (command: CommandId, params: object) => {
        calls.push({ command, params: params as Record<string, unknown> });
        return answers[command] ?? { ok: true };
      },
      approvalMode: () => mode,
      propose: async (preview: Preview, origin: string) => {
        proposed.push({ preview, origin });
        return decision;
      },
    },
  };
}

describe("tool forwarding", () => {
  it("covers every contract tool", () => {
    assert.deepEqual(TOOL_NAMES, [
      "waymark_read",
      "waymark_edit",
      "waymark_replace",
      "waymark_multi_replace",
      "waymark_write",
      "waymark_sed",
      "waymark_patch",
      "waymark_notebook_edit",
      "waymark_snapshot",
      "waymark_turns",
      "waymark_diff_stats",
      "waymark_rewind",
    ]);
  });

  it("reads with hashes unless the model says otherwise", async () => {
    const h = harness("diff", {});
    await forwardTool("waymark_read", { path: "a.py" }, h.deps);
    await forwardTool("waymark_read", { path: "a.py", hashes: false }, h.deps);
    assert.deepEqual(h.calls, [
      { command: "waymark.read", params: { hashes: true, path: "a.py" } },
      { command: "waymark.read", params: { hashes: false, path: "a.py" } },
    ]);
  });

  it("writes at once in auto mode and in refactorPreview mode (the server asks there)", async () => {
    for (const mode of ["auto", "refactorPreview"] as const) {
      const h = harness(mode, {});
      await forwardTool("waymark_replace", { path: "a.py", old_string: "a", new_string: "b" }, h.deps);
      assert.deepEqual(h.calls.map((c) => [c.command, c.params.preview]), [["waymark.replace", undefined]]);
      assert.equal(h.proposed.length, 0);
    }
  });

  it("passes a rewind's chosen paths to the server, in every approval mode", async () => {
    for (const mode of ["auto", "diff"] as const) {
      const h = harness(mode, { "waymark.rewind": { ...PREVIEW, plan: [] } }, { kind: "accepted", result: { ok: true } });
      await forwardTool("waymark_rewind", { promptId: "t1", paths: ["a.py"] }, h.deps);
      assert.deepEqual(h.calls[0].params.paths, ["a.py"]);
      assert.equal(h.calls[0].params.promptId, "t1");
    }
  });

  it("asks for a preview in diff mode and returns the user's decision", async () => {
    const applied = { ok: true, diff: "applied" };
    const h = harness("diff", { "waymark.edit": PREVIEW }, { kind: "accepted", result: applied });
    const result = await forwardTool("waymark_edit", { path: "a.py", operations: [] }, h.deps);
    assert.deepEqual(h.calls[0], { command: "waymark.edit", params: { path: "a.py", operations: [], preview: true } });
    assert.equal(h.proposed[0].origin, "waymark_edit");
    assert.equal(h.proposed[0].preview.token, "tok-1");
    assert.deepEqual(result, applied);
  });

  it("tells the model when the user rejected", async () => {
    const h = harness("diff", { "waymark.write": PREVIEW }, { kind: "rejected" });
    const result = await forwardTool("waymark_write", { path: "a.py", content: "x" }, h.deps);
    assert.equal(result.ok, false);
    assert.equal(result.error, "declined");
  });

  it("passes a failed apply through", async () => {
    const failed = { ok: false, error: "file_changed_since_read", message: "changed" };
    const h = harness("diff", { "waymark.sed": PREVIEW }, { kind: "failed", result: failed });
    assert.deepEqual(await forwardTool("waymark_sed", { command: "sed -i s/a/b/ a.py" }, h.deps), failed);
  });

  it("returns non-preview answers (errors, unsimulated sed) without proposing", async () => {
    const notSimulated = { ok: true as const, simulated: false, reason: "compound shell" };
    const h = harness("diff", { "waymark.sed": notSimulated });
    assert.deepEqual(await forwardTool("waymark_sed", { command: "sed -i s/a/b/ a && ls" }, h.deps), notSimulated);
    assert.equal(h.proposed.length, 0);
  });

  it("leaves an explicit preview to the caller", async () => {
    const h = harness("diff", { "waymark.edit": PREVIEW });
    assert.deepEqual(await forwardTool("waymark_edit", { path: "a.py", operations: [], preview: true }, h.deps), PREVIEW);
    assert.equal(h.proposed.length, 0);
  });

  it("rejects unknown tools and non-object input without calling the server", async () => {
    const h = harness("diff", {});
    assert.equal((await forwardTool("waymark_nope", {}, h.deps)).error, "invalid_params");
    assert.equal((await forwardTool("waymark_read", "a.py", h.deps)).error, "invalid_params");
    assert.equal(h.calls.length, 0);
  });

  it("returns the server's model view of a result, as the MCP tools do", async () => {
    const h = harness("auto", { "waymark.modelText": { ok: true, text: "shaped" } });
    const result = { ok: true, diff: "d", workspaceEdit: { big: true } };
    assert.equal(await modelText("waymark_write", result, h.deps), "shaped");
    assert.deepEqual(h.calls, [{ command: "waymark.modelText", params: { tool: "waymark_write", result: { ...result, workspaceEdit: undefined } } }]);
  });

  it("falls back to the plain rendering when the server has no model view", async () => {
    const h = harness("auto", { "waymark.modelText": { ok: false, error: "x", message: "m", details: {} } });
    assert.deepEqual(JSON.parse(await modelText("waymark_edit", { ok: true, diff: "d" }, h.deps)), { ok: true, diff: "d" });
    const down = { execute: async () => Promise.reject(new Error("server stopped")) };
    assert.equal(await modelText("waymark_read", { ok: true, text: "1#abc123|x\n" }, down), "1#abc123|x\n");
  });

  it("renders read results as the model text and others as JSON without the LSP edit", () => {
    assert.equal(toolResultText("waymark_read", { ok: true, text: "1#abc123|x\n" }), "1#abc123|x\n");
    const text = toolResultText("waymark_edit", { ok: true, diff: "d", workspaceEdit: { big: true } });
    assert.deepEqual(JSON.parse(text), { ok: true, diff: "d" });
  });
});
