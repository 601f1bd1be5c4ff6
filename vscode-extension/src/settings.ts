/**
 * Settings → server launch command and initializationOptions. Pure so the mapping (the part
 * users get wrong and bug reports hinge on) is unit-tested without VS Code; the cases in
 * tests/fixtures/initialization-options.json are checked here and against the server.
 */
import { SERVER_OPTIONS } from "./generated/spec";

export type ApprovalMode = "diff" | "refactorPreview" | "auto";

type ServerApproval = (typeof SERVER_OPTIONS.approval.enum)[number];

/**
 * In "diff" mode the extension itself asks for previews and shows them in its diff editor, so
 * the server must not also ask through workspace/applyEdit: it runs in "auto" and the approval
 * happens before waymark.applyPending. Only "refactorPreview" hands approval to the server.
 */
const SERVER_APPROVAL: Readonly<Record<ApprovalMode, ServerApproval>> = { diff: "auto", refactorPreview: "editor", auto: "auto" };

export interface WaymarkSettings {
  serverCommand: string[];
  pythonPath: string;
  approval: ApprovalMode;
  checkpointing: boolean;
  watch: boolean;
  protectedPaths: string[];
  historyDir: string;
  maxSnapshots: number;
  maxHistoryBytes: number;
  /** Let terminal agents (`waymark mcp`, the CLI) send their edits here for approval. */
  bridgeEnabled: boolean;
}

export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface InitializationOptions {
  approval: ServerApproval;
  checkpointing: boolean;
  watch: boolean;
  protectedPaths: string[];
  sessionId: string;
  maxSnapshots: number;
  maxHistoryBytes: number;
  historyDir?: string;
  /** VS Code's `files.encoding`: the server reads a file in it when nothing else decides. */
  filesEncoding?: string;
}

export interface ServerLaunch {
  command: string;
  args: string[];
}

/** Settings that only take effect when the server starts, so a change means a restart. */
export const RESTART_SETTINGS = [
  "files.encoding",
  "waymark.server",
  "waymark.approval",
  "waymark.checkpointing",
  "waymark.watch",
  "waymark.protectedPaths",
  "waymark.historyDir",
  "waymark.maxSnapshots",
  "waymark.maxHistoryBytes",
  "waymark.bridge",
];

/**
 * A missing or malformed value of a server option gets the server's own default (from the
 * generated spec), so a typo never weakens the server: a malformed protectedPaths protects the
 * default paths, not nothing. The extension's own settings (the server command, the approval
 * mode) fall back to the extension's defaults.
 */
export function readSettings(config: ConfigReader): WaymarkSettings {
  const command = config.get<unknown>("server.command");
  const approval = config.get<unknown>("approval");
  const checkpointing = config.get<unknown>("checkpointing");
  const watch = config.get<unknown>("watch");
  const protectedPaths = config.get<unknown>("protectedPaths");
  const maxSnapshots = config.get<unknown>("maxSnapshots");
  const maxHistoryBytes = config.get<unknown>("maxHistoryBytes");
  const bridgeEnabled = config.get<unknown>("bridge.enabled");
  return {
    serverCommand: isStringArray(command) ? command : [],
    pythonPath: trimmed(config.get<unknown>("server.pythonPath")),
    approval: typeof approval === "string" && Object.hasOwn(SERVER_APPROVAL, approval) ? (approval as ApprovalMode) : "diff",
    checkpointing: typeof checkpointing === "boolean" ? checkpointing : SERVER_OPTIONS.checkpointing.default,
    watch: typeof watch === "boolean" ? watch : SERVER_OPTIONS.watch.default,
    // A valid empty list stays empty: protecting nothing is the user's explicit choice.
    protectedPaths: isStringArray(protectedPaths) ? protectedPaths : [...SERVER_OPTIONS.protectedPaths.default],
    historyDir: trimmed(config.get<unknown>("historyDir")),
    maxSnapshots: atLeast(maxSnapshots, SERVER_OPTIONS.maxSnapshots),
    maxHistoryBytes: atLeast(maxHistoryBytes, SERVER_OPTIONS.maxHistoryBytes),
    bridgeEnabled: typeof bridgeEnabled === "boolean" ? bridgeEnabled : true,
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
 * An empty history dir is left out, so the server's XDG default applies. `filesEncoding` is
 * VS Code's own `files.encoding` (a setting outside Waymark's section), passed when set.
 */
export function initializationOptions(settings: WaymarkSettings, sessionId: string, filesEncoding?: unknown): InitializationOptions {
  const options: InitializationOptions = {
    approval: SERVER_APPROVAL[settings.approval],
    checkpointing: settings.checkpointing,
    watch: settings.watch,
    protectedPaths: settings.protectedPaths,
    sessionId,
    maxSnapshots: settings.maxSnapshots,
    maxHistoryBytes: settings.maxHistoryBytes,
  };
  if (settings.historyDir) {
    options.historyDir = settings.historyDir;
  }
  const encoding = trimmed(filesEncoding);
  if (encoding) {
    options.filesEncoding = encoding;
  }
  return options;
}

/**
 * Extra environment of the server process. The bridge is off when either this setting or
 * `WAYMARK_BRIDGE=off` in VS Code's own environment says so (the client adds these variables
 * to that environment, so an "off" there is never turned on here).
 */
export function serverEnvironment(settings: WaymarkSettings): Record<string, string> | undefined {
  return settings.bridgeEnabled ? undefined : { WAYMARK_BRIDGE: "off" };
}

function atLeast(value: unknown, option: { minimum: number; default: number }): number {
  return typeof value === "number" && Number.isFinite(value) && value >= option.minimum ? Math.floor(value) : option.default;
}

function trimmed(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
