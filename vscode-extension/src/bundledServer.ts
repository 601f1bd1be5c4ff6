/**
 * The server shipped inside the .vsix (bundled/libs, started by bundled/tool/launch.py): which
 * Python runs it. The Python extension's selected interpreter comes first, then the system
 * `python3`; each is asked, with `launch.py --check` (which imports the server), whether it can run
 * the bundled libraries, so an old or foreign interpreter yields one message that says what to do.
 * The server runs on Linux and macOS only: on Windows no interpreter is asked, the user is sent
 * to WSL, where VS Code runs this extension's Linux package next to the folder.
 */
import { execFile } from "child_process";
import * as path from "path";
import * as vscode from "vscode";

import type { ServerLaunch } from "./settings";

export interface ProbeResult {
  python: string;
  /** undefined: this interpreter can run the bundled server. */
  problem?: string;
}

export type Probe = (python: string, launcher: string) => Promise<ProbeResult>;

export function launcherPath(extensionPath: string): string {
  return path.join(extensionPath, "bundled", "tool", "launch.py");
}

/** `-I`: neither PYTHONPATH nor the user's site-packages may shadow the bundled libraries. */
export function bundledLaunch(python: string, extensionPath: string): ServerLaunch {
  return { command: python, args: ["-I", launcherPath(extensionPath)] };
}

export const WINDOWS_MESSAGE =
  "Waymark: the language server runs on Linux and macOS, not on Windows. " +
  'Fix: open the folder in WSL ("WSL: Connect to WSL" from the Remote - WSL extension) and install Waymark there, where it runs.';

export async function findBundledLaunch(
  extensionPath: string,
  candidates: string[],
  probe: Probe = probeInterpreter,
  platform: NodeJS.Platform = process.platform,
): Promise<{ launch: ServerLaunch } | { error: string }> {
  if (platform === "win32") {
    return { error: WINDOWS_MESSAGE };
  }
  const tried: ProbeResult[] = [];
  for (const python of [...new Set(candidates)]) {
    const result = await probe(python, launcherPath(extensionPath));
    if (result.problem === undefined) {
      return { launch: bundledLaunch(python, extensionPath) };
    }
    tried.push(result);
  }
  return { error: noPythonMessage(tried) };
}

export function noPythonMessage(tried: ProbeResult[]): string {
  const details = tried.map((t) => `${t.python}: ${t.problem ?? "ok"}`).join("; ");
  return (
    `Waymark: no Python 3.11 or newer was found to run the language server bundled with the extension (${details}). ` +
    'Fix: install Python 3.11+ and select it with "Python: Select Interpreter" or put python3 on PATH, ' +
    'or set "waymark.server.command" to a Waymark server you installed yourself.'
  );
}

/** Interpreters to try, best first: the Python extension's selection, then the system one. */
export async function interpreterCandidates(): Promise<string[]> {
  const candidates: string[] = [];
  const selected = await pythonExtensionInterpreter().catch(() => undefined);
  if (selected) {
    candidates.push(selected);
  }
  candidates.push("python3");
  return candidates;
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string } | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!extension) {
    return undefined;
  }
  const api = extension.isActive ? extension.exports : await extension.activate();
  const environments = api?.environments;
  if (!environments) {
    return undefined;
  }
  const active = environments.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri);
  const resolved = await environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath;
}

function probeInterpreter(python: string, launcher: string): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, ["-I", launcher, "--check"], { timeout: 15_000, windowsHide: true }, (error, stdout) => {
      const answer = stdout.trim();
      if (!error && answer === "ok") {
        resolve({ python });
      } else if (answer) {
        resolve({ python, problem: answer });
      } else {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        resolve({ python, problem: code === "ENOENT" ? "not found" : (error?.message ?? "no answer") });
      }
    });
  });
}
