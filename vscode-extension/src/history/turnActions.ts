/**
 * What the Turns view's items do: open a file's diff (the turn's start ↔ now, or ↔ the turn's
 * end), rewind to a turn or rewind one file (the preview's per-file diffs first, then a
 * question), undo the last rewind. A file's content at a turn's start comes from a rewind
 * preview of that one file (`paths`), discarded at once: the contract has no "read backup".
 */
import * as vscode from "vscode";

import { Commands, isPreview, type Preview, type Result, type RewindOutcome, type RewindPlanFile, type Turn } from "../protocol";
import type { HistoryContent } from "../rewind/fileHistory";
import { normalizeOutcome } from "../rewind/rewindMessages";
import type { RewindFlow } from "../rewind/rewindFlow";
import { turnTitle } from "../rewind/turnLabels";
import type { ServerConnection } from "../serverConnection";
import { lastRewind, nextTurn } from "./turnsModel";
import type { TurnsSource } from "./turnsSource";

type Snapshot = { content: string | null } | { now: true } | { error: string };

type RewindPreview = Preview & { ok: true; plan?: RewindPlanFile[] };

export class TurnActions {
  constructor(
    private readonly server: Pick<ServerConnection, "execute">,
    private readonly source: TurnsSource,
    private readonly content: HistoryContent,
    private readonly flow: RewindFlow,
  ) {}

  /** The file as it was when the turn started ↔ as it is now. */
  async diffSinceStart(promptId: string, path: string): Promise<void> {
    const turn = this.turn(promptId);
    if (!turn) {
      return;
    }
    const start = await this.snapshot(promptId, path);
    const title = `${path}: start of "${turnTitle(turn)}" ↔ now`;
    await this.openDiff(start, { now: true }, `start:${promptId}`, path, title);
  }

  /** The file as it was when the turn started ↔ when the next one started (or now, if none has). */
  async diffOfTurn(promptId: string, path: string): Promise<void> {
    const turn = this.turn(promptId);
    if (!turn) {
      return;
    }
    const next = nextTurn(this.source.turns ?? [], promptId);
    const [start, end] = await Promise.all([this.snapshot(promptId, path), next ? this.snapshot(next.promptId, path) : { now: true as const }]);
    const title = `${path}: "${turnTitle(turn)}" start ↔ end`;
    await this.openDiff(start, end, `start:${promptId}`, path, title, `end:${promptId}`);
  }

  /** "Rewind to Here" (every file) or "Rewind This File Only": the diffs, then the question. */
  async rewind(promptId: string, paths?: string[]): Promise<void> {
    const turn = this.turn(promptId);
    if (!turn) {
      return;
    }
    const title = turnTitle(turn);
    const what = paths ? paths.join(", ") : `the files of "${title}"`;
    const preview = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Waymark: checking what rewinding ${what} would change…` },
      () => this.server.execute(Commands.rewind, { promptId, preview: true, ...(paths ? { paths } : {}) }),
    );
    if (!preview.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not preview the rewind to "${title}": ${preview.message}`);
      return;
    }
    if (!isPreview(preview)) {
      void vscode.window.showErrorMessage(`Waymark: the server answered the rewind preview without a token.`);
      return;
    }
    const planned = preview as RewindPreview;
    const held = (planned.plan ?? []).filter((file) => file.outcome === "conflict" || file.outcome === "failed");
    if (planned.files.length === 0) {
      await this.discard(planned.token);
      const why = held.length > 0 ? ` ${heldSentence(held)}` : "";
      void vscode.window.showInformationMessage(`Waymark: nothing to rewind; ${what} ${paths?.length === 1 ? "is" : "are"} as at the start of "${title}".${why}`);
      return;
    }
    await this.showPreview(planned, title);
    const count = planned.files.length === 1 ? planned.files[0].path : `${planned.files.length} files`;
    const choice = await vscode.window.showWarningMessage(
      `Waymark: rewind ${count} to the start of "${title}"? The diff shows each file now ↔ after the rewind.${held.length > 0 ? ` ${heldSentence(held)}` : ""}`,
      "Rewind",
      "Cancel",
    );
    await this.closePreview(planned.token);
    if (choice !== "Rewind") {
      await this.discard(planned.token);
      return;
    }
    // Applying the preview's token writes only files still as the preview saw them.
    const applied = await this.server.execute<Partial<RewindOutcome>>(Commands.applyPending, { token: planned.token });
    await this.source.refresh();
    if (!applied.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not rewind to "${title}": ${applied.message}`);
      return;
    }
    await this.flow.report(normalizeOutcome(applied), promptId, title, "code", paths);
    await this.source.refresh();
  }

  /** Puts back what the newest rewind wrote, from its undo point. */
  async undoLastRewind(): Promise<void> {
    await this.source.refresh();
    const last = lastRewind(this.source.turns ?? []);
    if (!last) {
      void vscode.window.showInformationMessage("Waymark: there is no rewind to undo in this workspace's history.");
      return;
    }
    await this.flow.rewind(last.promptId, last.title, "code", last.paths);
    await this.source.refresh();
  }

  private turn(promptId: string): Turn | undefined {
    const found = this.source.turns?.find((turn) => turn.promptId === promptId);
    if (!found) {
      void vscode.window.showWarningMessage(`Waymark: turn ${promptId} is no longer in the history.`);
    }
    return found;
  }

  /** The file at the start of turn `promptId`: from a forced preview, which also sees past conflicts. */
  private async snapshot(promptId: string, path: string): Promise<Snapshot> {
    const answer: Result = await this.server.execute(Commands.rewind, { promptId, paths: [path], preview: true, force: true });
    if (!answer.ok) {
      return { error: answer.message };
    }
    if (!isPreview(answer)) {
      return { error: "the server answered the preview without a token" };
    }
    void this.discard(answer.token);
    const file = answer.files.find((candidate) => candidate.path === path);
    if (file) {
      return { content: file.newContent };
    }
    const planned = (answer as RewindPreview).plan?.find((item) => item.path === path);
    if (planned && planned.outcome !== "unchanged") {
      return { error: `its backup cannot be shown (${planned.reason ?? planned.outcome})` };
    }
    return { now: true };
  }

  private async openDiff(left: Snapshot, right: Snapshot, leftTag: string, path: string, title: string, rightTag = "now"): Promise<void> {
    for (const side of [left, right]) {
      if ("error" in side) {
        void vscode.window.showErrorMessage(`Waymark: cannot show ${path}: ${side.error}.`);
        return;
      }
    }
    const current = this.fileUri(path);
    const uri = (side: Snapshot, tag: string): vscode.Uri =>
      "content" in side ? this.content.put(tag, path, side.content ?? "") : current;
    await vscode.commands.executeCommand("vscode.diff", uri(left, leftTag), uri(right, rightTag), title, { preview: true });
  }

  private async showPreview(preview: RewindPreview, title: string): Promise<void> {
    const tag = `rewind:${preview.token}`;
    const pairs = preview.files.map((file) => {
      const now = file.action === "created" ? this.content.put(`${tag}:before`, file.path, "") : vscode.Uri.parse(file.uri);
      return { file, now, after: this.content.put(tag, file.path, file.newContent ?? "") };
    });
    if (pairs.length === 1) {
      const [{ file, now, after }] = pairs;
      await vscode.commands.executeCommand("vscode.diff", now, after, `${file.path}: now ↔ after rewinding to "${title}"`);
      return;
    }
    await vscode.commands.executeCommand(
      "vscode.changes",
      `Rewind to "${title}": ${pairs.length} files, now ↔ after`,
      pairs.map(({ file, now, after }) => [vscode.Uri.parse(file.uri), now, after]),
    );
  }

  private async closePreview(token: string): Promise<void> {
    const tag = encodeURIComponent(`rewind:${token}`);
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff) {
          return input.modified.query.includes(tag);
        }
        // The multi-file diff has no public input type: it is known by its title.
        return input === undefined && tab.label.startsWith("Rewind to \"");
      });
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  private async discard(token: string): Promise<void> {
    await this.server.execute(Commands.discardPending, { token });
  }

  private fileUri(path: string): vscode.Uri {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder ? vscode.Uri.joinPath(folder.uri, path) : vscode.Uri.file(path);
  }
}

function heldSentence(held: RewindPlanFile[]): string {
  return `Left as they are: ${held.map((file) => `${file.path} (${file.reason ?? file.outcome})`).join(", ")}.`;
}
