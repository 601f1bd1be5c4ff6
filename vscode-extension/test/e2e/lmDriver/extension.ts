/**
 * Stands in for an agent host in the e2e: "Waymark E2E: Invoke Tool" takes `{name, input}` and
 * calls `vscode.lm.invokeTool` as an agent mode would, then appends `{name, text}` (or
 * `{name, error}`) as one JSON line to $WAYMARK_E2E_LM_OUT. codeServer.e2e.ts packages and
 * installs it next to the Waymark .vsix; it is not part of that .vsix. "Waymark E2E: Run Command"
 * runs a command the palette does not offer.
 */
import { appendFileSync } from "node:fs";
import * as vscode from "vscode";

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("waymarkE2e.invokeTool", invokeFromInput),
    vscode.commands.registerCommand("waymarkE2e.runCommand", runFromInput),
  );
}

/** Runs `{command, args}` without waiting: for commands kept out of the palette, such as waymark.proposeEdit. */
async function runFromInput(): Promise<void> {
  const request = await vscode.window.showInputBox({ prompt: "Command as JSON: {command, args}" });
  if (!request) {
    return;
  }
  const { command, args } = JSON.parse(request) as { command: string; args?: unknown[] };
  void vscode.commands.executeCommand(command, ...(args ?? []));
}

async function invokeFromInput(): Promise<void> {
  const request = await vscode.window.showInputBox({ prompt: "Tool call as JSON: {name, input}" });
  const out = process.env.WAYMARK_E2E_LM_OUT;
  if (!request || !out) {
    return;
  }
  const { name, input } = JSON.parse(request) as { name: string; input: object };
  let line: object;
  try {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : "")).join("");
    line = { name, text };
  } catch (error) {
    line = { name, error: error instanceof Error ? error.message : String(error) };
  }
  appendFileSync(out, `${JSON.stringify(line)}\n`);
}
