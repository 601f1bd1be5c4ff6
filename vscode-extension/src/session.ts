/** One Waymark session per workspace, kept across reloads so the history (and rewind) survives them. */
import { randomUUID } from "crypto";
import type * as vscode from "vscode";

const KEY = "waymark.sessionId";

export function workspaceSessionId(state: vscode.Memento): string {
  const existing = state.get<string>(KEY);
  if (typeof existing === "string" && existing.length > 0) {
    return existing;
  }
  const created = randomUUID();
  void state.update(KEY, created);
  return created;
}
