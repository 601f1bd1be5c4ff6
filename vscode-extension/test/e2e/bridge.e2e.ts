/**
 * Real VS Code end-to-end for the editor bridge: code-server with the built .vsix in Debian
 * Chromium, and a terminal agent outside it — a real `waymark mcp` process driven over stdio.
 * The agent's multi-replace opens in the diff editor; the user rejects one hunk with its
 * lens, edits another, accepts; the agent's tool result carries the user's version and the
 * rejected hunk is unchanged on disk. Everything started here is stopped by PID at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

import type { Page } from "playwright-core";

import { CodeServer, codeServerBinary } from "./codeServerLaunch";
import { ARTIFACTS, EXTENSION_ROOT, VSIX, requireTool, screenshot, started, step, steps, waitFor, waymarkLogs } from "./harness";
import { Agent } from "./mcpAgent";
import { killTree } from "./processes";

const TARGET = "src/settings.py";
const FILLER = ["", "# how long the client keeps trying", "def describe():", '    return "client settings"', ""];
const ORIGINAL = ["RETRIES = 3", ...FILLER, "TIMEOUT = 10", ""].join("\n");
const USER_TIMEOUT = "TIMEOUT = 60";

function modifiedLine(page: Page, text: string) {
  return page.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: text }).first();
}

async function main(): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const waymarkLs = requireTool("waymark-ls", "the bridge e2e drives the real language server (pip install -e <repo>)");
  const waymark = requireTool("waymark", "the bridge e2e's agent is a real `waymark mcp` (pip install -e <repo>)");
  const chromiumPath = requireTool("chromium", "run scripts/install-code-server.sh (apt-get install chromium)");
  const binary = codeServerBinary();
  if (!existsSync(VSIX)) {
    throw new Error(`${VSIX} is missing: run npm run package first`);
  }

  const root = mkdtempSync(path.join(tmpdir(), "waymark-bridge-"));
  const workspace = path.join(root, "workspace");
  const runtime = path.join(root, "run");
  mkdirSync(runtime, { mode: 0o700 });
  cpSync(path.join(EXTENSION_ROOT, "test/e2e/fixture-workspace"), workspace, { recursive: true });
  const target = path.join(workspace, TARGET);
  writeFileSync(target, ORIGINAL);
  const codeServer = new CodeServer(binary, root, {
    "waymark.server.command": [waymarkLs],
    "waymark.historyDir": path.join(root, "history"),
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(root, "xdg-config"),
    XDG_DATA_HOME: path.join(root, "xdg-data"),
    XDG_CACHE_HOME: path.join(root, "xdg-cache"),
    XDG_STATE_HOME: path.join(root, "xdg-state"),
    // A private registry: this run's editor is the only one the agent can find.
    WAYMARK_RUNTIME_DIR: runtime,
  };
  delete env.WAYMARK_BRIDGE;

  let agentProcess: ChildProcess | undefined;
  let page: Page | undefined;
  let agentLog = "";
  try {
    await step("install the .vsix into a fresh extensions dir", async () => {
      codeServer.install(env, VSIX);
    });

    const port = await step("start code-server on 127.0.0.1 with auth none", () => codeServer.start(workspace, env));

    const p = await step("open the workspace; its language server advertises the bridge", async () => {
      page = await codeServer.open(chromiumPath, port, workspace);
      await waitFor("a bridge entry in the runtime dir", () => readdirSync(runtime).some((name) => name.endsWith(".json")), 90_000);
      return page;
    });

    const agent = await step("a terminal agent starts `waymark mcp` in the workspace and reads", async () => {
      agentProcess = spawn(waymark, ["mcp"], { cwd: workspace, env, stdio: ["pipe", "pipe", "pipe"] });
      agentProcess.stderr?.on("data", (chunk: Buffer) => (agentLog += chunk.toString()));
      const client = new Agent(agentProcess);
      await client.initialize();
      const read = await client.tool("waymark_read", { path: TARGET });
      if (read.isError) {
        throw new Error(`read failed: ${read.content[0]?.text}`);
      }
      return client;
    });

    const edits = [
      { old_string: "RETRIES = 3", new_string: "RETRIES = 5" },
      { old_string: "TIMEOUT = 10", new_string: "TIMEOUT = 30" },
    ];
    const call = agent.tool("waymark_multi_replace", { path: TARGET, edits });

    await step("its change opens in VS Code's diff editor", async () => {
      await modifiedLine(p, "RETRIES = 5").waitFor({ timeout: 60_000 });
      await modifiedLine(p, "TIMEOUT = 30").waitFor({ timeout: 10_000 });
      await p.locator(".codelens-decoration").filter({ hasText: "Reject this change" }).first().waitFor({ timeout: 30_000 });
      await p.waitForTimeout(500);
      await screenshot(p, "bridge-proposal.png", "bridge-proposal.png");
    });

    await step("reject the first hunk with its lens", async () => {
      await p.locator(".codelens-decoration a").filter({ hasText: "Reject this change" }).first().click();
      await modifiedLine(p, "RETRIES = 3").waitFor({ timeout: 10_000 });
      await modifiedLine(p, "TIMEOUT = 30").waitFor({ timeout: 5_000 });
    });

    await step("edit the other hunk in the proposal", async () => {
      await modifiedLine(p, "TIMEOUT = 30").click();
      await p.keyboard.press("End");
      await p.keyboard.press("Shift+Home");
      await p.keyboard.type(USER_TIMEOUT, { delay: 5 });
      await modifiedLine(p, USER_TIMEOUT).waitFor({ timeout: 10_000 });
      await p.waitForTimeout(500);
      await screenshot(p, "bridge-review.png", "bridge-review.png");
    });

    const result = await step("accept; the agent's result carries the user's version", async () => {
      await p.locator('.editor-actions .action-label[aria-label^="Accept Proposal"]').first().click();
      const answer = await Promise.race([call, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no tool result within 30 s")), 30_000))]);
      if (answer.isError) {
        throw new Error(`the tool call failed: ${answer.content[0]?.text}`);
      }
      return JSON.parse(answer.content[0].text) as { via: string; outcome: string; finalContent: Record<string, string> };
    });

    await step("on disk: the rejected hunk unchanged, the edited hunk as the user typed it", async () => {
      const expected = ORIGINAL.replace("TIMEOUT = 10", USER_TIMEOUT);
      const disk = readFileSync(target, "utf8");
      if (disk !== expected) {
        throw new Error(`disk holds ${JSON.stringify(disk)}`);
      }
      if (result.via !== "editor" || result.outcome !== "applied_with_user_changes" || result.finalContent[TARGET] !== expected) {
        throw new Error(`unexpected tool result ${JSON.stringify(result)}`);
      }
    });
  } catch (error) {
    if (page) {
      await screenshot(page, "bridge-failure.png").catch(() => undefined);
    }
    throw error;
  } finally {
    writeFileSync(path.join(ARTIFACTS, "bridge-waymark-output.log"), waymarkLogs(codeServer.userData));
    writeFileSync(path.join(ARTIFACTS, "bridge-code-server.log"), codeServer.log);
    writeFileSync(path.join(ARTIFACTS, "bridge-agent.log"), agentLog);
    const leftovers = agentProcess?.pid ? await killTree(agentProcess.pid) : [];
    leftovers.push(...(await codeServer.stop()));
    if (leftovers.length > 0) {
      console.log(`  ✘ processes still alive after cleanup: ${leftovers.join(", ")}`);
      process.exitCode = 1;
    }
    if (process.env.WAYMARK_E2E_KEEP) {
      console.log(`  kept ${root} (WAYMARK_E2E_KEEP)`);
    } else {
      rmSync(root, { recursive: true, force: true });
    }
  }
}

main()
  .then(() => {
    console.log(`bridge e2e: ${steps.filter((s) => s.ok).length}/${steps.length} steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  })
  .catch((error: unknown) => {
    console.error(`bridge e2e FAILED: ${error instanceof Error ? error.message : String(error)}`);
    console.log(`bridge e2e: ${steps.filter((s) => s.ok).length}/${steps.length} steps passed before the failure`);
    process.exitCode = 1;
  })
  .finally(() => {
    writeFileSync(path.join(ARTIFACTS, "bridge-e2e-steps.json"), JSON.stringify(steps, null, 2));
  });
