import * as assert from "node:assert/strict";

import type { CommandId } from "../../src/protocol";
import { registerLanguageModelTools } from "../../src/tools/languageModelTools";
import { TOOL_NAMES } from "../../src/tools/toolCatalog";
import { TurnTracker } from "../../src/tools/turnTracker";
import { type LanguageModelTextPart, type LanguageModelToolResult, recorded, resetRecorded } from "../stubs/vscodeStub";

describe("language model tools", () => {
  beforeEach(resetRecorded);

  it("registers every tool, opens a turn on the first call of a request, forwards and answers the server's model view", async () => {
    const calls: [CommandId, Record<string, unknown>][] = [];
    const deps = {
      execute: async (command: CommandId, params: object) => {
        calls.push([command, params as Record<string, unknown>]);
        if (command === "waymark.modelText") {
          return { ok: true as const, text: `model view of ${(params as { tool: string }).tool}` };
        }
        return command === "waymark.read" ? { ok: true as const, text: "1#abc123|hello" } : { ok: true as const };
      },
      approvalMode: () => "auto" as const,
      propose: async () => ({ kind: "rejected" as const }),
    };
    const turns = new TurnTracker((turn) => deps.execute("waymark.snapshot", turn));
    registerLanguageModelTools(deps, turns, TOOL_NAMES);
    assert.deepEqual([...recorded.tools.keys()], TOOL_NAMES);

    const invoke = (name: string, input: object) =>
      recorded.tools.get(name)?.invoke({ input, toolInvocationToken: { sessionId: "chat-1" } }, {}) as Promise<LanguageModelToolResult>;
    const read = await invoke("waymark_read", { path: "a.py" });
    assert.equal((read.content[0] as LanguageModelTextPart).value, "model view of waymark_read");
    const edit = await invoke("waymark_edit", { path: "a.py", operations: [] });
    assert.equal((edit.content[0] as LanguageModelTextPart).value, "model view of waymark_edit");

    assert.deepEqual(
      calls.map(([command]) => command),
      ["waymark.snapshot", "waymark.read", "waymark.modelText", "waymark.edit", "waymark.modelText"],
    );
    // What goes over the wire: the read's own result, for the server to shape.
    assert.deepEqual(JSON.parse(JSON.stringify(calls[2][1])), { tool: "waymark_read", result: { ok: true, text: "1#abc123|hello" } });
    assert.equal(calls[0][1].label, "Agent turn: waymark_read a.py");
  });

  it("registers only the tools this build's manifest contributes", () => {
    const deps = { execute: async () => ({ ok: true as const }), approvalMode: () => "auto" as const, propose: async () => ({ kind: "rejected" as const }) };
    registerLanguageModelTools(deps, new TurnTracker(async () => undefined), ["waymark_read"]);
    assert.deepEqual([...recorded.tools.keys()], ["waymark_read"]);
  });

  it("does not open a turn for an explicit snapshot call", async () => {
    const calls: CommandId[] = [];
    const deps = {
      execute: async (command: CommandId) => {
        calls.push(command);
        return { ok: true as const };
      },
      approvalMode: () => "auto" as const,
      propose: async () => ({ kind: "rejected" as const }),
    };
    registerLanguageModelTools(deps, new TurnTracker(async () => calls.push("waymark.snapshot")), TOOL_NAMES);
    await recorded.tools.get("waymark_snapshot")?.invoke({ input: { promptId: "p1" } }, {});
    assert.deepEqual(calls, ["waymark.snapshot", "waymark.modelText"]);
  });
});
