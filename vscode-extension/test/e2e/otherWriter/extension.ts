/**
 * Stands in for another extension that writes the workspace (Copilot's Keep, Cline's and Roo's
 * diff views) in the e2e: "Waymark E2E: Save Through a WorkspaceEdit" replaces a document's
 * whole text with a `WorkspaceEdit` and saves it; "Waymark E2E: Write Through workspace.fs"
 * writes a file's bytes without any document. Each takes `{path, text}` (path relative to the
 * first workspace folder) and appends the path to $WAYMARK_E2E_OTHER_OUT once done.
 * codeServer.e2e.ts packages and installs it; it is not part of Waymark's .vsix.
 */
import { appendFileSync } from "node:fs";
import * as vscode from "vscode";

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("waymarkE2eOther.saveEdit", () => fromInput(saveThroughEdit)),
    vscode.commands.registerCommand("waymarkE2eOther.writeFs", () => fromInput(writeThroughFs)),
  );
}

async function fromInput(write: (uri: vscode.Uri, text: string) => Promise<void>): Promise<void> {
  const request = await vscode.window.showInputBox({ prompt: "Write as JSON: {path, text}" });
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!request || !folder) {
    return;
  }
  const { path, text } = JSON.parse(request) as { path: string; text: string };
  await write(vscode.Uri.joinPath(folder.uri, path), text);
  const out = process.env.WAYMARK_E2E_OTHER_OUT;
  if (out) {
    appendFileSync(out, `${path}\n`);
  }
}

async function saveThroughEdit(uri: vscode.Uri, text: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(0, 0, document.lineCount, 0), text);
  await vscode.workspace.applyEdit(edit);
  await document.save();
}

async function writeThroughFs(uri: vscode.Uri, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
}
