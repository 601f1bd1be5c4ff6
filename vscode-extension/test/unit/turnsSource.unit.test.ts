import * as assert from "node:assert/strict";

import { EventEmitter } from "vscode";

import { TurnsSource } from "../../src/history/turnsSource";
import type { CommandId, DidRewindEvent, Result, Turn } from "../../src/protocol";

const TURN: Turn = { promptId: "t1", label: "first", timestamp: "2026-11-21T12:00:00Z", files: ["a.py"], edited: ["a.py"], canRestore: true };

function fakeServer(turns: () => Turn[]) {
  const calls: { command: CommandId; params: object }[] = [];
  const server = {
    status: "running" as "running" | "starting" | "stopped",
    onDidRewind: new EventEmitter<DidRewindEvent>().event,
    calls,
    execute: async <T>(command: CommandId, params: object = {}): Promise<Result<T>> => {
      calls.push({ command, params });
      if (command === "waymark.turns") {
        return { ok: true, turns: turns() } as unknown as Result<T>;
      }
      return { ok: true, filesChanged: 1, insertions: 2, deletions: 1, files: [] } as unknown as Result<T>;
    },
  };
  return server;
}

describe("Turns source", () => {
  let source: TurnsSource | undefined;
  afterEach(() => source?.dispose());

  it("never starts the server to poll, and says why the history is not shown", async () => {
    const server = fakeServer(() => [TURN]);
    server.status = "stopped";
    source = new TurnsSource(server);
    await source.refresh();
    assert.deepEqual(server.calls, []);
    const state = source.state;
    assert.ok(state && "failure" in state);
    assert.match(state.failure.message, /not running; Waymark: Restart Server/);
    server.status = "starting";
    await source.refresh();
    assert.equal(source.state && "failure" in source.state && source.state.failure.error, "starting");
  });

  it("fires only when another door changed the turns, and then asks for the counts again", async () => {
    let turns = [TURN];
    const server = fakeServer(() => turns);
    source = new TurnsSource(server);
    let fired = 0;
    source.onDidChange(() => fired++);
    await source.refresh();
    assert.equal(fired, 1);
    assert.equal(source.statsOf("t1"), "pending");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(source.statsOf("t1"), { ok: true, filesChanged: 1, insertions: 2, deletions: 1, files: [] });
    const firedWithStats = fired;
    await source.refresh();
    assert.equal(fired, firedWithStats, "an unchanged answer changes nothing");
    turns = [TURN, { ...TURN, promptId: "turn-2", timestamp: "2026-11-21T12:05:00Z" }];
    await source.refresh();
    assert.equal(fired, firedWithStats + 1);
    assert.deepEqual(source.turns?.map((t) => t.promptId), ["t1", "turn-2"]);
    assert.equal(source.statsOf("t1"), "pending", "the counts of the old list are dropped");
  });
});
