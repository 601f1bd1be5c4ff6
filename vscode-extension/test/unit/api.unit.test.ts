import * as assert from "node:assert/strict";

import { createApi } from "../../src/api";
import { ConversationHosts } from "../../src/conversationHosts";
import { COMMAND_SPECS } from "../../src/generated/spec";
import type { CommandId, DidRewindEvent } from "../../src/protocol";
import { EventEmitter } from "../stubs/vscodeStub";

describe("extension API methods", () => {
  const calls: [CommandId, Record<string, unknown>][] = [];
  const api = createApi(
    {
      execute: async (command, params) => {
        calls.push([command, params as Record<string, unknown>]);
        return { ok: true };
      },
      approvalMode: () => "diff",
      propose: async () => ({ kind: "rejected" }),
    },
    new EventEmitter<DidRewindEvent>().event,
    new ConversationHosts(),
  );

  beforeEach(() => {
    calls.length = 0;
  });

  it("offer every server command under its key, patch included", async () => {
    for (const spec of COMMAND_SPECS) {
      await api[spec.key]({});
    }
    assert.deepEqual(
      calls.map(([command]) => command),
      COMMAND_SPECS.map((spec) => spec.id),
    );
    assert.equal(typeof api.patch, "function");
  });

  it("route mutating tools through approval and settle tokens directly", async () => {
    await api.patch({ patch: "--- a\n+++ b\n" });
    await api.applyPending({ token: "t" });
    assert.deepEqual(calls, [
      ["waymark.patch", { patch: "--- a\n+++ b\n", preview: true }],
      ["waymark.applyPending", { token: "t" }],
    ]);
  });
});
