import * as assert from "node:assert/strict";

import { diffHunks, rejectHunk, splitLines } from "../../src/approval/hunks";

const lines = (...items: string[]): string => items.map((item) => `${item}\n`).join("");

describe("hunks", () => {
  it("splits lines keeping terminators, a last line without one included", () => {
    assert.deepEqual(splitLines("a\r\nb\nc"), ["a\r\n", "b\n", "c"]);
    assert.deepEqual(splitLines(""), []);
  });

  it("finds each block of changed lines as its own hunk", () => {
    const original = lines("a = 1", "k1", "k2", "k3", "b = 1", "k4");
    const proposal = lines("a = 2", "k1", "k2", "k3", "b = 2", "new", "k4");
    assert.deepEqual(diffHunks(original, proposal), [
      { originalStart: 0, originalEnd: 1, proposalStart: 0, proposalEnd: 1 },
      { originalStart: 4, originalEnd: 5, proposalStart: 4, proposalEnd: 6 },
    ]);
    assert.deepEqual(diffHunks(original, original), []);
  });

  it("rejecting one hunk keeps the others as proposed", () => {
    const original = lines("a = 1", "k1", "k2", "b = 1");
    const proposal = lines("a = 2", "k1", "k2", "b = 2");
    const [first, second] = diffHunks(original, proposal);
    assert.equal(rejectHunk(original, proposal, first), lines("a = 1", "k1", "k2", "b = 2"));
    assert.equal(rejectHunk(original, proposal, second), lines("a = 2", "k1", "k2", "b = 1"));
  });

  it("puts back deleted lines and removes inserted ones, CRLF bytes intact", () => {
    const original = "keep\r\ngone\r\nend\r\n";
    const proposal = "keep\r\nend\r\nadded\r\n";
    const hunks = diffHunks(original, proposal);
    assert.equal(hunks.length, 2);
    assert.equal(rejectHunk(original, proposal, hunks[0]), "keep\r\ngone\r\nend\r\nadded\r\n");
    assert.equal(rejectHunk(original, proposal, hunks[1]), "keep\r\nend\r\n");
  });

  it("rejecting every hunk in turn gives back the original", () => {
    const original = lines("x", "y", "z", "w", "v");
    let proposal = lines("X", "y", "Z", "w", "v", "u");
    for (let hunks = diffHunks(original, proposal); hunks.length > 0; hunks = diffHunks(original, proposal)) {
      proposal = rejectHunk(original, proposal, hunks[0]);
    }
    assert.equal(proposal, original);
  });
});
