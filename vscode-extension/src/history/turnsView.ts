/**
 * The "Turns" view in Waymark's own activity-bar container: every turn of the workspace's one
 * history, whoever made it, newest first; under each its files. The words come from
 * turnsModel (pure); this file maps them onto tree items and menus' context values.
 */
import * as vscode from "vscode";

import { fileRows, type FileRow, turnRows, type TurnRow } from "./turnsModel";
import type { TurnsSource } from "./turnsSource";

export const TURNS_VIEW = "waymark.turns";

type Node = { kind: "turn"; row: TurnRow } | { kind: "file"; row: FileRow } | { kind: "message"; text: string; busy: boolean };

const ORIGIN_ICONS: Record<TurnRow["origin"]["kind"], string> = {
  vscode: "copilot",
  hook: "terminal",
  cli: "terminal-bash",
  rewind: "discard",
  auto: "edit",
  watch: "eye",
  agent: "hubot",
};

export class TurnsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly source: TurnsSource) {
    this.subscriptions.push(this.changed, source.onDidChange(() => this.changed.fire(undefined)));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "message") {
      const item = new vscode.TreeItem(node.text);
      item.iconPath = new vscode.ThemeIcon(node.busy ? "loading~spin" : "warning");
      return item;
    }
    if (node.kind === "turn") {
      const { row } = node;
      const item = new vscode.TreeItem(row.title, row.files.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      item.id = `turn:${row.promptId}`;
      item.description = row.description;
      item.tooltip = row.tooltip;
      item.iconPath = new vscode.ThemeIcon(row.open ? "circle-filled" : ORIGIN_ICONS[row.origin.kind]);
      item.contextValue = row.origin.kind === "rewind" ? "waymark.turn.undoPoint" : "waymark.turn";
      return item;
    }
    const { row } = node;
    const item = new vscode.TreeItem(row.path.split("/").pop() ?? row.path);
    item.id = `file:${row.promptId}:${row.path}`;
    const folder = row.path.includes("/") ? row.path.slice(0, row.path.lastIndexOf("/")) : "";
    item.description = [folder, row.description].filter(Boolean).join(" · ");
    item.tooltip = row.tooltip;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (root) {
      item.resourceUri = vscode.Uri.joinPath(root, row.path);
    }
    if (row.status === "outOfReach") {
      item.iconPath = new vscode.ThemeIcon("circle-slash", new vscode.ThemeColor("disabledForeground"));
    }
    item.contextValue = row.rewindable ? "waymark.file" : "waymark.file.outOfReach";
    if (row.rewindable) {
      item.command = { command: "waymark.turns.openDiff", title: "Open Diff (Start of Turn ↔ Now)", arguments: [node] };
    }
    return item;
  }

  getChildren(node?: Node): Node[] {
    if (node?.kind === "turn") {
      const turn = this.source.turns?.find((candidate) => candidate.promptId === node.row.promptId);
      return turn ? fileRows(turn, this.source.statsOf(turn.promptId)).map((row) => ({ kind: "file", row })) : [];
    }
    if (node) {
      return [];
    }
    const state = this.source.state;
    if (state && "failure" in state) {
      return [{ kind: "message", text: state.failure.message, busy: state.failure.error === "starting" }];
    }
    const turns = this.source.turns ?? [];
    return turnRows(turns, (promptId) => this.source.statsOf(promptId), Date.now()).map((row) => ({ kind: "turn", row }));
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}

/** The turn or file an item command was invoked on (menus pass the node). */
export function turnOf(node: unknown): string | undefined {
  return isNode(node) && node.kind !== "message" ? node.row.promptId : undefined;
}

export function fileOf(node: unknown): { promptId: string; path: string } | undefined {
  return isNode(node) && node.kind === "file" ? { promptId: node.row.promptId, path: node.row.path } : undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "kind" in value && "row" in value;
}
