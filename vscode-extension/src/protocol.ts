/**
 * The server's wire contract (docs/protocol.md) as TypeScript types. Only the fields
 * the extension reads are typed; everything else is passed through untouched so a newer
 * server's extra fields reach API callers and agents. Command ids and other lists the server
 * defines come from the generated spec.
 */
import { Commands, REWIND_OPTIONS } from "./generated/spec";

// A type alias, not an interface, so results stay assignable to Record<string, unknown>.
export type Failure = {
  ok: false;
  error: string;
  message: string;
  details?: Record<string, unknown>;
};

export type Result<T = Record<string, unknown>> = (T & { ok: true; warnings?: string[] }) | Failure;

export type FileAction = "created" | "updated" | "deleted";

export interface PreviewFile {
  /** Workspace-relative. */
  path: string;
  uri: string;
  action: FileAction;
  /** The proposed content; null when the file would be deleted. */
  newContent: string | null;
}

export interface Preview {
  preview: true;
  token: string;
  diff: string;
  workspaceEdit?: unknown;
  files: PreviewFile[];
}

export interface Turn {
  promptId: string;
  label?: string;
  timestamp: string | number;
  /** A count in some server versions, a list of paths in others. */
  files: number | string[];
  /** Files written during the turn (absent from older servers). */
  edited?: string[];
  canRestore: boolean;
  /** Paths a shell command of the turn may have changed but that could not be backed up. */
  unreached?: { path: string; reason: string }[];
}

export interface DiffStatsFile {
  path: string;
  status: string;
  insertions: number;
  deletions: number;
  binary?: boolean;
  /** Changed by someone else since the agent's last write: a rewind leaves it unless forced. */
  conflict?: boolean;
}

export interface DiffStats {
  filesChanged: number;
  insertions: number;
  deletions: number;
  files: DiffStatsFile[];
  /** Files whose changes cannot be counted (their backup is unreadable, …). */
  unavailable?: PathReason[];
}

/** One file of a rewind preview's `plan`. */
export interface RewindPlanFile {
  path: string;
  outcome: "restore" | "delete" | "unchanged" | "conflict" | "failed";
  reason?: string;
}

export interface PathReason {
  path: string;
  reason: string;
}

export type RewindOption = (typeof REWIND_OPTIONS)[number];

export interface RewindOutcome {
  restored: string[];
  deleted: string[];
  unchanged: string[];
  conflicts: PathReason[];
  failed: PathReason[];
  undoPromptId?: string;
}

export interface DidRewindEvent {
  promptId: string;
  option: RewindOption;
  restored: string[];
  deleted: string[];
}

export interface ToolDescription {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Server command ids; the language client registers these, so UI commands use other ids. */
export { Commands };

export type CommandId = (typeof Commands)[keyof typeof Commands];

export const DID_REWIND_NOTIFICATION = "waymark/didRewind";

export function isPreview(result: unknown): result is Preview & { ok: true } {
  return (
    typeof result === "object" &&
    result !== null &&
    (result as { ok?: unknown }).ok === true &&
    (result as { preview?: unknown }).preview === true &&
    typeof (result as { token?: unknown }).token === "string"
  );
}

export function failure(error: string, message: string, details: Record<string, unknown> = {}): Failure {
  return { ok: false, error, message, details };
}
