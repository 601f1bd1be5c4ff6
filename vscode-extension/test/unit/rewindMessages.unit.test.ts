import * as assert from "node:assert/strict";

import { rewindChoices } from "../../src/rewind/rewindOptions";
import { fileOutcomes, mergeForced, normalizeOutcome, previewLine, rewindSummary } from "../../src/rewind/rewindMessages";

describe("rewind messages", () => {
  const outcome = normalizeOutcome({
    restored: ["a.py"],
    deleted: ["new.py"],
    unchanged: ["same.py"],
    conflicts: [{ path: "b.py", reason: "modified on disk" }],
    failed: [{ path: "c.py", reason: "backup missing" }],
    undoPromptId: "undo-1",
  });

  it("gives every file its own exact line, problems first", () => {
    assert.deepEqual(
      fileOutcomes(outcome).map((line) => [line.path, line.kind]),
      [
        ["b.py", "conflict"],
        ["c.py", "failed"],
        ["a.py", "restored"],
        ["new.py", "deleted"],
        ["same.py", "unchanged"],
      ],
    );
    assert.match(fileOutcomes(outcome)[0].message, /not restored.*modified on disk/);
    assert.match(fileOutcomes(outcome)[1].message, /not restored: backup missing/);
  });

  it("never counts a conflict or failure as restored", () => {
    assert.equal(rewindSummary(outcome), "1 file restored, 1 file deleted, 1 conflict not restored, 1 file failed");
    assert.equal(rewindSummary(normalizeOutcome({ unchanged: ["x"] })), "nothing to restore: every file is already as it was");
  });

  it("fills missing lists from a partial server answer", () => {
    assert.deepEqual(normalizeOutcome({}), { restored: [], deleted: [], unchanged: [], conflicts: [], failed: [], undoPromptId: undefined });
  });

  it("merges a forced retry and keeps the first undo point", () => {
    const forced = normalizeOutcome({ restored: ["b.py"], unchanged: ["a.py"], undoPromptId: "undo-2" });
    const merged = mergeForced(outcome, forced);
    assert.deepEqual(merged.restored, ["a.py", "b.py"]);
    assert.deepEqual(merged.conflicts, []);
    assert.equal(merged.undoPromptId, "undo-1");
    assert.equal(rewindSummary(merged), "2 files restored, 1 file deleted, 1 file failed");
  });

  it("describes preview files by what the rewind will do", () => {
    assert.equal(previewLine({ path: "a.py", action: "updated" }), "a.py will be restored");
    assert.equal(previewLine({ path: "gone.py", action: "created" }), "gone.py will be recreated");
    assert.equal(previewLine({ path: "new.py", action: "deleted" }), "new.py will be deleted");
  });
});

describe("rewind options", () => {
  it("offers only code and cancel without a conversation host", () => {
    assert.deepEqual(rewindChoices([]).map((c) => c.option), ["code", "cancel"]);
  });

  it("offers conversation options naming the registered hosts", () => {
    const choices = rewindChoices(["My Agent"]);
    assert.deepEqual(choices.map((c) => c.option), ["code", "both", "conversation", "cancel"]);
    assert.match(choices[1].detail, /My Agent/);
  });
});
