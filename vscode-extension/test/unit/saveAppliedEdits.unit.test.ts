import * as assert from "node:assert/strict";

import { applyThenSave, editedUris, type SavableDocument } from "../../src/approval/saveAppliedEdits";

class Doc implements SavableDocument {
  saved = 0;
  constructor(
    readonly uri: string,
    public isDirty: boolean,
  ) {}
  save(): Promise<boolean> {
    this.saved++;
    this.isDirty = false;
    return Promise.resolve(true);
  }
}

const same = (uri: string) => uri;
const editOf = (...uris: string[]) => ({
  edit: { documentChanges: [...uris.map((uri) => ({ textDocument: { uri, version: null }, edits: [] })), { kind: "create", uri: "file:///w/new.txt" }] },
});

describe("applyThenSave", () => {
  it("lists the documents an edit touches, not its resource operations", () => {
    assert.deepEqual([...editedUris(editOf("file:///w/a.txt"), same)], ["file:///w/a.txt"]);
    assert.deepEqual([...editedUris({ edit: { changes: { "file:///w/b.txt": [] } } }, same)], ["file:///w/b.txt"]);
  });

  it("saves buffers the applied edit made dirty, and only those", async () => {
    const clean = new Doc("file:///w/a.txt", false);
    const userWork = new Doc("file:///w/b.txt", true);
    const other = new Doc("file:///w/c.txt", false);
    const docs = [clean, userWork, other];
    const result = await applyThenSave(
      editOf("file:///w/a.txt", "file:///w/b.txt"),
      () => {
        clean.isDirty = true;
        other.isDirty = true;
        return { applied: true };
      },
      () => docs,
      same,
    );
    assert.equal(result.applied, true);
    assert.deepEqual([clean.saved, userWork.saved, other.saved], [1, 0, 0]);
  });

  it("saves nothing when the user declined", async () => {
    const doc = new Doc("file:///w/a.txt", false);
    const result = await applyThenSave(editOf("file:///w/a.txt"), () => ({ applied: false }), () => [doc], same);
    assert.equal(result.applied, false);
    assert.equal(doc.saved, 0);
  });
});
