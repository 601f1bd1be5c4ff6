/** Wires the pieces together; each feature lives in its own module. */
import * as vscode from "vscode";

import { createApi, type WaymarkApi } from "./api";
import { ApprovalController } from "./approval/approvalController";
import { HunkLenses } from "./approval/hunkLenses";
import { PendingStore } from "./approval/pendingStore";
import { trackProposalEditors } from "./approval/proposalEditors";
import { ProposalFileSystem } from "./approval/proposalFileSystem";
import { PROPOSAL_SCHEME } from "./approval/proposalUri";
import { ConversationHosts } from "./conversationHosts";
import { Commands } from "./protocol";
import { proposeEdit } from "./proposeEditCommand";
import { WaymarkStatus } from "./history/statusBar";
import { TurnActions } from "./history/turnActions";
import { TurnsSource } from "./history/turnsSource";
import { fileOf, TURNS_VIEW, turnOf, TurnsView } from "./history/turnsView";
import { initHost } from "./initHost";
import { FileHistory, HISTORY_SCHEME, HistoryContent } from "./rewind/fileHistory";
import { RewindFlow } from "./rewind/rewindFlow";
import { ServerConnection } from "./serverConnection";
import { workspaceSessionId } from "./session";
import { readSettings, RESTART_SETTINGS } from "./settings";
import type { ForwardDeps } from "./tools/toolForwarder";
import { registerLanguageModelTools } from "./tools/languageModelTools";
import { TurnTracker } from "./tools/turnTracker";

let server: ServerConnection | undefined;

export function activate(context: vscode.ExtensionContext): WaymarkApi {
  const activationStart = Date.now();
  const output = vscode.window.createOutputChannel("Waymark", { log: true });
  const connection = new ServerConnection(output, workspaceSessionId(context.workspaceState), context.extensionPath);
  server = connection;
  const store = new PendingStore();
  const proposals = new ProposalFileSystem(store);
  const approval = new ApprovalController(store, connection);
  connection.reviewer = (preview, origin) => approval.propose(preview, origin);
  const hunkLenses = new HunkLenses(store);
  const hosts = new ConversationHosts();
  const historyContent = new HistoryContent();
  const rewindFlow = new RewindFlow(connection, hosts, output);
  const fileHistory = new FileHistory(connection, historyContent);
  const turnsSource = new TurnsSource(connection);
  const turnsView = new TurnsView(turnsSource);
  const treeView = vscode.window.createTreeView(TURNS_VIEW, { treeDataProvider: turnsView, showCollapseAll: true });
  turnsSource.visible = treeView.visible;
  const turnActions = new TurnActions(connection, turnsSource, historyContent, rewindFlow);

  const deps: ForwardDeps = {
    execute: (command, params) => connection.execute(command, params),
    approvalMode: () => readSettings(vscode.workspace.getConfiguration("waymark")).approval,
    propose: (preview, origin) => approval.propose(preview, origin),
  };
  const turns = new TurnTracker((turn) => connection.execute(Commands.snapshot, turn));

  context.subscriptions.push(
    output,
    connection,
    proposals,
    approval,
    hunkLenses,
    turnsSource,
    turnsView,
    treeView,
    treeView.onDidChangeVisibility((event) => (turnsSource.visible = event.visible)),
    new WaymarkStatus(turnsSource, store),
    trackProposalEditors(),
    vscode.languages.registerCodeLensProvider({ scheme: PROPOSAL_SCHEME }, hunkLenses),
    vscode.commands.registerCommand("waymark.rejectHunk", (uri?: string, index?: number) => hunkLenses.reject(uri, index)),
    vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, proposals, { isCaseSensitive: true }),
    vscode.workspace.registerTextDocumentContentProvider(HISTORY_SCHEME, historyContent),
    connection.onDidRewind((event) =>
      hosts.notify(event, (host, error) => output.error(`conversation host "${host.label}" failed to rewind: ${String(error)}`)),
    ),
    vscode.commands.registerCommand("waymark.rewindToTurn", async () => {
      await rewindFlow.run();
      await turnsSource.refresh();
    }),
    vscode.commands.registerCommand("waymark.turns.refresh", () => {
      turnsSource.forgetStats();
      return turnsSource.refresh();
    }),
    vscode.commands.registerCommand("waymark.turns.openSettings", () =>
      vscode.commands.executeCommand("workbench.action.openSettings", "@ext:waymark.waymark"),
    ),
    vscode.commands.registerCommand("waymark.turns.openDiff", (node?: unknown) => withFile(node, (f) => turnActions.diffSinceStart(f.promptId, f.path))),
    vscode.commands.registerCommand("waymark.turns.openTurnDiff", (node?: unknown) => withFile(node, (f) => turnActions.diffOfTurn(f.promptId, f.path))),
    vscode.commands.registerCommand("waymark.turns.rewindHere", (node?: unknown) => {
      const promptId = turnOf(node);
      return promptId ? turnActions.rewind(promptId) : rewindFlow.run();
    }),
    vscode.commands.registerCommand("waymark.turns.rewindFile", (node?: unknown) => withFile(node, (f) => turnActions.rewind(f.promptId, [f.path]))),
    vscode.commands.registerCommand("waymark.turns.undoLastRewind", () => turnActions.undoLastRewind()),
    vscode.commands.registerCommand("waymark.initHost", (host?: unknown) => initHost(typeof host === "string" ? host : undefined, output)),
    vscode.commands.registerCommand("waymark.showFileHistory", (uri?: vscode.Uri) => fileHistory.show(uri)),
    vscode.commands.registerCommand("waymark.acceptProposal", (target?: unknown) => approval.accept(target)),
    vscode.commands.registerCommand("waymark.rejectProposal", (target?: unknown) => approval.reject(target)),
    vscode.commands.registerCommand("waymark.showPendingProposals", () => approval.showPending()),
    vscode.commands.registerCommand("waymark.restartServer", () => connection.restart()),
    vscode.commands.registerCommand("waymark.showLog", () => output.show()),
    vscode.commands.registerCommand("waymark.proposeEdit", (argument?: unknown) => proposeEdit(argument, deps)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_SETTINGS.some((section) => event.affectsConfiguration(section))) {
        output.info("settings changed: restarting the server");
        void connection.restart();
      }
    }),
    ...registerLanguageModelTools(deps, turns, contributedTools(context)),
  );

  // The Turns view and the status bar ask for the history once the server runs, then poll.
  void connection.ensureStarted().then(() => turnsSource.refresh());
  output.info(`activated in ${Date.now() - activationStart} ms`);
  return createApi(deps, connection.onDidRewind, hosts);
}

function withFile(node: unknown, act: (file: { promptId: string; path: string }) => Promise<void>): Promise<void> {
  const file = fileOf(node);
  if (!file) {
    void vscode.window.showInformationMessage("Waymark: pick a file of a turn in the Turns view.");
    return Promise.resolve();
  }
  return act(file);
}

function contributedTools(context: vscode.ExtensionContext): string[] {
  const manifest = context.extension.packageJSON as { contributes?: { languageModelTools?: { name: string }[] } };
  return (manifest.contributes?.languageModelTools ?? []).map((tool) => tool.name);
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
  server = undefined;
}
