/**
 * One code-server for an e2e run: fresh user-data and extensions dirs under the run's folder,
 * the .vsix installed, served on 127.0.0.1 without auth and opened in Debian Chromium. What
 * it starts is stopped by PID (see processes.ts), whatever happened.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";

import { type Browser, type BrowserServer, chromium, type Page } from "playwright-core";

import { CHROMIUM_ARGS, EXTENSION_ROOT, freePort, waitFor } from "./harness";
import { killTree, start } from "./processes";
import { waitForWorkbench } from "./workbench";

/** The user settings every run starts from: no trust prompt, tips, updates or telemetry. */
const SETTINGS = {
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "update.mode": "none",
  "telemetry.telemetryLevel": "off",
  "extensions.ignoreRecommendations": true,
  "extensions.autoUpdate": false,
  "files.autoSave": "off",
  "window.zoomLevel": 0,
  // Accept all / Reject all and the per-hunk lenses in the diff editor (docs/editor-bridge.md).
  "diffEditor.codeLens": true,
};

/** The pinned code-server, installed on first use by scripts/install-code-server.sh. */
export function codeServerBinary(): string {
  return execFileSync(path.join(EXTENSION_ROOT, "scripts/install-code-server.sh"), { encoding: "utf8" }).trim().split("\n").pop() as string;
}

export class CodeServer {
  readonly userData: string;
  private readonly args: string[];
  private server: ChildProcess | undefined;
  private browserServer: BrowserServer | undefined;
  private browser: Browser | undefined;
  log = "";

  /** `settings` are added to the common ones, in the user settings of a fresh user-data dir. */
  constructor(
    private readonly binary: string,
    private readonly root: string,
    settings: Record<string, unknown>,
  ) {
    this.userData = path.join(root, "user-data");
    this.args = ["--user-data-dir", this.userData, "--extensions-dir", path.join(root, "extensions")];
    mkdirSync(path.join(this.userData, "User"), { recursive: true });
    writeFileSync(path.join(this.userData, "User/settings.json"), JSON.stringify({ ...SETTINGS, ...settings }));
  }

  install(env: NodeJS.ProcessEnv, ...vsixes: string[]): void {
    for (const vsix of vsixes) {
      execFileSync(this.binary, [...this.args, "--install-extension", vsix], { env, encoding: "utf8", stdio: "pipe" });
    }
  }

  /** Serves `workspace` on a free port once /healthz answers; the port. */
  async start(workspace: string, env: NodeJS.ProcessEnv): Promise<number> {
    const port = await freePort();
    const config = path.join(this.root, "config.yaml");
    writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    this.server = start(
      this.binary,
      ["--config", config, ...this.args, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", workspace],
      { env },
      (text) => (this.log += text),
    );
    await waitFor("code-server /healthz", async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    }, 60_000);
    return port;
  }

  /** `workspace` in Chromium, once the workbench is up. */
  async open(chromiumPath: string, port: number, workspace: string): Promise<Page> {
    // launchServer (not launch) so the browser's PID is known and can be killed by PID.
    this.browserServer = await chromium.launchServer({ executablePath: chromiumPath, args: CHROMIUM_ARGS, headless: true });
    this.browser = await chromium.connect(this.browserServer.wsEndpoint());
    const page = await this.browser.newPage({ viewport: { width: 1400, height: 860 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await waitForWorkbench(page);
    return page;
  }

  /** Stops the browser and code-server by PID; the PIDs still alive after. */
  async stop(): Promise<number[]> {
    await this.browser?.close().catch(() => undefined);
    const leftovers: number[] = [];
    for (const pid of [this.browserServer?.process().pid, this.server?.pid]) {
      if (pid) {
        leftovers.push(...(await killTree(pid)));
      }
    }
    return leftovers;
  }
}
