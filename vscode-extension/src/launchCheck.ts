/**
 * Finds the server executable before spawning it, so a missing server produces a message that
 * names the fix instead of the client's generic "connection closed" error.
 */
import * as fs from "fs";
import * as path from "path";

import type { ServerLaunch } from "./settings";

export function resolveExecutable(
  command: string,
  envPath: string | undefined,
  isExecutable: (file: string) => boolean = defaultIsExecutable,
): string | undefined {
  if (command.includes("/") || command.includes(path.sep)) {
    return isExecutable(command) ? command : undefined;
  }
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, command);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

export function missingServerMessage(launch: ServerLaunch, usesPythonPath: boolean): string {
  if (usesPythonPath) {
    return (
      `Waymark: the Python interpreter "${launch.command}" set in waymark.server.pythonPath was not found. ` +
      "Fix: point the setting at an interpreter that has Waymark installed (as the Install section of the Waymark README says), or clear it to use the server bundled with the extension."
    );
  }
  return (
    `Waymark: the language server command "${launch.command}" was not found on PATH. ` +
    'Fix: set "waymark.server.command" to its full path, or clear it to use the server bundled with the extension.'
  );
}

export function startFailureMessage(launch: ServerLaunch, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return (
    `Waymark: the language server (${[launch.command, ...launch.args].join(" ")}) failed to start: ${reason}. ` +
    "Fix: check the Waymark output channel for its error; make sure the installed waymark package matches this extension."
  );
}

function defaultIsExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
