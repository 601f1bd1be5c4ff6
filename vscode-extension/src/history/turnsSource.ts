/**
 * The workspace's turns as every door leaves them. Any process may add a turn (an MCP server,
 * a host hook, `waymark run`, another window) and none tells this one, so the list is asked
 * for again on a timer: often while the Turns view is visible, rarely otherwise (the status
 * bar shows the open turn). An answer that did not change fires nothing. `+N −M` counts
 * are computed per turn on demand and kept until the turns or the workspace's files change.
 */
import * as vscode from "vscode";

import { Commands, type DiffStats, type Failure, failure, type Turn } from "../protocol";
import type { ServerConnection } from "../serverConnection";
import type { StatsState } from "./turnsModel";

const VISIBLE_POLL_MS = 2_000;
const HIDDEN_POLL_MS = 10_000;
const FILE_CHANGE_SETTLE_MS = 500;
const STATS_CONCURRENCY = 3;
const STARTING = "Starting the Waymark language server…";
const NOT_RUNNING = "The Waymark language server is not running; Waymark: Restart Server starts it (Waymark: Show Server Log says why it stopped).";

export type TurnsState = { turns: Turn[] } | { failure: Failure } | undefined;

export class TurnsSource implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private current: TurnsState;
  private fingerprint = "";
  /** Bumped whenever the counts are dropped, so an answer asked for before is not kept. */
  private generation = 0;
  private readonly stats = new Map<string, StatsState>();
  private statsQueue: string[] = [];
  private statsRunning = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<void> | undefined;
  private viewVisible = false;
  private disposed = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly server: Pick<ServerConnection, "execute" | "onDidRewind" | "status">) {
    let settle: ReturnType<typeof setTimeout> | undefined;
    const filesChanged = (): void => {
      clearTimeout(settle);
      settle = setTimeout(() => this.forgetStats(), FILE_CHANGE_SETTLE_MS);
    };
    const watcher = vscode.workspace.createFileSystemWatcher("**/*");
    this.subscriptions.push(
      watcher,
      watcher.onDidChange(filesChanged),
      watcher.onDidCreate(filesChanged),
      watcher.onDidDelete(filesChanged),
      server.onDidRewind(() => void this.refresh()),
      vscode.window.onDidChangeWindowState((state) => state.focused && void this.refresh()),
      new vscode.Disposable(() => clearTimeout(settle)),
    );
  }

  get state(): TurnsState {
    return this.current;
  }

  get turns(): Turn[] | undefined {
    return this.current && "turns" in this.current ? this.current.turns : undefined;
  }

  set visible(visible: boolean) {
    this.viewVisible = visible;
    if (visible) {
      void this.refresh();
    }
  }

  /** Asks the server now; concurrent callers share one request. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = undefined;
      this.schedule(this.viewVisible ? VISIBLE_POLL_MS : HIDDEN_POLL_MS);
    });
    return this.refreshing;
  }

  /** `+N −M` of a turn: undefined until asked for, "pending" while it is computed. */
  statsOf(promptId: string): StatsState {
    if (!this.stats.has(promptId)) {
      this.stats.set(promptId, "pending");
      this.statsQueue.push(promptId);
      this.pump();
    }
    return this.stats.get(promptId);
  }

  /** The counts are stale (files were written): recompute them for what is shown. */
  forgetStats(): void {
    if (this.stats.size === 0) {
      return;
    }
    this.dropStats();
    this.changed.fire();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.changed.dispose();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (!this.disposed) {
      this.timer = setTimeout(() => void this.refresh(), ms);
    }
  }

  private async load(): Promise<void> {
    // Polling never starts the server: a server that cannot start says so once, not per poll.
    const status = this.server.status;
    if (status !== "running") {
      const why = status === "starting" ? failure("starting", STARTING) : failure("server_unavailable", NOT_RUNNING);
      this.update({ failure: why }, why.message);
      return;
    }
    const answer = await this.server.execute<{ turns: Turn[] }>(Commands.turns);
    if (this.disposed) {
      return;
    }
    this.update(answer.ok ? { turns: answer.turns } : { failure: answer }, JSON.stringify(answer.ok ? answer.turns : [answer.error, answer.message]));
  }

  private update(next: TurnsState, fingerprint: string): void {
    if (fingerprint === this.fingerprint) {
      return;
    }
    this.fingerprint = fingerprint;
    this.current = next;
    this.dropStats();
    this.changed.fire();
  }

  private dropStats(): void {
    this.generation++;
    this.stats.clear();
    this.statsQueue = [];
  }

  private pump(): void {
    while (this.statsRunning < STATS_CONCURRENCY && this.statsQueue.length > 0) {
      const promptId = this.statsQueue.shift() as string;
      const asked = this.generation;
      this.statsRunning++;
      void this.server
        .execute<DiffStats>(Commands.diffStats, { promptId })
        .then((answer) => {
          // An answer for turns that have changed since is dropped; the new ones are asked for.
          if (asked === this.generation && this.stats.get(promptId) === "pending" && !this.disposed) {
            this.stats.set(promptId, answer.ok ? answer : "error");
            this.changed.fire();
          }
        })
        .finally(() => {
          this.statsRunning--;
          this.pump();
        });
    }
  }
}
