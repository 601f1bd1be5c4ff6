/**
 * Rewind outcomes as per-file lines and an exact summary: a file that was not restored is
 * never counted as restored. Pure.
 */
import type { PreviewFile, RewindOutcome } from "../protocol";

export type FileOutcomeKind = "restored" | "deleted" | "unchanged" | "conflict" | "failed";

export interface FileOutcome {
  path: string;
  kind: FileOutcomeKind;
  message: string;
}

export function normalizeOutcome(result: Partial<RewindOutcome>): RewindOutcome {
  return {
    restored: result.restored ?? [],
    deleted: result.deleted ?? [],
    unchanged: result.unchanged ?? [],
    conflicts: result.conflicts ?? [],
    failed: result.failed ?? [],
    undoPromptId: result.undoPromptId,
  };
}

export function fileOutcomes(outcome: RewindOutcome): FileOutcome[] {
  return [
    ...outcome.conflicts.map(({ path, reason }) => ({
      path,
      kind: "conflict" as const,
      message: `not restored: changed since the agent's last write (${reason})`,
    })),
    ...outcome.failed.map(({ path, reason }) => ({ path, kind: "failed" as const, message: `not restored: ${reason}` })),
    ...outcome.restored.map((path) => ({ path, kind: "restored" as const, message: "restored" })),
    ...outcome.deleted.map((path) => ({
      path,
      kind: "deleted" as const,
      message: "deleted (it did not exist at the start of the turn)",
    })),
    ...outcome.unchanged.map((path) => ({ path, kind: "unchanged" as const, message: "already as it was" })),
  ];
}

export function rewindSummary(outcome: RewindOutcome): string {
  const parts = [
    counted(outcome.restored.length, "file restored", "files restored"),
    counted(outcome.deleted.length, "file deleted", "files deleted"),
    counted(outcome.conflicts.length, "conflict not restored", "conflicts not restored"),
    counted(outcome.failed.length, "file failed", "files failed"),
  ].filter((part): part is string => part !== undefined);
  if (parts.length === 0) {
    return "nothing to restore: every file is already as it was";
  }
  return parts.join(", ");
}

/** Merges a forced retry into the first attempt: the retry only touches the conflicted files. */
export function mergeForced(first: RewindOutcome, forced: RewindOutcome): RewindOutcome {
  const retried = new Set(first.conflicts.map((conflict) => conflict.path));
  return {
    restored: [...first.restored, ...forced.restored.filter((path) => retried.has(path))],
    deleted: [...first.deleted, ...forced.deleted.filter((path) => retried.has(path))],
    unchanged: first.unchanged,
    conflicts: forced.conflicts,
    failed: [...first.failed, ...forced.failed],
    // Undo must return to the state before the first attempt, not between the two.
    undoPromptId: first.undoPromptId ?? forced.undoPromptId,
  };
}

const PREVIEW_VERBS: Record<PreviewFile["action"], string> = {
  created: "will be recreated",
  updated: "will be restored",
  deleted: "will be deleted",
};

export function previewLine(file: Pick<PreviewFile, "path" | "action">): string {
  return `${file.path} ${PREVIEW_VERBS[file.action]}`;
}

export const OUTCOME_ICONS: Record<FileOutcomeKind, string> = {
  restored: "$(history)",
  deleted: "$(trash)",
  unchanged: "$(check)",
  conflict: "$(warning)",
  failed: "$(error)",
};

function counted(count: number, singular: string, plural: string): string | undefined {
  if (count === 0) {
    return undefined;
  }
  return `${count} ${count === 1 ? singular : plural}`;
}
