/**
 * When the server's connection closes: a server that never finished starting is not restarted
 * (the start error is reported once, with its fix); a running server that crashes is restarted,
 * up to `maxRestarts` times in `windowMs`, so a crash loop ends with one clear message. Pure.
 */
export type CloseDecision = { restart: true } | { restart: false; message?: string };

export class RestartPolicy {
  private running = false;
  private restarts: number[] = [];

  constructor(
    private readonly maxRestarts = 4,
    private readonly windowMs = 3 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  markRunning(): void {
    this.running = true;
  }

  onClosed(): CloseDecision {
    if (!this.running) {
      return { restart: false };
    }
    const now = this.now();
    this.restarts = this.restarts.filter((at) => now - at < this.windowMs);
    if (this.restarts.length >= this.maxRestarts) {
      this.running = false;
      return {
        restart: false,
        message: `Waymark: the language server crashed ${this.maxRestarts + 1} times in ${Math.round(this.windowMs / 60_000)} minutes and was not restarted. See the Waymark output, then run "Waymark: Restart Server".`,
      };
    }
    this.restarts.push(now);
    return { restart: true };
  }
}
