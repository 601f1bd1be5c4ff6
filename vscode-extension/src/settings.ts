/**
 * Settings → server launch command and initializationOptions. Pure so the mapping (the part
 * users get wrong and bug reports hinge on) is unit-tested without VS Code.
 */

export type ApprovalMode = "diff" | "refactorPreview" | "auto";

export interface WaymarkSettings {
  serverCommand: string[];
  pythonPath: string;
  approval: ApprovalMode;
  checkpointing: boolean;
  protectedPaths: string[];
  historyDir: string;
  maxSnapshots: number;
}

export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface InitializationOptions {
  approval: "auto" | "editor";
  checkpointing: boolean;
  protectedPaths: string[];
  sessionId: string;
  maxSnapshots: number;
  historyDir?: string;
}

export interface ServerLaunch {
  command: string;
  args: string[];
}

/** Settings that only take effect when the server starts, so a change means a restart. */
export const RESTART_SETTINGS = [
  "waymark.server",
  "waymark.approval",
  "waymark.checkpointing",
  "waymark.protectedPaths",
  "waymark.historyDir",
  "waymark.maxSnapshots",
];

const APPROVAL_MODES: readonly ApprovalMode[] = ["diff", "refactorPreview", "auto"];

export function readSettings(config: ConfigReader): WaymarkSettings {
  const command = config.get<unknown>("server.command");
  const approval = config.get<string>("approval");
  const protectedPaths = config.get<unknown>("protectedPaths");
  const maxSnapshots = config.get<number>("maxSnapshots");
  return {
    serverCommand: isStringArray(command) ? command : [],
    pythonPath: (config.get<string>("server.pythonPath") ?? "").trim(),
    approval: APPROVAL_MODES.includes(approval as ApprovalMode) ? (approval as ApprovalMode) : "diff",
    checkpointing: config.get<boolean>("checkpointing") ?? true,
    protectedPaths: isStringArray(protectedPaths) ? protectedPaths : [],
    historyDir: (config.get<string>("historyDir") ?? "").trim(),
    maxSnapshots: typeof maxSnapshots === "number" && maxSnapshots >= 1 ? Math.floor(maxSnapshots) : 100,
  };
}

/** undefined: no server is configured, so the one bundled with the extension runs. */
export function serverLaunch(settings: WaymarkSettings): ServerLaunch | undefined {
  if (settings.pythonPath) {
    return { command: settings.pythonPath, args: ["-m", "waymark", "serve"] };
  }
  const [command, ...args] = settings.serverCommand;
  return command ? { command, args } : undefined;
}

/**
 * In "diff" mode the extension itself asks for previews and shows them in its diff editor, so
 * the server must not also ask through workspace/applyEdit: it runs in "auto" and the approval
 * happens before waymark.applyPending. Only "refactorPreview" hands approval to the server.
 */
export function initializationOptions(settings: WaymarkSettings, sessionId: string): InitializationOptions {
  const options: InitializationOptions = {
    approval: settings.approval === "refactorPreview" ? "editor" : "auto",
    checkpointing: settings.checkpointing,
    protectedPaths: settings.protectedPaths,
    sessionId,
    maxSnapshots: settings.maxSnapshots,
  };
  if (settings.historyDir) {
    options.historyDir = settings.historyDir;
  }
  return options;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
