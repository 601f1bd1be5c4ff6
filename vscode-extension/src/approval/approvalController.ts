/**
 * The diff-editor approval flow: a proposal opens as "current file ↔ proposal", the user may
 * edit the proposal, and Accept / Reject settle it with the server. Accept writes through
 * waymark.applyPending, so the bytes are on disk when the agent's tool call returns.
 * For a `.ipynb` VS Code resolves the same `vscode.diff` to its notebook diff editor, so every
 * lookup of tabs and documents here takes notebook ones as well as text ones.
 */
import * as vscode from "vscode";

import { Commands, type Preview } from "../protocol";
import type { ServerConnection } from "../serverConnection";
import type { Decision, PendingEdit, PendingFile, PendingStore } from "./pendingStore";
import { proposalUri } from "./proposalFileSystem";
import { parseProposalPath, PROPOSAL_SCHEME } from "./proposalUri";

const ACCEPT_ALL = "Accept All";
const REJECT_ALL = "Reject All";

export class ApprovalController implements vscode.Disposable {
  private readonly subscriptions: { dispose(): void }[] = [];

  constructor(
    private readonly store: PendingStore,
    private readonly server: Pick<ServerConnection, "execute">,
  ) {
    this.subscriptions.push(store.onDidChange(() => this.updateStatus()));
    this.updateStatus();
  }

  /** Shows the proposal and resolves once the user accepted, rejected or the apply failed. */
  async propose(preview: Preview, origin: string): Promise<Decision> {
    this.store.add({ token: preview.token, origin, diff: preview.diff, files: preview.files, createdAt: Date.now() });
    const decision = this.store.decision(preview.token);
    await this.open(preview.token);
    this.offerChoice(preview.token);
    return decision ?? { kind: "rejected" };
  }

  /**
   * The decision in words next to the diff: the editor-title buttons are icons, and diff
   * editors show the "Accept all · Reject all" lenses only with `diffEditor.codeLens`. A click
   * on a proposal that is already settled does nothing (the token names it; see resolveTarget).
   */
  private offerChoice(token: string): void {
    const edit = this.store.get(token);
    // With diff-editor lenses on, "Accept all · Reject all" already reads above the proposal.
    if (!edit || vscode.workspace.getConfiguration("diffEditor").get<boolean>("codeLens") === true) {
      return;
    }
    void vscode.window
      .showInformationMessage(`Waymark: ${edit.origin} proposes changes to ${describeFiles(edit)}. Review the diff (you may edit its right side), then:`, ACCEPT_ALL, REJECT_ALL)
      .then((choice) => (choice === ACCEPT_ALL ? this.accept(token) : choice === REJECT_ALL ? this.reject(token) : undefined));
  }

  async open(token: string): Promise<void> {
    const edit = this.store.get(token);
    if (!edit) {
      return;
    }
    if (edit.files.length === 1) {
      const [file] = edit.files;
      await vscode.commands.executeCommand("vscode.diff", leftUri(token, file), proposalUri(token, file.path), diffTitle(file, edit));
      return;
    }
    await vscode.commands.executeCommand(
      "vscode.changes",
      `Waymark proposal (${edit.origin}): ${edit.files.length} files`,
      edit.files.map((file) => [vscode.Uri.parse(file.uri), leftUri(token, file), proposalUri(token, file.path)]),
    );
  }

  async accept(target?: unknown): Promise<void> {
    const edit = await this.resolveTarget(target, "accept");
    if (!edit) {
      return;
    }
    const dirtyOriginals = edit.files
      .map((file) => findDocument(vscode.Uri.parse(file.uri)))
      .filter((doc): doc is OpenDocument => doc?.isDirty === true);
    if (dirtyOriginals.length > 0 && !(await this.discardUnsaved(dirtyOriginals))) {
      return;
    }
    await this.flushProposalEditors(edit);
    const newContent = this.store.newContentFor(edit.token);
    const params = newContent === undefined ? { token: edit.token } : { token: edit.token, newContent };
    const result = await this.server.execute(Commands.applyPending, params);
    await this.closeProposalTabs(edit.token);
    if (result.ok) {
      this.store.settle(edit.token, { kind: "accepted", result });
      const how = newContent === undefined ? "" : " with your changes";
      vscode.window.setStatusBarMessage(`$(check) Waymark: applied ${describeFiles(edit)}${how}`, 5000);
    } else {
      this.store.settle(edit.token, { kind: "failed", result });
      void vscode.window.showErrorMessage(`Waymark: the proposal for ${describeFiles(edit)} was not applied: ${result.message}`);
    }
  }

  async reject(target?: unknown): Promise<void> {
    const edit = await this.resolveTarget(target, "reject");
    if (!edit) {
      return;
    }
    await this.flushProposalEditors(edit);
    const result = await this.server.execute(Commands.discardPending, { token: edit.token });
    if (!result.ok && result.error !== "unknown_token") {
      void vscode.window.showWarningMessage(`Waymark: the server could not discard the proposal: ${result.message}`);
    }
    await this.closeProposalTabs(edit.token);
    this.store.settle(edit.token, { kind: "rejected" });
  }

  async showPending(): Promise<void> {
    const edits = this.store.list();
    if (edits.length === 0) {
      void vscode.window.showInformationMessage("Waymark: no edits are waiting for approval.");
      return;
    }
    const picked = await vscode.window.showQuickPick(
      edits.map((edit) => ({ label: describeFiles(edit), description: edit.origin, edit })),
      { title: "Waymark: pending proposals", placeHolder: "Open a proposal to review it" },
    );
    if (picked) {
      await this.open(picked.edit.token);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    for (const edit of this.store.list()) {
      this.store.settle(edit.token, { kind: "rejected" });
    }
  }

  /** The count itself is shown by the Waymark status bar item (history/statusBar.ts). */
  private updateStatus(): void {
    void vscode.commands.executeCommand("setContext", "waymark.pendingCount", this.store.size);
  }

  /** Editor-title buttons pass the resource; the palette passes nothing, so fall back to the active diff. */
  private async resolveTarget(target: unknown, verb: string): Promise<PendingEdit | undefined> {
    if (typeof target === "string") {
      // A token names one proposal: never settle another one in its place.
      return this.store.get(target);
    }
    const fromArgument = this.editFromUri(target);
    if (fromArgument) {
      return fromArgument;
    }
    const fromTab = this.editFromUri(tabResource(vscode.window.tabGroups.activeTabGroup.activeTab?.input));
    const fromEditor = fromTab ?? this.editFromUri(vscode.window.activeTextEditor?.document.uri);
    if (fromEditor) {
      return fromEditor;
    }
    const edits = this.store.list();
    if (edits.length <= 1) {
      return edits[0];
    }
    const picked = await vscode.window.showQuickPick(
      edits.map((edit) => ({ label: describeFiles(edit), description: edit.origin, edit })),
      { title: `Waymark: which proposal do you want to ${verb}?` },
    );
    return picked?.edit;
  }

  private editFromUri(uri: unknown): PendingEdit | undefined {
    if (!(uri instanceof vscode.Uri) || uri.scheme !== PROPOSAL_SCHEME) {
      return undefined;
    }
    const ref = parseProposalPath(uri.path, uri.query);
    return ref && this.store.get(ref.token);
  }

  private async discardUnsaved(docs: OpenDocument[]): Promise<boolean> {
    const names = docs.map((doc) => vscode.workspace.asRelativePath(doc.uri)).join(", ");
    const discard = "Discard Unsaved Changes and Accept";
    const choice = await vscode.window.showWarningMessage(
      `${names} has unsaved changes that are not part of this proposal.`,
      {
        modal: true,
        detail: "Accepting writes the proposal to disk and drops those unsaved changes. Cancel to keep them.",
      },
      discard,
    );
    if (choice !== discard) {
      return false;
    }
    for (const doc of docs) {
      if ("notebookType" in doc) {
        await vscode.window.showNotebookDocument(doc, { preview: false });
      } else {
        await vscode.window.showTextDocument(doc, { preview: false });
      }
      await vscode.commands.executeCommand("workbench.action.files.revert");
    }
    return true;
  }

  /** Unsaved typing in the proposal is part of what the user approves; saving records it. */
  private async flushProposalEditors(edit: PendingEdit): Promise<void> {
    for (const file of edit.files) {
      const doc = findDocument(proposalUri(edit.token, file.path));
      if (doc?.isDirty) {
        await doc.save();
      }
    }
  }

  private async closeProposalTabs(token: string): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const uri = tabResource(tab.input);
        return uri?.scheme === PROPOSAL_SCHEME && parseProposalPath(uri.path, uri.query)?.token === token;
      });
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }
}

function leftUri(token: string, file: PendingFile): vscode.Uri {
  return file.action === "created" ? proposalUri(token, file.path, true) : vscode.Uri.parse(file.uri);
}

function diffTitle(file: PendingFile, edit: PendingEdit): string {
  const name = file.path.split("/").pop() ?? file.path;
  const verb = file.action === "created" ? "new file" : file.action === "deleted" ? "deletion" : "proposal";
  return `${name} ↔ ${verb} (${edit.origin}) — edit the right side, then Accept`;
}

function describeFiles(edit: PendingEdit): string {
  return edit.files.length === 1 ? edit.files[0].path : `${edit.files.length} files`;
}

type OpenDocument = vscode.TextDocument | vscode.NotebookDocument;

function findDocument(uri: vscode.Uri): OpenDocument | undefined {
  const key = uri.toString();
  return [...vscode.workspace.textDocuments, ...vscode.workspace.notebookDocuments].find((doc) => doc.uri.toString() === key);
}

/** A diff tab stands for its right side, the proposal. */
function tabResource(input: unknown): vscode.Uri | undefined {
  if (input instanceof vscode.TabInputTextDiff || input instanceof vscode.TabInputNotebookDiff) {
    return input.modified;
  }
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputNotebook) {
    return input.uri;
  }
  return undefined;
}
