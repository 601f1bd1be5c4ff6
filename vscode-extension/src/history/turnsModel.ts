/**
 * What the Turns view shows, from `waymark.turns` and `waymark.diffStats` answers: one row per
 * turn (label, relative time, where it came from, file count, `+N −M`) and under it the turn's
 * files with their status. Pure, so the view's wording is unit-tested without VS Code.
 */
import type { DiffStats, DiffStatsFile, Turn } from "../protocol";
import { fileCount, relativeTime, toMillis, turnTitle } from "../rewind/turnLabels";

export type OriginKind = "vscode" | "hook" | "cli" | "rewind" | "auto" | "watch" | "agent";

export interface Origin {
  kind: OriginKind;
  label: string;
}

/**
 * Who opened a turn, read from the promptId each door gives its turns: the extension's tools
 * (`chat-`), host hooks (`turn-`), `waymark run` (`run-`), a rewind's undo point (`undo-`),
 * an edit that arrived with no turn open (`auto-`), other programs' changes the server's watch
 * recorded (`watch-`). Any other id was chosen by an agent calling
 * waymark_snapshot itself, over MCP or the extension's API.
 */
export function turnOrigin(promptId: string): Origin {
  const prefixes: [string, Origin][] = [
    ["chat-", { kind: "vscode", label: "VS Code agent" }],
    ["turn-", { kind: "hook", label: "host hook" }],
    ["run-", { kind: "cli", label: "waymark run" }],
    ["undo-", { kind: "rewind", label: "before a rewind" }],
    ["auto-", { kind: "auto", label: "edit outside a turn" }],
    ["watch-", { kind: "watch", label: "other programs" }],
  ];
  const found = prefixes.find(([prefix]) => promptId.startsWith(prefix));
  return found ? found[1] : { kind: "agent", label: "MCP / agent" };
}

export type StatsState = DiffStats | "pending" | "error" | undefined;

export type FileStatus = "created" | "modified" | "deleted" | "unchanged" | "outOfReach";

export interface TurnRow {
  promptId: string;
  title: string;
  description: string;
  tooltip: string;
  origin: Origin;
  /** The turn edits land in now (the newest not of other programs). */
  open: boolean;
  files: FileRow[];
}

export interface FileRow {
  promptId: string;
  path: string;
  status: FileStatus;
  /** Rewinding this file alone can do something (it has a backup). */
  rewindable: boolean;
  description: string;
  tooltip: string;
}

/** Newest first, as a history reads; the server lists them oldest first. */
export function turnRows(turns: Turn[], stats: (promptId: string) => StatsState, now: number): TurnRow[] {
  const open = openTurn(turns)?.promptId;
  return [...turns]
    .sort((a, b) => (toMillis(b.timestamp) ?? 0) - (toMillis(a.timestamp) ?? 0))
    .map((turn) => turnRow(turn, stats(turn.promptId), now, turn.promptId === open));
}

/** The turn edits land in: other programs' turns are closed as the server records them,
 * so an agent's turn open around one stays the open one. */
export function openTurn(turns: Turn[]): Turn | undefined {
  return newestTurn(turns.filter((turn) => !turn.promptId.startsWith("watch-")));
}

export function newestTurn(turns: Turn[]): Turn | undefined {
  let newest: Turn | undefined;
  for (const turn of turns) {
    if (!newest || (toMillis(turn.timestamp) ?? 0) >= (toMillis(newest.timestamp) ?? 0)) {
      newest = turn;
    }
  }
  return newest;
}

export function turnRow(turn: Turn, stats: StatsState, now: number, open: boolean): TurnRow {
  const origin = turnOrigin(turn.promptId);
  const files = fileRows(turn, stats);
  const parts = [relativeTime(turn.timestamp, now), origin.label, plural(files.length, "file")];
  if (typeof stats === "object") {
    parts.push(`+${stats.insertions} −${stats.deletions}`);
  } else if (stats === "pending") {
    parts.push("…");
  }
  const tooltip = [
    `${turnTitle(turn)}${open ? " (open: new edits land in this turn)" : ""}`,
    `promptId ${turn.promptId}, started ${turn.timestamp}, by ${origin.label}`,
    typeof stats === "object"
      ? `+${stats.insertions} −${stats.deletions} in ${plural(stats.filesChanged, "file")}: what "Rewind to Here" would undo (every change since this turn started).`
      : "",
    turn.canRestore ? "" : "Some files of this turn have no backup and cannot be restored.",
  ].filter(Boolean);
  return { promptId: turn.promptId, title: turnTitle(turn), description: parts.join(" · "), tooltip: tooltip.join("\n"), origin, open, files };
}

/**
 * The files the turn wrote (or, for servers that do not say, the files changed since it
 * started), then the paths a shell command of the turn changed without a backup. The status
 * compares the turn's start with now.
 */
export function fileRows(turn: Turn, stats: StatsState): FileRow[] {
  const counted = typeof stats === "object" ? new Map(stats.files.map((file) => [file.path, file])) : new Map<string, DiffStatsFile>();
  const listed = turn.edited ?? (typeof stats === "object" ? stats.files.map((file) => file.path) : []);
  const unreached = new Map((turn.unreached ?? []).map((item) => [item.path, item.reason]));
  const rows: FileRow[] = [...new Set(listed)]
    .filter((path) => !unreached.has(path))
    .sort()
    .map((path) => fileRow(turn.promptId, path, counted.get(path), stats));
  for (const [path, reason] of [...unreached].sort(([a], [b]) => a.localeCompare(b))) {
    rows.push({
      promptId: turn.promptId,
      path,
      status: "outOfReach",
      rewindable: false,
      description: "out of reach",
      tooltip: `${path}: a shell command of this turn may have changed it, but it could not be backed up (${reason}); a rewind leaves it as it is.`,
    });
  }
  return rows;
}

function fileRow(promptId: string, path: string, counted: DiffStatsFile | undefined, stats: StatsState): FileRow {
  const known = typeof stats === "object";
  const status: FileStatus = counted ? statusOf(counted.status) : "unchanged";
  const parts: string[] = [];
  if (!known) {
    parts.push(stats === "pending" ? "…" : "");
  } else if (counted) {
    parts.push(status, counted.binary ? "binary" : `+${counted.insertions} −${counted.deletions}`);
    if (counted.conflict) {
      parts.push("changed by someone else");
    }
  } else {
    parts.push("as it was at the start");
  }
  const tooltip = known
    ? counted
      ? `${path}: ${status} since this turn started${counted.conflict ? "; changed by someone else since the agent's last write, so a rewind asks to force it" : ""}.`
      : `${path}: the same now as at the start of this turn.`
    : path;
  return { promptId, path, status, rewindable: true, description: parts.filter(Boolean).join(" · "), tooltip };
}

function statusOf(status: string): FileStatus {
  return status === "created" || status === "deleted" ? status : "modified";
}

/** The turn that follows `promptId` in time: its start is the end of `promptId`'s turn. */
export function nextTurn(turns: Turn[], promptId: string): Turn | undefined {
  const ordered = [...turns].sort((a, b) => (toMillis(a.timestamp) ?? 0) - (toMillis(b.timestamp) ?? 0));
  const index = ordered.findIndex((turn) => turn.promptId === promptId);
  return index >= 0 ? ordered[index + 1] : undefined;
}

/** The newest rewind's undo point and the files that rewind wrote (its undo turn's writes). */
export function lastRewind(turns: Turn[]): { promptId: string; title: string; paths: string[] | undefined } | undefined {
  const undo = newestTurn(turns.filter((turn) => turn.promptId.startsWith("undo-")));
  if (!undo) {
    return undefined;
  }
  const paths = undo.edited && undo.edited.length > 0 ? undo.edited : undefined;
  return { promptId: undo.promptId, title: turnTitle(undo), paths };
}

/** The status bar's words: "Waymark", the open turn, the pending proposals. */
export function statusText(turns: Turn[] | undefined, pending: number): { text: string; tooltip: string } {
  const open = turns ? openTurn(turns) : undefined;
  const parts = ["$(history) Waymark"];
  const tooltip: string[] = [];
  if (open) {
    const title = turnTitle(open);
    parts.push(title.length > 32 ? `${title.slice(0, 31)}…` : title);
    tooltip.push(`Open turn: ${title} (${plural(fileCount(open), "tracked file")})`);
  } else {
    tooltip.push(turns ? "No turns recorded yet" : "History not available");
  }
  if (pending > 0) {
    parts.push(`$(git-pull-request) ${pending} pending`);
    tooltip.push(`${plural(pending, "edit")} waiting for your approval`);
  }
  tooltip.push("Click to open the Turns view");
  return { text: parts.join(" · "), tooltip: tooltip.join("\n") };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
