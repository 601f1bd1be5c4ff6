import * as assert from "node:assert/strict";

import { fileRows, lastRewind, nextTurn, statusText, turnOrigin, turnRows } from "../../src/history/turnsModel";
import type { DiffStats, Turn } from "../../src/protocol";

const NOW = Date.parse("2026-11-21T12:00:00Z");

function turn(promptId: string, minutesAgo: number, extra: Partial<Turn> = {}): Turn {
  return {
    promptId,
    label: `label of ${promptId}`,
    timestamp: new Date(NOW - minutesAgo * 60_000).toISOString(),
    files: ["a.py", "b.py"],
    edited: [],
    canRestore: true,
    ...extra,
  };
}

const STATS: DiffStats = {
  filesChanged: 2,
  insertions: 5,
  deletions: 2,
  files: [
    { path: "b.py", status: "modified", insertions: 3, deletions: 2, conflict: true },
    { path: "new.txt", status: "created", insertions: 2, deletions: 0 },
  ],
};

describe("Turns view model", () => {
  it("names where a turn came from by the id its door gives it", () => {
    assert.deepEqual(
      ["chat-abc-1", "turn-0a1b", "run-9f", "undo-12", "auto-77", "watch-1764-ab", "t1", "session-xyz"].map((id) => turnOrigin(id).kind),
      ["vscode", "hook", "cli", "rewind", "auto", "watch", "agent", "agent"],
    );
    assert.equal(turnOrigin("t1").label, "MCP / agent");
  });

  it("lists turns newest first with time, origin, file count and +N −M", () => {
    const turns = [turn("t1", 90, { edited: ["b.py", "new.txt"] }), turn("chat-s-2", 5, { edited: ["a.py"] })];
    const rows = turnRows(turns, (id) => (id === "t1" ? STATS : "pending"), NOW);
    assert.deepEqual(
      rows.map((row) => [row.promptId, row.open, row.description]),
      [
        ["chat-s-2", true, "5 min ago · VS Code agent · 1 file · …"],
        ["t1", false, "2 h ago · MCP / agent · 2 files · +5 −2"],
      ],
    );
    assert.match(rows[1].tooltip, /\+5 −2 in 2 files: what "Rewind to Here" would undo/);
  });

  it("keeps the agent's turn open when other programs' turn began after it", () => {
    const turns = [turn("turn-agent", 10), turn("watch-1764-ab", 2)];
    const rows = turnRows(turns, () => "pending", NOW);
    assert.deepEqual(
      rows.map((row) => [row.promptId, row.open]),
      [
        ["watch-1764-ab", false],
        ["turn-agent", true],
      ],
    );
    assert.match(statusText(turns, 0).text, /label of turn-agent/);
  });

  it("gives each file its status since the turn started, and out-of-reach paths last", () => {
    const t = turn("t1", 1, { edited: ["new.txt", "b.py", "a.py"], unreached: [{ path: "build/out.bin", reason: "too_large" }] });
    const rows = fileRows(t, STATS);
    assert.deepEqual(
      rows.map((row) => [row.path, row.status, row.rewindable, row.description]),
      [
        ["a.py", "unchanged", true, "as it was at the start"],
        ["b.py", "modified", true, "modified · +3 −2 · changed by someone else"],
        ["new.txt", "created", true, "created · +2 −0"],
        ["build/out.bin", "outOfReach", false, "out of reach"],
      ],
    );
    assert.match(rows[3].tooltip, /could not be backed up \(too_large\)/);
  });

  it("falls back to the changed files when the server does not list a turn's writes", () => {
    const t = turn("t1", 1, { edited: undefined });
    assert.deepEqual(
      fileRows(t, STATS).map((row) => row.path),
      ["b.py", "new.txt"],
    );
    assert.deepEqual(fileRows(t, "error"), []);
  });

  it("finds the end of a turn (the next one's start) and the last rewind's undo point", () => {
    const turns = [turn("t2", 10), turn("t1", 20), turn("undo-a", 15, { edited: [] }), turn("undo-b", 5, { edited: ["a.py"] })];
    assert.equal(nextTurn(turns, "t1")?.promptId, "undo-a");
    assert.equal(nextTurn(turns, "undo-b"), undefined);
    assert.deepEqual(lastRewind(turns), { promptId: "undo-b", title: "label of undo-b", paths: ["a.py"] });
    assert.deepEqual(lastRewind([turn("undo-a", 1, { edited: [] })])?.paths, undefined);
    assert.equal(lastRewind([turn("t1", 1)]), undefined);
  });

  it("words the status bar with the open turn and the pending count", () => {
    assert.equal(statusText(undefined, 0).text, "$(history) Waymark");
    const long = turn("t1", 1, { label: "a very long label that does not fit in the status bar" });
    const { text, tooltip } = statusText([turn("t0", 9), long], 2);
    assert.equal(text, "$(history) Waymark · a very long label that does not… · $(git-pull-request) 2 pending");
    assert.match(tooltip, /Open turn: a very long label.*\(2 tracked files\)\n2 edits waiting for your approval\nClick to open the Turns view/);
  });
});
