/**
 * How proposal editors behave beyond their content: the `waymark.proposalFocused` context key
 * (for the Accept / Reject keybindings, whichever side of the diff has focus), and typing in a
 * proposal saved on the fly. Accept sends the proposal as it stands, saved or not, so an
 * unsaved dot on its tab would only suggest that something could be lost.
 */
import * as vscode from "vscode";

import { PROPOSAL_SCHEME } from "./proposalUri";

const SAVE_AFTER_MS = 400;

export function trackProposalEditors(): vscode.Disposable {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const updateFocus = (): void => {
    void vscode.commands.executeCommand("setContext", "waymark.proposalFocused", proposalActive());
  };
  updateFocus();
  return vscode.Disposable.from(
    vscode.window.onDidChangeActiveTextEditor(updateFocus),
    vscode.window.tabGroups.onDidChangeTabs(updateFocus),
    vscode.workspace.onDidChangeTextDocument(({ document }) => {
      if (document.uri.scheme !== PROPOSAL_SCHEME || !document.isDirty) {
        return;
      }
      const key = document.uri.toString();
      clearTimeout(timers.get(key));
      timers.set(
        key,
        setTimeout(() => {
          timers.delete(key);
          // Settled meanwhile (tab closed, document gone): nothing left to record.
          if (document.isDirty && !document.isClosed) {
            void document.save();
          }
        }, SAVE_AFTER_MS),
      );
    }),
    new vscode.Disposable(() => timers.forEach((timer) => clearTimeout(timer))),
  );
}

function proposalActive(): boolean {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputTextDiff) {
    return input.modified.scheme === PROPOSAL_SCHEME;
  }
  return vscode.window.activeTextEditor?.document.uri.scheme === PROPOSAL_SCHEME;
}
