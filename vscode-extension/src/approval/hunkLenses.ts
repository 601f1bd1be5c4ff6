/**
 * Per-hunk review in the proposal's diff editor: a "Reject this change" lens above each hunk
 * puts those lines back as the file has them; the other hunks stay as proposed. Rejecting
 * edits the proposal like the user's typing would, so Accept sends it as newContent.
 */
import * as vscode from "vscode";

import { diffHunks, type Hunk, rejectHunk } from "./hunks";
import type { PendingStore } from "./pendingStore";
import { parseProposalPath, PROPOSAL_SCHEME } from "./proposalUri";

const ACCEPT_KEY = process.platform === "darwin" ? "⌥⌘Enter" : "Ctrl+Alt+Enter";
const REJECT_KEY = process.platform === "darwin" ? "⌥⌘Backspace" : "Ctrl+Alt+Backspace";

export class HunkLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscription: { dispose(): void };

  constructor(private readonly store: PendingStore) {
    this.subscription = store.onDidChange(() => this.changed.fire());
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const hunks = await this.hunks(document);
    return [...this.wholeProposal(document), ...hunks.map((hunk, index) => {
      const line = Math.min(hunk.proposalStart, document.lineCount - 1);
      const what = hunk.proposalEnd === hunk.proposalStart ? "deletion" : "change";
      return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
        title: `$(discard) Reject this ${what}`,
        tooltip: "Put these lines back as the file has them; the other changes stay proposed",
        command: "waymark.rejectHunk",
        arguments: [document.uri.toString(), index],
      });
    })];
  }

  /** Accept / Reject in words at the top of every proposed file, for the whole proposal. */
  private wholeProposal(document: vscode.TextDocument): vscode.CodeLens[] {
    const ref = document.uri.scheme === PROPOSAL_SCHEME ? parseProposalPath(document.uri.path, document.uri.query) : undefined;
    const edit = ref && !ref.base ? this.store.get(ref.token) : undefined;
    if (!ref || !edit) {
      return [];
    }
    const top = new vscode.Range(0, 0, 0, 0);
    const scope = edit.files.length === 1 ? "this change" : `the changes to all ${edit.files.length} files`;
    return [
      new vscode.CodeLens(top, {
        title: "$(check) Accept all",
        tooltip: `Write ${scope}, with your edits of the right side (${ACCEPT_KEY})`,
        command: "waymark.acceptProposal",
        arguments: [ref.token],
      }),
      new vscode.CodeLens(top, {
        title: "$(close) Reject all",
        tooltip: `Write nothing; the agent is told you rejected ${scope} (${REJECT_KEY})`,
        command: "waymark.rejectProposal",
        arguments: [ref.token],
      }),
    ];
  }

  /** Restores hunk `index` of the proposal at `uri`; without them, the hunk at the cursor. */
  async reject(uri?: string, index?: number): Promise<void> {
    const active = vscode.window.activeTextEditor;
    const document =
      uri === undefined ? active?.document : vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri);
    const original = document && (await this.original(document.uri));
    if (!document || original === undefined) {
      void vscode.window.showInformationMessage("Waymark: put the cursor in a change of a proposal to reject it.");
      return;
    }
    const hunks = diffHunks(original, document.getText());
    const line = active?.document === document ? active.selection.active.line : -1;
    const hunk =
      index === undefined
        ? hunks.find((h) => line >= h.proposalStart && line < Math.max(h.proposalEnd, h.proposalStart + 1))
        : hunks[index];
    if (!hunk) {
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
    edit.replace(document.uri, whole, rejectHunk(original, document.getText(), hunk));
    await vscode.workspace.applyEdit(edit);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private async hunks(document: vscode.TextDocument): Promise<Hunk[]> {
    const original = await this.original(document.uri);
    return original === undefined ? [] : diffHunks(original, document.getText());
  }

  /** The left side of the diff: the file as the user sees it (its buffer, if open). */
  private async original(uri: vscode.Uri): Promise<string | undefined> {
    if (uri.scheme !== PROPOSAL_SCHEME) {
      return undefined;
    }
    const ref = parseProposalPath(uri.path, uri.query);
    const file = ref && !ref.base ? this.store.file(ref.token, ref.path) : undefined;
    if (!ref || !file || file.action !== "updated" || !this.store.isEditable(ref.token, ref.path)) {
      return undefined;
    }
    return (await vscode.workspace.openTextDocument(vscode.Uri.parse(file.uri))).getText();
  }
}
