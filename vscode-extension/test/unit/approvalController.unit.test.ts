import * as assert from "node:assert/strict";

import { ApprovalController } from "../../src/approval/approvalController";
import { PendingStore } from "../../src/approval/pendingStore";
import { ProposalFileSystem, proposalUri } from "../../src/approval/proposalFileSystem";
import type { CommandId, Preview, Result } from "../../src/protocol";
import { type FakeDocument, type FakeNotebook, recorded, resetRecorded, TabInputNotebookDiff, TabInputTextDiff, Uri } from "../stubs/vscodeStub";

const preview = (token: string, files: Preview["files"]): Preview => ({ preview: true, token, diff: "", files });
const ONE_FILE = [{ path: "src/a.py", uri: "file:///w/src/a.py", action: "updated" as const, newContent: "x = 2\n" }];
const NOTEBOOK = [{ path: "nb/areas.ipynb", uri: "file:///w/nb/areas.ipynb", action: "updated" as const, newContent: '{"cells": []}\n' }];

function setup(applyAnswer: Result = { ok: true, diff: "applied" }) {
  const calls: { command: CommandId; params: Record<string, unknown> }[] = [];
  const store = new PendingStore();
  const fs = new ProposalFileSystem(store);
  const controller = new ApprovalController(store, {
    execute: async <T>(command: CommandId, params: object = {}) => {
      calls.push({ command, params: params as Record<string, unknown> });
      return (command === "waymark.applyPending" ? applyAnswer : { ok: true }) as Result<T>;
    },
  });
  return { calls, store, fs, controller };
}

function openProposalDocument(fs: ProposalFileSystem, token: string, path: string, typed?: string): FakeDocument {
  const uri = proposalUri(token, path);
  const doc: FakeDocument = {
    uri: uri as unknown as Uri,
    isDirty: typed !== undefined,
    getText: () => typed ?? new TextDecoder().decode(fs.readFile(uri)),
    save: async () => {
      fs.writeFile(uri, new TextEncoder().encode(doc.getText()));
      doc.isDirty = false;
      return true;
    },
  };
  recorded.documents.push(doc);
  recorded.tabs.push({ input: new TabInputTextDiff(Uri.parse("file:///w/src/a.py"), uri as unknown as Uri) });
  return doc;
}

describe("approval controller", () => {
  beforeEach(resetRecorded);

  it("opens a diff of the current file against the proposal and counts it for the palette's when clauses", async () => {
    const { controller, store } = setup();
    void controller.propose(preview("t1", ONE_FILE), "waymark_edit");
    await new Promise((resolve) => setImmediate(resolve));
    const diff = recorded.commands.find((c) => c.id === "vscode.diff");
    assert.ok(diff);
    assert.equal(String(diff.args[0]), "file:///w/src/a.py");
    assert.equal(String(diff.args[1]), "waymark-proposal:///src/a.py?token=t1");
    assert.match(String(diff.args[2]), /a\.py ↔ proposal \(waymark_edit\)/);
    assert.equal(store.size, 1);
    assert.deepEqual(recorded.commands.filter((c) => c.id === "setContext").pop()?.args, ["waymark.pendingCount", 1]);
  });

  it("accepts the proposal as is without newContent", async () => {
    const { controller, calls, fs } = setup();
    const decision = controller.propose(preview("t1", ONE_FILE), "tool");
    openProposalDocument(fs, "t1", "src/a.py");
    await controller.accept();
    assert.deepEqual(calls, [{ command: "waymark.applyPending", params: { token: "t1" } }]);
    assert.deepEqual(await decision, { kind: "accepted", result: { ok: true, diff: "applied" } });
    assert.equal(recorded.closedTabs.length, 1);
    assert.deepEqual(recorded.commands.filter((c) => c.id === "setContext").pop()?.args, ["waymark.pendingCount", 0]);
  });

  it("sends the user's unsaved changes to the proposal as newContent", async () => {
    const { controller, calls, fs } = setup();
    void controller.propose(preview("t1", ONE_FILE), "tool");
    openProposalDocument(fs, "t1", "src/a.py", "x = 42  # mine\n");
    await controller.accept();
    assert.deepEqual(calls[0].params, { token: "t1", newContent: "x = 42  # mine\n" });
  });

  it("asks before discarding unsaved changes in the real file, and cancels on no", async () => {
    const { controller, calls } = setup();
    void controller.propose(preview("t1", ONE_FILE), "tool");
    recorded.documents.push({ uri: Uri.parse("file:///w/src/a.py"), isDirty: true, getText: () => "", save: async () => true });
    recorded.messageAnswers.push(undefined);
    await controller.accept("t1");
    assert.match(recorded.messages[0].text, /unsaved changes/);
    assert.equal(calls.length, 0);
    recorded.messageAnswers.push("Discard Unsaved Changes and Accept");
    await controller.accept("t1");
    assert.ok(recorded.commands.some((c) => c.id === "workbench.action.files.revert"));
    assert.equal(calls[0].command, "waymark.applyPending");
  });

  it("reports a failed apply and settles the proposal as failed", async () => {
    const stale = { ok: false as const, error: "file_changed_since_read", message: "a.py changed on disk since the preview." };
    const { controller } = setup(stale);
    const decision = controller.propose(preview("t1", ONE_FILE), "tool");
    await controller.accept("t1");
    assert.deepEqual(await decision, { kind: "failed", result: stale });
    assert.match(recorded.messages.find((m) => m.level === "error")?.text ?? "", /not applied: a\.py changed on disk/);
  });

  it("rejects through discardPending", async () => {
    const { controller, calls } = setup();
    const decision = controller.propose(preview("t1", ONE_FILE), "tool");
    await controller.reject("t1");
    assert.deepEqual(calls, [{ command: "waymark.discardPending", params: { token: "t1" } }]);
    assert.deepEqual(await decision, { kind: "rejected" });
  });

  it("settles a notebook proposal from its notebook diff tab, with the cells the user changed there", async () => {
    const { controller, calls, fs, store } = setup();
    void controller.propose(preview("t1", ONE_FILE), "waymark_edit");
    void controller.propose(preview("t2", NOTEBOOK), "waymark_notebook_edit");
    await new Promise((resolve) => setImmediate(resolve));
    const diff = recorded.commands.filter((c) => c.id === "vscode.diff")[1];
    assert.deepEqual(diff.args.slice(0, 2).map(String), ["file:///w/nb/areas.ipynb", "waymark-proposal:///nb/areas.ipynb?token=t2"]);
    const uri = proposalUri("t2", "nb/areas.ipynb");
    const userCells = '{"cells": [], "mine": true}\n';
    const notebook: FakeNotebook = {
      uri: uri as unknown as Uri,
      notebookType: "jupyter-notebook",
      isDirty: true,
      save: async () => {
        fs.writeFile(uri, new TextEncoder().encode(userCells));
        notebook.isDirty = false;
        return true;
      },
    };
    recorded.notebooks.push(notebook);
    recorded.tabs.push({ input: new TabInputNotebookDiff(Uri.parse("file:///w/nb/areas.ipynb"), notebook.uri) });
    await controller.accept();
    assert.deepEqual(calls, [{ command: "waymark.applyPending", params: { token: "t2", newContent: userCells } }]);
    assert.equal(recorded.closedTabs.length, 1);
    assert.deepEqual(
      store.list().map((edit) => edit.token),
      ["t1"],
      "the other proposal still waits",
    );
  });

  it("reverts an open notebook's unsaved changes in its notebook editor once the user agrees", async () => {
    const { controller, calls } = setup();
    void controller.propose(preview("t2", NOTEBOOK), "tool");
    const open: FakeNotebook = { uri: Uri.parse("file:///w/nb/areas.ipynb"), notebookType: "jupyter-notebook", isDirty: true, save: async () => true };
    recorded.notebooks.push(open);
    recorded.messageAnswers.push("Discard Unsaved Changes and Accept");
    await controller.accept("t2");
    assert.match(recorded.messages[0].text, /nb\/areas\.ipynb has unsaved changes/);
    assert.deepEqual(recorded.shownNotebooks, [open]);
    assert.ok(recorded.commands.some((c) => c.id === "workbench.action.files.revert"));
    assert.equal(calls[0].command, "waymark.applyPending");
  });

  it("opens multi-file proposals in the multi-diff editor", async () => {
    const { controller } = setup();
    void controller.propose(
      preview("t2", [
        { path: "a", uri: "file:///w/a", action: "updated", newContent: "a" },
        { path: "b", uri: "file:///w/b", action: "created", newContent: "b" },
      ]),
      "waymark_rewind",
    );
    await new Promise((resolve) => setImmediate(resolve));
    const changes = recorded.commands.find((c) => c.id === "vscode.changes");
    assert.ok(changes);
    const rows = changes.args[1] as Uri[][];
    assert.equal(String(rows[1][1]), "waymark-proposal:///b?token=t2&base=1", "a created file's left side is empty");
  });
});

describe("proposal file system", () => {
  it("serves the proposal, records edits and refuses writes to read-only sides", () => {
    const store = new PendingStore();
    const fs = new ProposalFileSystem(store);
    store.add({ token: "t1", origin: "o", diff: "", files: ONE_FILE, createdAt: 0 });
    const uri = proposalUri("t1", "src/a.py");
    assert.equal(new TextDecoder().decode(fs.readFile(uri)), "x = 2\n");
    assert.equal(fs.stat(uri).permissions, undefined);
    fs.writeFile(uri, new TextEncoder().encode("x = 3\n"));
    assert.equal(store.newContentFor("t1"), "x = 3\n");
    assert.equal(new TextDecoder().decode(fs.readFile(uri)), "x = 3\n");
    const base = proposalUri("t1", "src/a.py", true);
    assert.equal(new TextDecoder().decode(fs.readFile(base)), "");
    assert.throws(() => fs.writeFile(base, new Uint8Array()), /no permissions/);
    assert.throws(() => fs.readFile(proposalUri("gone", "src/a.py")), /not found/);
  });
});
