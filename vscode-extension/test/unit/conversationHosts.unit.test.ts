import * as assert from "node:assert/strict";

import { createApi } from "../../src/api";
import { ConversationHosts } from "../../src/conversationHosts";
import type { CommandId, DidRewindEvent } from "../../src/protocol";
import { EventEmitter } from "../stubs/vscodeStub";

const event = (option: DidRewindEvent["option"]): DidRewindEvent => ({ promptId: "p", option, restored: [], deleted: [] });

describe("conversation hosts", () => {
  it("are told about conversation rewinds only, and a failing host does not stop the others", async () => {
    const hosts = new ConversationHosts();
    const seen: string[] = [];
    const errors: string[] = [];
    hosts.register({ label: "broken", rewindConversation: () => Promise.reject(new Error("boom")) });
    const registration = hosts.register({ label: "agent", rewindConversation: (e) => void seen.push(e.option) });
    for (const option of ["code", "both", "conversation"] as const) {
      await hosts.notify(event(option), (host) => errors.push(host.label));
    }
    assert.deepEqual(seen, ["both", "conversation"]);
    assert.deepEqual(errors, ["broken", "broken"]);
    registration.dispose();
    assert.deepEqual(hosts.labels, ["broken"]);
  });
});

describe("extension API", () => {
  it("forwards operations, routes mutations through approval and exposes rewind events", async () => {
    const calls: [CommandId, unknown][] = [];
    const emitter = new EventEmitter<DidRewindEvent>();
    const hosts = new ConversationHosts();
    const api = createApi(
      {
        execute: async (command, params) => {
          calls.push([command, params]);
          return { ok: true };
        },
        approvalMode: () => "auto",
        propose: async () => ({ kind: "rejected" }),
      },
      emitter.event,
      hosts,
    );
    await api.read({ path: "a" });
    await api.edit({ path: "a", operations: [] }, { origin: "My Agent" });
    await api.turns();
    await api.diffStats({ promptId: "p" });
    assert.deepEqual(
      calls.map(([command]) => command),
      ["waymark.read", "waymark.edit", "waymark.turns", "waymark.diffStats"],
    );
    const received: DidRewindEvent[] = [];
    api.onDidRewind((e) => received.push(e));
    emitter.fire(event("both"));
    assert.equal(received.length, 1);
    const registration = api.registerConversationHost({ label: "My Agent", rewindConversation: () => undefined });
    assert.equal(hosts.any, true);
    registration.dispose();
    assert.equal(hosts.any, false);
  });
});
