/** How turns read in the rewind picker: label, relative time, `+N −M in K files`. Pure. */
import type { DiffStats, Turn } from "../protocol";

/** Accepts ISO strings and epoch seconds or milliseconds: servers and journals differ. */
export function toMillis(timestamp: string | number): number | undefined {
  if (typeof timestamp === "number") {
    return timestamp < 1e12 ? timestamp * 1000 : timestamp;
  }
  const asNumber = Number(timestamp);
  if (timestamp.trim() !== "" && Number.isFinite(asNumber)) {
    return toMillis(asNumber);
  }
  const parsed = Date.parse(timestamp);
  return Number.isNaN(parsed) ? undefined : parsed;
}

export function relativeTime(timestamp: string | number, now: number): string {
  const millis = toMillis(timestamp);
  if (millis === undefined) {
    return "unknown time";
  }
  const seconds = Math.round((now - millis) / 1000);
  if (seconds < 0) {
    return "in the future";
  }
  if (seconds < 45) {
    return "just now";
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  if (hours < 24) {
    return `${hours} h ago`;
  }
  const days = Math.round(hours / 24);
  if (days === 1) {
    return "yesterday";
  }
  if (days < 7) {
    return `${days} days ago`;
  }
  return new Date(millis).toISOString().slice(0, 10);
}

export function statsText(stats: Pick<DiffStats, "insertions" | "deletions" | "filesChanged">): string {
  if (stats.filesChanged === 0) {
    return "no changes since";
  }
  const files = stats.filesChanged === 1 ? "1 file" : `${stats.filesChanged} files`;
  return `+${stats.insertions} −${stats.deletions} in ${files}`;
}

export function turnTitle(turn: Turn): string {
  const label = turn.label?.trim();
  return label ? label : turn.promptId;
}

export function fileCount(turn: Turn): number {
  return Array.isArray(turn.files) ? turn.files.length : turn.files;
}

/** Newest first: the turn a user most often rewinds to is the last one. */
export function sortTurns(turns: Turn[]): Turn[] {
  return [...turns].sort((a, b) => (toMillis(b.timestamp) ?? 0) - (toMillis(a.timestamp) ?? 0));
}

export interface TurnItemText {
  label: string;
  description: string;
  detail: string;
}

export function turnItemText(turn: Turn, stats: DiffStats | undefined | "pending" | "error", now: number): TurnItemText {
  const when = relativeTime(turn.timestamp, now);
  let detail: string;
  if (stats === "pending") {
    detail = "computing changes…";
  } else if (stats === "error" || stats === undefined) {
    const count = fileCount(turn);
    detail = `${count} tracked file${count === 1 ? "" : "s"}`;
  } else {
    detail = statsText(stats);
  }
  if (!turn.canRestore) {
    detail += " · cannot be fully restored";
  }
  const unreached = turn.unreached?.length ?? 0;
  if (unreached > 0) {
    // Shell commands touched these without a backup: a rewind leaves them as they are.
    detail += ` · ${unreached} path${unreached === 1 ? "" : "s"} out of reach`;
  }
  return { label: turnTitle(turn), description: when, detail };
}
