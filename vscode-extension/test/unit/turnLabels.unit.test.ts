import * as assert from "node:assert/strict";

import { relativeTime, sortTurns, statsText, toMillis, turnItemText } from "../../src/rewind/turnLabels";

const NOW = Date.parse("2026-11-21T12:00:00Z");

describe("turn labels", () => {
  it("reads ISO strings and epoch seconds or milliseconds", () => {
    assert.equal(toMillis("2026-11-21T12:00:00Z"), NOW);
    assert.equal(toMillis(NOW / 1000), NOW);
    assert.equal(toMillis(NOW), NOW);
    assert.equal(toMillis(String(NOW / 1000)), NOW);
    assert.equal(toMillis("not a date"), undefined);
  });

  it("formats relative time", () => {
    const ago = (seconds: number) => relativeTime(NOW - seconds * 1000, NOW);
    assert.equal(ago(10), "just now");
    assert.equal(ago(5 * 60), "5 min ago");
    assert.equal(ago(3 * 3600), "3 h ago");
    assert.equal(ago(26 * 3600), "yesterday");
    assert.equal(ago(4 * 86400), "4 days ago");
    assert.equal(ago(30 * 86400), "2026-10-22");
    assert.equal(relativeTime("garbage", NOW), "unknown time");
  });

  it("formats stats as +N −M in K files", () => {
    assert.equal(statsText({ insertions: 12, deletions: 3, filesChanged: 2 }), "+12 −3 in 2 files");
    assert.equal(statsText({ insertions: 1, deletions: 0, filesChanged: 1 }), "+1 −0 in 1 file");
    assert.equal(statsText({ insertions: 0, deletions: 0, filesChanged: 0 }), "no changes since");
  });

  it("builds picker items with a fallback while stats are loading or failed", () => {
    const turn = { promptId: "p1", label: "Fix the parser", timestamp: NOW - 120_000, files: ["a", "b"], canRestore: true };
    assert.deepEqual(turnItemText(turn, "pending", NOW), { label: "Fix the parser", description: "2 min ago", detail: "computing changes…" });
    assert.equal(turnItemText(turn, "error", NOW).detail, "2 tracked files");
    const stats = { filesChanged: 1, insertions: 4, deletions: 2, files: [] };
    assert.equal(turnItemText({ ...turn, label: " ", canRestore: false }, stats, NOW).label, "p1");
    assert.equal(turnItemText({ ...turn, canRestore: false }, stats, NOW).detail, "+4 −2 in 1 file · cannot be fully restored");
    const unreached = [{ path: "big.bin", reason: "over the size limit" }];
    assert.equal(turnItemText({ ...turn, unreached }, stats, NOW).detail, "+4 −2 in 1 file · 1 path out of reach");
  });

  it("sorts newest first", () => {
    const turns = [
      { promptId: "old", timestamp: "2026-11-20T00:00:00Z", files: 1, canRestore: true },
      { promptId: "new", timestamp: "2026-11-21T00:00:00Z", files: 1, canRestore: true },
    ];
    assert.deepEqual(sortTurns(turns).map((t) => t.promptId), ["new", "old"]);
  });
});
