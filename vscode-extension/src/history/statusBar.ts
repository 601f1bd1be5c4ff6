/** The status bar item that is always there: "Waymark", the open turn, pending proposals. */
import * as vscode from "vscode";

import type { PendingStore } from "../approval/pendingStore";
import { statusText } from "./turnsModel";
import type { TurnsSource } from "./turnsSource";
import { TURNS_VIEW } from "./turnsView";

export class WaymarkStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("waymark.status", vscode.StatusBarAlignment.Left, 100);
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly source: TurnsSource,
    private readonly pending: PendingStore,
  ) {
    this.item.name = "Waymark";
    this.item.command = `${TURNS_VIEW}.focus`;
    this.subscriptions.push(this.item, source.onDidChange(() => this.update()), pending.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  private update(): void {
    const { text, tooltip } = statusText(this.source.turns, this.pending.size);
    this.item.text = text;
    const markdown = new vscode.MarkdownString(tooltip.replace(/\n/g, "\n\n"), true);
    if (this.pending.size > 0) {
      markdown.appendMarkdown("\n\n[Review pending proposals](command:waymark.showPendingProposals)");
      markdown.isTrusted = { enabledCommands: ["waymark.showPendingProposals"] };
    }
    this.item.tooltip = markdown;
  }
}
