import * as assert from "node:assert/strict";

import { type PendingEdit, PendingStore } from "../../src/approval/pendingStore";
import { parseProposalPath, proposalPath, proposalQuery } from "../../src/approval/proposalUri";

function edit(token: string, files: PendingEdit["files"]): PendingEdit {
  return { token, origin: "test", diff: "", files, createdAt: 0 };
}

const single = (token = "t1") =>
  edit(token, [{ path: "src/a.py", uri: "file:///w/src/a.py", action: "updated", newContent: "x = 2\n" }]);

describe("PendingStore", () => {
  it("lists, counts and notifies on add and settle", async () => {
    const store = new PendingStore();
    let changes = 0;
    store.onDidChange(() => changes++);
    store.add(single());
    assert.equal(store.size, 1);
    const decision = store.decision("t1");
    store.settle("t1", { kind: "rejected" });
    assert.deepEqual(await decision, { kind: "rejected" });
    assert.equal(store.size, 0);
    assert.equal(changes, 2);
  });

  it("refuses a token that is already pending", () => {
    const store = new PendingStore();
    store.add(single());
    assert.throws(() => store.add(single()), /already pending/);
  });

  it("sends newContent only when the user changed the proposal", () => {
    const store = new PendingStore();
    store.add(single());
    assert.equal(store.newContentFor("t1"), undefined);
    store.setEdited("t1", "src/a.py", "x = 3\n");
    assert.equal(store.newContentFor("t1"), "x = 3\n");
    store.setEdited("t1", "src/a.py", "x = 2\n");
    assert.equal(store.newContentFor("t1"), undefined, "typing back the proposal is no change");
  });

  it("keeps multi-file and deletion proposals read-only", () => {
    const store = new PendingStore();
    store.add(
      edit("multi", [
        { path: "a", uri: "file:///w/a", action: "updated", newContent: "a" },
        { path: "b", uri: "file:///w/b", action: "created", newContent: "b" },
      ]),
    );
    store.add(edit("del", [{ path: "c", uri: "file:///w/c", action: "deleted", newContent: null }]));
    assert.equal(store.isEditable("multi", "a"), false);
    assert.equal(store.isEditable("del", "c"), false);
    assert.throws(() => store.setEdited("multi", "a", "changed"));
    assert.equal(store.newContentFor("multi"), undefined);
  });

  it("ignores settling an unknown token", () => {
    const store = new PendingStore();
    assert.doesNotThrow(() => store.settle("nope", { kind: "rejected" }));
  });
});

describe("proposal URIs", () => {
  it("keep the token out of the path, so the breadcrumb shows only the file's own folders", () => {
    const path = proposalPath("src/deep/file name.py");
    assert.equal(path, "/src/deep/file name.py");
    assert.equal(proposalQuery("tok/1&x", false), "token=tok%2F1%26x");
    assert.deepEqual(parseProposalPath(path, proposalQuery("tok/1&x", false)), { token: "tok/1&x", path: "src/deep/file name.py", base: false });
    assert.deepEqual(parseProposalPath(path, proposalQuery("tok/1&x", true)), { token: "tok/1&x", path: "src/deep/file name.py", base: true });
  });

  it("rejects a URI without a token or a file part", () => {
    assert.equal(parseProposalPath("/src/a.py", ""), undefined);
    assert.equal(parseProposalPath("/", "token=t1"), undefined);
  });
});
