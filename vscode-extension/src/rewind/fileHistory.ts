/**
 * "Waymark: Show File History": the turns that touched the current file, and for the one
 * picked, a diff of the file as it was at that turn's start against now. The old content comes
 * from a rewind preview (the contract has no "read backup" command), discarded right after.
 */
import * as vscode from "vscode";

import { Commands, type DiffStats, isPreview, type Turn } from "../protocol";
import type { ServerConnection } from "../serverConnection";
import { relativeTime, sortTurns, turnTitle } from "./turnLabels";

export const HISTORY_SCHEME = "waymark-history";

export class HistoryContent implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "";
  }

  put(promptId: string, path: string, content: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: HISTORY_SCHEME, path: `/${path}`, query: `turn=${encodeURIComponent(promptId)}` });
    this.contents.set(uri.toString(), content);
    return uri;
  }
}

export class FileHistory {
  constructor(
    private readonly server: Pick<ServerConnection, "execute">,
    private readonly content: HistoryContent,
  ) {}

  async show(target?: vscode.Uri): Promise<void> {
    const uri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Waymark: open a file from the workspace to see its history.");
      return;
    }
    const path = vscode.workspace.asRelativePath(uri, false);
    const listed = await this.server.execute<{ turns: Turn[] }>(Commands.turns);
    if (!listed.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not list turns: ${listed.message}`);
      return;
    }
    const touching = await this.turnsTouching(sortTurns(listed.turns), path);
    if (touching.length === 0) {
      void vscode.window.showInformationMessage(`Waymark: no agent turn has touched ${path}.`);
      return;
    }
    const now = Date.now();
    const picked = await vscode.window.showQuickPick(
      touching.map(({ turn, stats }) => ({
        label: turnTitle(turn),
        description: relativeTime(turn.timestamp, now),
        detail: stats ? `${stats.status}: +${stats.insertions} −${stats.deletions} since this turn started` : undefined,
        turn,
      })),
      { title: `Waymark: history of ${path}`, placeHolder: "Compare the file as it was at the start of a turn with now" },
    );
    if (picked) {
      await this.compare(picked.turn, path, uri);
    }
  }

  private async turnsTouching(turns: Turn[], path: string): Promise<{ turn: Turn; stats?: DiffStats["files"][number] }[]> {
    const answers = await Promise.all(
      turns.map(async (turn) => {
        const stats = await this.server.execute<DiffStats>(Commands.diffStats, { promptId: turn.promptId });
        const fileStats = stats.ok ? stats.files.find((file) => file.path === path) : undefined;
        const listed = Array.isArray(turn.files) && turn.files.includes(path);
        return listed || fileStats ? { turn, stats: fileStats } : undefined;
      }),
    );
    return answers.filter((answer) => answer !== undefined);
  }

  private async compare(turn: Turn, path: string, current: vscode.Uri): Promise<void> {
    const preview = await this.server.execute(Commands.rewind, { promptId: turn.promptId, option: "code", preview: true });
    if (!preview.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not read the history of ${path}: ${preview.message}`);
      return;
    }
    if (!isPreview(preview)) {
      void vscode.window.showInformationMessage(`Waymark: ${path} is unchanged since the start of "${turnTitle(turn)}".`);
      return;
    }
    void this.server.execute(Commands.discardPending, { token: preview.token });
    const file = preview.files.find((candidate) => candidate.path === path);
    if (!file) {
      void vscode.window.showInformationMessage(`Waymark: ${path} is unchanged since the start of "${turnTitle(turn)}".`);
      return;
    }
    if (file.newContent === null) {
      void vscode.window.showInformationMessage(`Waymark: ${path} did not exist at the start of "${turnTitle(turn)}".`);
      return;
    }
    const before = this.content.put(turn.promptId, path, file.newContent);
    await vscode.commands.executeCommand("vscode.diff", before, current, `${path}: start of "${turnTitle(turn)}" ↔ now`);
  }
}
