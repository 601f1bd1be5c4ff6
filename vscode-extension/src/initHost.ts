/**
 * "Waymark: Set Up an Agent Host…" (also the walkthrough's first step): runs
 * `waymark init <host>` for the open folder in a terminal, so the user sees what it writes.
 * The hook and MCP entries it writes start `waymark` itself, so it needs the installed
 * `waymark` command (see the README's Install section), not the server bundled in the extension.
 */
import * as vscode from "vscode";

import { INIT_HOSTS } from "./generated/hosts";
import { resolveExecutable } from "./launchCheck";
import { readSettings } from "./settings";

export { INIT_HOSTS };

export interface InitCommand {
  text: string;
  /** false: the command is missing; the line says to install it first and waits for Enter. */
  run: boolean;
}

export function initCommand(host: string, pythonPath: string, waymarkOnPath: boolean): InitCommand {
  if (pythonPath) {
    return { text: `${shellQuote(pythonPath)} -m waymark init ${host}`, run: true };
  }
  if (waymarkOnPath) {
    return { text: `waymark init ${host}`, run: true };
  }
  return { text: `waymark init ${host}  # first install the waymark command as the Install section of the Waymark README says`, run: false };
}

export async function initHost(host: string | undefined, log: vscode.LogOutputChannel): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showInformationMessage("Waymark: open the project's folder first; `waymark init` sets up an agent host for it.");
    return;
  }
  const picked =
    INIT_HOSTS.find((candidate) => candidate.id === host) ??
    (await vscode.window.showQuickPick(
      INIT_HOSTS.map((candidate) => ({ ...candidate, description: `waymark init ${candidate.id}` })),
      { title: `Waymark: set up an agent host for ${folder.name}`, placeHolder: "Which agent do you use in this project?" },
    ));
  if (!picked) {
    return;
  }
  const settings = readSettings(vscode.workspace.getConfiguration("waymark"));
  const command = initCommand(picked.id, settings.pythonPath, resolveExecutable("waymark", process.env.PATH) !== undefined);
  const terminal = vscode.window.createTerminal({ name: `Waymark: init ${picked.id}`, cwd: folder.uri });
  terminal.show();
  terminal.sendText(command.text, command.run);
  log.info(`set up ${picked.id}: ${command.text}${command.run ? "" : " (waiting for Enter)"}`);
  if (!command.run) {
    void vscode.window.showInformationMessage(
      `Waymark: \`waymark\` is not installed. The terminal holds the line that installs it (pipx) and sets up ${picked.label}; press Enter there to run it.`,
    );
  }
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
