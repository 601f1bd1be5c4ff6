/**
 * "Waymark: Rewind to Turn…": pick a turn, pick what to rewind, review the files that will
 * change, rewind, then see every file's outcome with Force (for conflicts) and Undo at hand.
 */
import * as vscode from "vscode";

import type { ConversationHosts } from "../conversationHosts";
import {
  Commands,
  type DiffStats,
  isPreview,
  type PathReason,
  type PreviewFile,
  type Result,
  type RewindOption,
  type RewindOutcome,
  type Turn,
} from "../protocol";
import type { ServerConnection } from "../serverConnection";
import { rewindChoices } from "./rewindOptions";
import { fileOutcomes, mergeForced, normalizeOutcome, OUTCOME_ICONS, previewLine, rewindSummary } from "./rewindMessages";
import { sortTurns, turnItemText, turnTitle } from "./turnLabels";

const STATS_CONCURRENCY = 4;

type TurnItem = vscode.QuickPickItem & { turn: Turn };

export class RewindFlow {
  constructor(
    private readonly server: Pick<ServerConnection, "execute">,
    private readonly hosts: ConversationHosts,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async run(): Promise<void> {
    const turn = await this.pickTurn();
    if (!turn) {
      return;
    }
    const choice = await vscode.window.showQuickPick(
      rewindChoices(this.hosts.labels).map((c) => ({ ...c, description: "" })),
      { title: `Rewind to "${turnTitle(turn)}"`, placeHolder: "What do you want to rewind?" },
    );
    if (!choice || choice.option === "cancel") {
      return;
    }
    if (choice.option !== "conversation" && !(await this.confirmPreview(turn, choice.option))) {
      return;
    }
    await this.rewind(turn.promptId, turnTitle(turn), choice.option);
  }

  /** `paths`: only those files (the others stay as they are), for the rewind and its Force and Undo. */
  async rewind(promptId: string, title: string, option: RewindOption, paths?: string[]): Promise<void> {
    // Not cancellable: stopping a rewind half way would leave the files neither before nor after.
    const first = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Waymark: rewinding to "${title}"…` },
      () => this.server.execute<Partial<RewindOutcome>>(Commands.rewind, { promptId, option, ...(paths ? { paths } : {}) }),
    );
    if (!first.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not rewind to "${title}": ${first.message}`);
      return;
    }
    await this.report(normalizeOutcome(first), promptId, title, option, paths);
  }

  /** Tells the outcome of a rewind, with Force Restore for conflicts and Undo at hand. */
  async report(outcome: RewindOutcome, promptId: string, title: string, option: RewindOption, paths?: string[]): Promise<void> {
    this.logOutcome(title, outcome);
    const summary = `Waymark: rewound to "${title}": ${rewindSummary(outcome)}.`;
    const actions = [
      ...(outcome.conflicts.length > 0 ? ["Force Restore"] : []),
      "Show Details",
      ...(outcome.undoPromptId ? ["Undo Rewind"] : []),
    ];
    const choice =
      outcome.conflicts.length > 0 || outcome.failed.length > 0
        ? await vscode.window.showWarningMessage(`${summary} ${problemSentence(outcome.conflicts, outcome.failed)}`, ...actions)
        : await vscode.window.showInformationMessage(summary, ...actions);
    if (choice === "Force Restore") {
      const forced = await this.server.execute<Partial<RewindOutcome>>(Commands.rewind, {
        promptId,
        option,
        force: true,
        ...(paths ? { paths } : {}),
      });
      if (!forced.ok) {
        void vscode.window.showErrorMessage(`Waymark: forced rewind failed: ${forced.message}`);
        return;
      }
      await this.report(mergeForced(outcome, normalizeOutcome(forced)), promptId, title, option, paths);
    } else if (choice === "Show Details") {
      await this.showDetails(title, outcome);
    } else if (choice === "Undo Rewind" && outcome.undoPromptId) {
      // Only what this rewind wrote goes back; a file-only rewind is undone for that file only.
      const written = [...outcome.restored, ...outcome.deleted];
      await this.rewind(outcome.undoPromptId, `before rewinding to "${title}"`, "code", written.length > 0 ? written : paths);
    }
  }

  private async pickTurn(): Promise<Turn | undefined> {
    const result = await this.server.execute<{ turns: Turn[] }>(Commands.turns);
    if (!result.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not list turns: ${result.message}`);
      return undefined;
    }
    if (result.turns.length === 0) {
      void vscode.window.showInformationMessage("Waymark: no turns recorded yet. Turns start when an agent edits through Waymark.");
      return undefined;
    }
    const turns = sortTurns(result.turns);
    const stats = new Map<string, DiffStats | "pending" | "error">(turns.map((turn) => [turn.promptId, "pending"]));
    const pick = vscode.window.createQuickPick<TurnItem>();
    pick.title = "Waymark: Rewind to Turn";
    pick.placeholder = "Pick the turn whose start you want to go back to";
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    const render = (): void => {
      const now = Date.now();
      const active = pick.activeItems[0]?.turn.promptId;
      pick.items = turns.map((turn) => ({ ...turnItemText(turn, stats.get(turn.promptId), now), turn }));
      const keep = pick.items.find((item) => item.turn.promptId === active);
      if (keep) {
        pick.activeItems = [keep];
      }
    };
    render();
    let closed = false;
    // The picker's progress bar runs while stats are computed; closing the picker stops asking.
    pick.busy = true;
    void forEachLimited(turns, STATS_CONCURRENCY, async (turn) => {
      if (closed) {
        return;
      }
      const answer = await this.server.execute<DiffStats>(Commands.diffStats, { promptId: turn.promptId });
      stats.set(turn.promptId, answer.ok ? answer : "error");
      if (!closed) {
        render();
      }
    }).finally(() => {
      if (!closed) {
        pick.busy = false;
      }
    });
    return new Promise<Turn | undefined>((resolve) => {
      pick.onDidAccept(() => {
        resolve(pick.selectedItems[0]?.turn);
        pick.hide();
      });
      pick.onDidHide(() => {
        closed = true;
        resolve(undefined);
        pick.dispose();
      });
      pick.show();
    });
  }

  private async confirmPreview(turn: Turn, option: RewindOption): Promise<boolean> {
    const preview = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Waymark: checking what rewinding to "${turnTitle(turn)}" would change…`,
        cancellable: true,
      },
      (_progress, token) => this.previewUnlessCancelled(turn.promptId, option, token),
    );
    if (!preview) {
      return false;
    }
    if (!preview.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not preview the rewind: ${preview.message}`);
      return false;
    }
    const files: PreviewFile[] = isPreview(preview) ? preview.files : [];
    if (isPreview(preview)) {
      // The preview only informs the choice; the rewind itself re-checks every file.
      void this.server.execute(Commands.discardPending, { token: preview.token });
    }
    const conflicts = Array.isArray(preview.conflicts) ? (preview.conflicts as PathReason[]) : [];
    if (files.length === 0 && conflicts.length === 0) {
      void vscode.window.showInformationMessage(`Waymark: nothing to rewind; every file is as it was at the start of "${turnTitle(turn)}".`);
      return false;
    }
    type Item = vscode.QuickPickItem & { go?: boolean };
    const items: Item[] = [
      { label: `$(history) Rewind ${files.length} file${files.length === 1 ? "" : "s"}`, go: true },
      { label: "Cancel", go: false },
      { label: "Files that will change", kind: vscode.QuickPickItemKind.Separator },
      ...files.map((file) => ({ label: `$(file) ${previewLine(file)}` })),
      ...(conflicts.length > 0 ? [{ label: "Changed since the agent's last write", kind: vscode.QuickPickItemKind.Separator }] : []),
      ...conflicts.map((conflict) => ({ label: `$(warning) ${conflict.path}`, description: conflict.reason })),
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: `Rewind to "${turnTitle(turn)}": review`,
      placeHolder: "These files will change. Rewind?",
    });
    return picked?.go === true;
  }

  /** A preview writes nothing, so it is safe to stop waiting for; a late answer is discarded. */
  private previewUnlessCancelled(promptId: string, option: RewindOption, token: vscode.CancellationToken): Promise<Result | undefined> {
    const asked = this.server.execute(Commands.rewind, { promptId, option, preview: true });
    return new Promise((resolve) => {
      const cancelled = token.onCancellationRequested(() => {
        resolve(undefined);
        void asked.then((late) => {
          if (isPreview(late)) {
            void this.server.execute(Commands.discardPending, { token: late.token });
          }
        });
      });
      void asked.then((answer) => {
        cancelled.dispose();
        resolve(token.isCancellationRequested ? undefined : answer);
      });
    });
  }

  private async showDetails(title: string, outcome: RewindOutcome): Promise<void> {
    await vscode.window.showQuickPick(
      fileOutcomes(outcome).map((line) => ({ label: `${OUTCOME_ICONS[line.kind]} ${line.path}`, description: line.message })),
      { title: `Rewind to "${title}": per-file outcome`, canPickMany: false },
    );
  }

  private logOutcome(title: string, outcome: RewindOutcome): void {
    this.log.info(`rewind to "${title}": ${rewindSummary(outcome)}`);
    for (const line of fileOutcomes(outcome)) {
      this.log.info(`  ${line.path}: ${line.message}`);
    }
  }
}

function problemSentence(conflicts: PathReason[], failed: PathReason[]): string {
  const parts: string[] = [];
  if (conflicts.length > 0) {
    parts.push(`Changed by someone else since the agent's last write: ${conflicts.map((c) => c.path).join(", ")}.`);
  }
  if (failed.length > 0) {
    parts.push(`Could not restore: ${failed.map((f) => `${f.path} (${f.reason})`).join(", ")}.`);
  }
  return parts.join(" ");
}

async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      await work(items[next++]);
    }
  });
  await Promise.all(workers);
}
