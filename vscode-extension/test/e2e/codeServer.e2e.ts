/**
 * Real VS Code end-to-end: code-server with this machine's platform .vsix, whose bundled server
 * runs on the system python3 (no waymark-ls on PATH, no server setting), Debian Chromium via
 * playwright-core. Proposes an anchored edit, edits the proposal in the diff editor, accepts,
 * checks the bytes on disk, rewinds from the palette and checks the file is restored. Then the
 * language-model tools, invoked through `vscode.lm.invokeTool` by a small driver extension
 * (test/e2e/lmDriver) as an agent in VS Code would: snapshot, read, an anchored edit approved in
 * the diff editor, a sed, the turn list and a rewind, checking each result and the bytes on disk.
 * Then waymark_notebook_edit on a Jupyter notebook: the proposal opens in VS Code's notebook
 * diff editor; accepted, the notebook holds exactly the bytes `waymark notebook-edit` writes
 * without approval; a second proposal, rejected, leaves it as it was.
 * Then a terminal agent (a separate `waymark mcp` process) makes a turn; the Turns view shows it
 * without a refresh, opens a file's diff, rewinds that one file and undoes the rewind, checking
 * the bytes on disk; its pictures go to test-artifacts/ (and to docs/images with
 * WAYMARK_UPDATE_DOCS_IMAGES=1). Then other programs write while the server watches: a second,
 * test-only extension (test/e2e/otherWriter) saves through a `WorkspaceEdit` and writes through
 * `workspace.fs`, and a terminal runs `rm`; each is a turn of its own in the Turns view, and a
 * rewind to the first restores every byte. Everything started here is stopped by PID
 * at the end, whatever happened.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

import type { Page } from "playwright-core";

import { resolveExecutable } from "../../src/launchCheck";
import { CodeServer, codeServerBinary } from "./codeServerLaunch";
import { ARTIFACTS, EXTENSION_ROOT, VSIX, requireTool, screenshot, started, step, steps, waitFor, waymarkLogs } from "./harness";
import { Agent } from "./mcpAgent";
import { killTree } from "./processes";
import { notificationText, pickRow, quickPickRow, runPaletteCommand, waitForQuickInputClosed } from "./workbench";

const TARGET = "src/greet.py";
const ORIGINAL_LINE = '    message = "Hello, " + name';
const PROPOSED_LINE = '    message = f"Hello, {name}!"';
const USER_LINE = '    message = f"Hi there, {name}!"';
const TURN_LABEL = "E2E: friendlier greeting";
const LM_TARGET = "src/shapes.py";
const LM_ORIGINAL = "def area(width, height):\n    result = width * height\n    return result\n";
const LM_EDITED_LINE = "    result = height * width";
const NOTEBOOK = "notebooks/areas.ipynb";
const NOTEBOOK_EDIT = [
  { op: "replace_cell", cell: "e5f60718", source: "sizes = [(2, 3), (4, 5)]\nareas = [h * w for w, h in sizes]\nprint(sum(areas))" },
];
const NOTEBOOK_REJECTED = [{ op: "replace_cell", cell: "a1b2c3d4", source: "# Rectangle areas, summed" }];
const MCP_TURN = "MCP: a warmer greeting";
const MCP_NOTES = "src/notes.txt";
const MCP_NOTES_TEXT = "Greeting changed by the terminal agent.\n";
// Files other programs change while the server watches, with their bytes before.
const SAVED = "src/saved.txt";
const FS_WRITTEN = "src/fs-written.txt";
const REMOVED = "src/removed.txt";
const OTHER_BEFORE: Record<string, string> = {
  [SAVED]: "saved by another extension: before\r\n",
  [FS_WRITTEN]: "written through workspace.fs: before\n",
  [REMOVED]: "removed in a terminal: before\n",
};

/** The server's anchor: first 6 hex chars of xxh3_64 of the line's UTF-8 bytes (docs/anchored-edits.md). */
function lineHash(line: string): string {
  const script = "import sys, xxhash; print(xxhash.xxh3_64_hexdigest(sys.argv[1].encode('utf-8'))[:6])";
  return execFileSync("python3", ["-c", script, line], { encoding: "utf8" }).trim();
}

/** Packages test/e2e/lmDriver (compiled next to this file) as a .vsix with the repo's vsce. */
function packageLmDriver(root: string): string {
  const dir = path.join(root, "lm-driver");
  mkdirSync(dir);
  cpSync(path.join(__dirname, "lmDriver/extension.js"), path.join(dir, "extension.js"));
  writeFileSync(path.join(dir, "README.md"), "Waymark e2e driver: invokes language-model tools.\n");
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({
      name: "lm-driver",
      publisher: "waymark-e2e",
      version: "0.0.1",
      engines: { vscode: "^1.100.0" },
      main: "./extension.js",
      activationEvents: ["onStartupFinished"],
      extensionDependencies: ["waymark.waymark"],
      contributes: {
        commands: [
          { command: "waymarkE2e.invokeTool", title: "Waymark E2E: Invoke Tool" },
          { command: "waymarkE2e.runCommand", title: "Waymark E2E: Run Command" },
        ],
      },
    }),
  );
  const vsix = path.join(root, "lm-driver.vsix");
  const vsce = path.join(EXTENSION_ROOT, "node_modules/.bin/vsce");
  execFileSync(vsce, ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "-o", vsix], { cwd: dir, stdio: "pipe" });
  return vsix;
}

/** Packages test/e2e/otherWriter, a stand-in for another extension that writes files. */
function packageOtherWriter(root: string): string {
  const dir = path.join(root, "other-writer");
  mkdirSync(dir);
  cpSync(path.join(__dirname, "otherWriter/extension.js"), path.join(dir, "extension.js"));
  writeFileSync(path.join(dir, "README.md"), "Waymark e2e: another extension that writes files.\n");
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({
      name: "other-writer",
      publisher: "waymark-e2e",
      version: "0.0.1",
      engines: { vscode: "^1.100.0" },
      main: "./extension.js",
      activationEvents: ["onStartupFinished"],
      contributes: {
        commands: [
          { command: "waymarkE2eOther.saveEdit", title: "Waymark E2E: Save Through a WorkspaceEdit" },
          { command: "waymarkE2eOther.writeFs", title: "Waymark E2E: Write Through workspace.fs" },
        ],
      },
    }),
  );
  const vsix = path.join(root, "other-writer.vsix");
  const vsce = path.join(EXTENSION_ROOT, "node_modules/.bin/vsce");
  execFileSync(vsce, ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "-o", vsix], { cwd: dir, stdio: "pipe" });
  return vsix;
}

/** Has the second extension write `text` to `file`, through `command`'s palette title. */
async function otherWrite(page: Page, command: string, file: string, text: string): Promise<void> {
  await runPaletteCommand(page, command);
  const box = page.locator(".quick-input-widget .quick-input-box input");
  await box.fill(JSON.stringify({ path: file, text }));
  await box.press("Enter");
}

/**
 * What `waymark notebook-edit` (the CLI, no approval) writes for `operations` on a copy of the
 * notebook: the bytes an approved proposal of the same edit must leave on disk.
 */
function notebookEditedByCli(waymark: string, notebook: string, operations: object[], dir: string): Buffer {
  mkdirSync(dir);
  const copy = path.join(dir, path.basename(notebook));
  cpSync(notebook, copy);
  const common = ["--root", dir, "--history-dir", path.join(dir, "history")];
  execFileSync(waymark, ["read", path.basename(copy), ...common], { cwd: dir, stdio: "pipe" });
  execFileSync(waymark, ["notebook-edit", path.basename(copy), "--ops", JSON.stringify(operations), ...common], { cwd: dir, stdio: "pipe" });
  return readFileSync(copy);
}

interface ToolAnswer {
  name: string;
  text?: string;
  error?: string;
}

/** Starts one tool call through the driver; the answer arrives later in `out` (see toolAnswer). */
async function invokeTool(page: Page, name: string, input: object): Promise<void> {
  await runPaletteCommand(page, "Waymark E2E: Invoke Tool");
  const box = page.locator(".quick-input-widget .quick-input-box input");
  await box.fill(JSON.stringify({ name, input }));
  await box.press("Enter");
}

function answerLines(out: string): string[] {
  return existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean) : [];
}

/** The `index`-th (0-based) answer the driver wrote, parsed when it is JSON. */
async function toolAnswer(out: string, index: number, timeout = 30_000): Promise<ToolAnswer & { json?: Record<string, unknown> }> {
  await waitFor(`answer ${index + 1} from the LM driver`, () => answerLines(out).length > index, timeout);
  const answer = JSON.parse(answerLines(out)[index]) as ToolAnswer;
  if (answer.error !== undefined) {
    throw new Error(`vscode.lm.invokeTool(${answer.name}) threw: ${answer.error}`);
  }
  try {
    return { ...answer, json: JSON.parse(answer.text ?? "") as Record<string, unknown> };
  } catch {
    return answer;
  }
}

/** A success is the server's model view, a JSON object; a failure reads `code: message`. */
function expectOk(answer: { name: string; text?: string; json?: Record<string, unknown> }): Record<string, unknown> {
  if (answer.json === undefined || Array.isArray(answer.json)) {
    throw new Error(`${answer.name} answered: ${(answer.text ?? "").slice(0, 400)}`);
  }
  return answer.json;
}

/** Runs a command through the driver (for commands the palette does not offer). */
async function runCommand(page: Page, command: string, ...args: unknown[]): Promise<void> {
  await runPaletteCommand(page, "Waymark E2E: Run Command");
  const box = page.locator(".quick-input-widget .quick-input-box input");
  await box.fill(JSON.stringify({ command, args }));
  await box.press("Enter");
}

/** A row of the Turns view containing `text`. */
function turnsRow(page: Page, text: string) {
  return page.locator('.pane-body .monaco-list-row, [id="workbench.view.extension.waymark"] .monaco-list-row').filter({ hasText: text }).first();
}

async function acceptProposal(page: Page): Promise<void> {
  await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
  await page.locator('.editor-actions .action-label[aria-label^="Accept Proposal"]').first().click();
}

async function main(): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const chromiumPath = requireTool("chromium", "run scripts/install-code-server.sh (apt-get install chromium)");
  const waymarkCli = requireTool("waymark", "the notebook step compares with `waymark notebook-edit` and the Turns view steps need a real `waymark mcp` (pip install -e <repo>)");
  const binary = codeServerBinary();
  if (!existsSync(VSIX)) {
    throw new Error(`${VSIX} is missing: run npm run package first`);
  }
  // The extension must start the server it carries: hide every installed one (this repo's venv).
  const bare = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !existsSync(path.join(dir, "waymark-ls")));
  const bareEnvPath = bare.join(path.delimiter);
  if (resolveExecutable("waymark-ls", bareEnvPath) || !resolveExecutable("python3", bareEnvPath)) {
    throw new Error("the test needs a PATH with python3 and without waymark-ls");
  }

  const root = mkdtempSync(path.join(tmpdir(), "waymark-e2e-"));
  const workspace = path.join(root, "workspace");
  cpSync(path.join(EXTENSION_ROOT, "test/e2e/fixture-workspace"), workspace, { recursive: true });
  writeFileSync(path.join(workspace, LM_TARGET), LM_ORIGINAL);
  for (const [file, text] of Object.entries(OTHER_BEFORE)) {
    writeFileSync(path.join(workspace, file), text);
  }
  const lmOut = path.join(root, "lm-answers.jsonl");
  const codeServer = new CodeServer(binary, root, {
    "waymark.approval": "diff",
    // Where `waymark mcp` keeps it too (its XDG_STATE_HOME below): one history for both.
    "waymark.historyDir": path.join(root, "xdg-state", "waymark"),
  });
  const env = {
    ...process.env,
    PATH: bareEnvPath,
    XDG_CONFIG_HOME: path.join(root, "xdg-config"),
    XDG_DATA_HOME: path.join(root, "xdg-data"),
    XDG_CACHE_HOME: path.join(root, "xdg-cache"),
    XDG_STATE_HOME: path.join(root, "xdg-state"),
    WAYMARK_E2E_LM_OUT: lmOut,
    WAYMARK_E2E_OTHER_OUT: path.join(root, "other-writes.txt"),
  };
  const target = path.join(workspace, TARGET);
  const original = readFileSync(target);

  let page: Page | undefined;
  let agentProcess: ChildProcess | undefined;
  let agentLog = "";
  try {
    await step("install the .vsix into a fresh extensions dir", async () => {
      codeServer.install(env, VSIX);
      codeServer.install(env, packageLmDriver(root));
      codeServer.install(env, packageOtherWriter(root));
    });

    const port = await step("start code-server on 127.0.0.1 with auth none", () => codeServer.start(workspace, env));

    const p = await step("open the fixture workspace in Debian chromium", async () => {
      page = await codeServer.open(chromiumPath, port, workspace);
      return page;
    });

    const request = {
      promptId: "e2e-turn-1",
      label: TURN_LABEL,
      path: TARGET,
      operations: [{ op: "replace_line", hash: lineHash(ORIGINAL_LINE), content: PROPOSED_LINE }],
    };
    await step("propose an anchored edit through the test command", async () => {
      // The command is kept out of the palette (a developer's tool): the driver runs it.
      await runCommand(p, "waymark.proposeEdit", JSON.stringify(request));
      // Fail fast, with the extension's own words, when the server cannot start or refuses the edit.
      const diff = p.locator(".monaco-diff-editor").first();
      const error = p.locator(".notification-toast").filter({ hasText: /Waymark: (the language server|the edit was not applied|could not)/ }).first();
      await diff.or(error).waitFor({ timeout: 60_000 });
      if (await error.isVisible()) {
        throw new Error(`the extension reported: ${(await error.innerText()).replace(/\s+/g, " ").trim()}`);
      }
      await p.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: "Hello, {name}!" }).first().waitFor({ timeout: 30_000 });
    });

    await step("edit the proposal in the diff editor", async () => {
      const line = p.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: "Hello, {name}!" }).first();
      await line.click();
      await p.keyboard.press("End");
      await p.keyboard.press("Shift+Home");
      await p.keyboard.press("Shift+Home");
      await p.keyboard.type(USER_LINE, { delay: 5 });
      await p.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: "Hi there" }).first().waitFor({ timeout: 10_000 });
      await p.locator('.statusbar-item:has-text("1 pending")').waitFor({ timeout: 10_000 });
      // Typing in the proposal is saved on the fly: no unsaved dot on its tab.
      await p.locator(".tab.active.dirty").waitFor({ state: "detached", timeout: 10_000 });
      const crumbs = await p.locator(".breadcrumbs-control").first().innerText();
      if (!crumbs.includes("greet.py") || /[0-9a-f]{16}/.test(crumbs)) {
        throw new Error(`the proposal's breadcrumb should read "src › greet.py" only, got: ${crumbs}`);
      }
      await p.locator(".codelens-decoration").filter({ hasText: "Accept all" }).first().waitFor({ timeout: 10_000 });
      await screenshot(p, "diff-approval.png", "vscode-diff-approval.png");
    });

    await step("accept from the editor title; the edited bytes are on disk", async () => {
      await p.locator('.editor-actions .action-label[aria-label^="Accept Proposal"]').first().click();
      const expected = original.toString("utf8").replace(ORIGINAL_LINE, USER_LINE);
      await waitFor(`${TARGET} to contain the user's line`, () => readFileSync(target, "utf8") === expected, 20_000);
      await p.locator(".monaco-diff-editor").first().waitFor({ state: "detached", timeout: 10_000 });
    });

    await step('rewind with "Waymark: Rewind to Turn…" from the palette', async () => {
      await runPaletteCommand(p, "Waymark: Rewind to Turn");
      await quickPickRow(p, TURN_LABEL).waitFor({ timeout: 30_000 });
      // The stats arrive after the list; the screenshot should show them.
      await quickPickRow(p, "in 1 file").waitFor({ timeout: 30_000 });
      await screenshot(p, "rewind-picker.png", "vscode-rewind-picker.png");
      await pickRow(p, TURN_LABEL);
      await pickRow(p, "Restore code");
      await quickPickRow(p, "will be restored").waitFor({ timeout: 30_000 });
      await screenshot(p, "rewind-review.png", "vscode-rewind-review.png");
      await pickRow(p, "Rewind 1 file");
      await waitForQuickInputClosed(p);
    });

    await step("the file is restored byte for byte and Undo is offered", async () => {
      await waitFor(`${TARGET} to be restored`, () => readFileSync(target).equals(original), 20_000);
      const text = await notificationText(p, "rewound to");
      if (!/1 file restored/.test(text) || !/Undo Rewind/.test(text)) {
        throw new Error(`unexpected rewind notification: ${text}`);
      }
      await p.waitForTimeout(600); // let the toast's fade-in finish before the picture
      await screenshot(p, "rewind-done.png");
    });

    const lmTarget = path.join(workspace, LM_TARGET);
    let answers = 0;
    await step("LM tools: waymark_snapshot starts a turn", async () => {
      await invokeTool(p, "waymark_snapshot", { promptId: "lm-turn-1", label: "LM: swap factors" });
      expectOk(await toolAnswer(lmOut, answers++));
    });

    await step("LM tools: waymark_read returns LINE#HASH anchors", async () => {
      await invokeTool(p, "waymark_read", { path: LM_TARGET });
      const answer = await toolAnswer(lmOut, answers++);
      const anchored = `2#${lineHash("    result = width * height")}|    result = width * height`;
      if (!answer.text?.includes(anchored)) {
        throw new Error(`expected "${anchored}" in: ${answer.text}`);
      }
    });

    await step("LM tools: waymark_edit opens the diff editor; accepted, the bytes are on disk", async () => {
      await invokeTool(p, "waymark_edit", {
        path: LM_TARGET,
        operations: [{ op: "replace_line", hash: lineHash("    result = width * height"), content: LM_EDITED_LINE }],
      });
      await p.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: "height * width" }).first().waitFor({ timeout: 30_000 });
      await screenshot(p, "lm-tool-edit.png", "vscode-lm-tool-edit.png");
      await acceptProposal(p);
      expectOk(await toolAnswer(lmOut, answers++));
      const expected = LM_ORIGINAL.replace("    result = width * height", LM_EDITED_LINE);
      await waitFor(`${LM_TARGET} to hold the edit`, () => readFileSync(lmTarget, "utf8") === expected, 10_000);
    });

    await step("LM tools: waymark_sed is simulated, approved and written", async () => {
      await invokeTool(p, "waymark_sed", { command: `sed -i 's/result/total/g' ${LM_TARGET}` });
      await acceptProposal(p);
      const json = expectOk(await toolAnswer(lmOut, answers++));
      if (json.simulated !== true) {
        throw new Error(`sed was not simulated: ${JSON.stringify(json)}`);
      }
      const expected = "def area(width, height):\n    total = height * width\n    return total\n";
      await waitFor(`${LM_TARGET} to hold the sed result`, () => readFileSync(lmTarget, "utf8") === expected, 10_000);
    });

    await step("LM tools: waymark_turns lists the turn", async () => {
      // The edits above landed in the chat turn the tools open after it, so lm-turn-1 itself
      // changed nothing: turns leaves such a turn out unless asked for all of them.
      await invokeTool(p, "waymark_turns", { all: true });
      const answer = await toolAnswer(lmOut, answers++);
      expectOk(answer);
      if (!answer.text?.includes("lm-turn-1")) {
        throw new Error(`lm-turn-1 missing from: ${answer.text}`);
      }
    });

    await step("LM tools: waymark_rewind restores the file byte for byte", async () => {
      await invokeTool(p, "waymark_rewind", { promptId: "lm-turn-1" });
      const diff = p.locator(".monaco-diff-editor").first();
      // Under diff approval a rewind is proposed like any write; accept it when it is.
      await waitFor("the rewind to be proposed or answered", async () => (await diff.isVisible()) || answerLines(lmOut).length > answers, 30_000);
      if (await diff.isVisible()) {
        await acceptProposal(p);
      }
      expectOk(await toolAnswer(lmOut, answers++));
      await waitFor(`${LM_TARGET} to be restored`, () => readFileSync(lmTarget, "utf8") === LM_ORIGINAL, 10_000);
    });

    const notebook = path.join(workspace, NOTEBOOK);
    const notebookBefore = readFileSync(notebook);
    const notebookDiff = p.locator(".notebook-text-diff-editor").first();
    const notebookExpected = notebookEditedByCli(waymarkCli, notebook, NOTEBOOK_EDIT, path.join(root, "cli-notebook"));
    await step("LM tools: waymark_notebook_edit opens the notebook diff; accepted, the bytes are the CLI's", async () => {
      if (notebookExpected.equals(notebookBefore)) {
        throw new Error("the CLI left the notebook unchanged: comparing with it would prove nothing");
      }
      // The rewind's toast from the palette steps would still cover the picture.
      await runPaletteCommand(p, "Notifications: Clear All Notifications");
      await invokeTool(p, "waymark_read", { path: NOTEBOOK });
      const read = await toolAnswer(lmOut, answers++);
      if (!read.text?.startsWith(`Jupyter notebook ${NOTEBOOK}: nbformat 4.5, 2 cells`)) {
        throw new Error(`waymark_read did not show the notebook's cells: ${read.text?.slice(0, 200)}`);
      }
      await invokeTool(p, "waymark_notebook_edit", { path: NOTEBOOK, operations: NOTEBOOK_EDIT });
      const changedLine = p.locator(".view-line").filter({ hasText: "areas = [h * w for w, h in sizes]" }).first();
      await changedLine.waitFor({ timeout: 30_000 });
      if (!(await notebookDiff.isVisible())) {
        throw new Error("the notebook proposal opened in a text diff, not in VS Code's notebook diff editor");
      }
      await notebookDiff.locator(".view-line").filter({ hasText: "areas = [h * w for w, h in sizes]" }).first().waitFor({ timeout: 10_000 });
      const crumbs = await p.locator(".breadcrumbs-control").first().innerText();
      if (!crumbs.includes("areas.ipynb") || /[0-9a-f]{16}/.test(crumbs)) {
        throw new Error(`the notebook proposal's breadcrumb should read its path only, got: ${crumbs}`);
      }
      await screenshot(p, "notebook-proposal.png", "vscode-notebook-diff.png");
      await p.locator('.editor-actions .action-label[aria-label^="Accept Proposal"]').first().click();
      expectOk(await toolAnswer(lmOut, answers++));
      await waitFor(`${NOTEBOOK} to hold the CLI's bytes`, () => readFileSync(notebook).equals(notebookExpected), 10_000);
      await notebookDiff.waitFor({ state: "detached", timeout: 10_000 });
    });

    await step("LM tools: a rejected notebook proposal is declined and writes nothing", async () => {
      await invokeTool(p, "waymark_notebook_edit", { path: NOTEBOOK, operations: NOTEBOOK_REJECTED });
      await notebookDiff.locator(".view-line").filter({ hasText: "summed" }).first().waitFor({ timeout: 30_000 });
      await p.locator('.editor-actions .action-label[aria-label^="Reject Proposal"]').first().click();
      const answer = await toolAnswer(lmOut, answers++);
      if (!answer.text?.startsWith("declined: ")) {
        throw new Error(`expected declined, got: ${answer.text?.slice(0, 400)}`);
      }
      await notebookDiff.waitFor({ state: "detached", timeout: 10_000 });
      if (!readFileSync(notebook).equals(notebookExpected)) {
        throw new Error(`${NOTEBOOK} changed although the proposal was rejected`);
      }
    });

    const notes = path.join(workspace, MCP_NOTES);
    const mcpEdited = original.toString("utf8").replace('"Hello, "', '"Howdy, "');
    await step("the status bar item opens the Turns view", async () => {
      await p.locator(".statusbar-item").filter({ hasText: "Waymark" }).first().click();
      await turnsRow(p, TURN_LABEL).waitFor({ timeout: 30_000 });
      // A wider side bar, so the pictures show the rows' descriptions.
      const sidebar = await p.locator(".part.sidebar").boundingBox();
      const sashes = await p.locator(".monaco-sash.vertical").all();
      let box: { x: number; y: number; width: number; height: number } | null = null;
      for (const sash of sashes) {
        const candidate = await sash.boundingBox();
        if (sidebar && candidate && Math.abs(candidate.x + candidate.width / 2 - (sidebar.x + sidebar.width)) < 6 && candidate.height > 200) {
          box = candidate;
        }
      }
      if (box) {
        await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await p.mouse.down();
        await p.mouse.move(box.x + 300, box.y + box.height / 2, { steps: 5 });
        await p.mouse.up();
      }
    });

    await step("a separate `waymark mcp` process (a terminal agent) makes a turn", async () => {
      // The agent writes at once (no bridge): the view must notice the turn by itself.
      agentProcess = spawn(waymarkCli, ["mcp"], {
        cwd: workspace,
        env: { ...process.env, XDG_STATE_HOME: env.XDG_STATE_HOME, WAYMARK_BRIDGE: "off" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      agentProcess.stderr?.on("data", (data: Buffer) => (agentLog += data.toString()));
      const agent = new Agent(agentProcess);
      await agent.initialize();
      const calls: [string, object][] = [
        ["waymark_snapshot", { promptId: "mcp-turn-1", label: MCP_TURN }],
        ["waymark_read", { path: TARGET }],
        ["waymark_replace", { path: TARGET, old_string: '"Hello, "', new_string: '"Howdy, "' }],
        ["waymark_write", { path: MCP_NOTES, content: MCP_NOTES_TEXT }],
      ];
      for (const [name, args] of calls) {
        const result = await agent.tool(name, args);
        if (result.isError) {
          throw new Error(`${name}: ${result.content.map((c) => c.text).join(" ")}`);
        }
      }
      if (readFileSync(target, "utf8") !== mcpEdited || readFileSync(notes, "utf8") !== MCP_NOTES_TEXT) {
        throw new Error("the MCP agent's edits are not on disk");
      }
    });

    await step("the open Turns view shows the MCP turn by itself, without a refresh", async () => {
      const row = turnsRow(p, MCP_TURN);
      await row.waitFor({ timeout: 30_000 });
      const text = await row.innerText();
      if (!/MCP \/ agent/.test(text) || !/2 files/.test(text)) {
        throw new Error(`the turn's row should name its origin and 2 files: ${text.replace(/\s+/g, " ")}`);
      }
      await turnsRow(p, MCP_TURN).filter({ hasText: "+2 −1" }).waitFor({ timeout: 30_000 });
      await p.locator(".statusbar-item").filter({ hasText: MCP_TURN }).first().waitFor({ timeout: 30_000 });
      await row.click();
      await turnsRow(p, "greet.py").waitFor({ timeout: 30_000 });
      await turnsRow(p, "notes.txt").filter({ hasText: "created" }).waitFor({ timeout: 30_000 });
      await screenshot(p, "turns-view.png", "vscode-turns-view.png");
    });

    await step("a file of the turn opens its diff (start of the turn ↔ now)", async () => {
      await turnsRow(p, "greet.py").click();
      await p.locator(".monaco-diff-editor .editor.original .view-line").filter({ hasText: '"Hello, "' }).first().waitFor({ timeout: 30_000 });
      await p.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: '"Howdy, "' }).first().waitFor({ timeout: 30_000 });
      await p.locator(".tab").filter({ hasText: "start of" }).first().waitFor({ timeout: 10_000 });
      await screenshot(p, "turns-file-diff.png", "vscode-turns-file-diff.png");
    });

    await step("Rewind This File Only: the preview, then the question; only that file goes back", async () => {
      // The file row's inline action (its context menu has the same entry).
      const row = turnsRow(p, "greet.py");
      await row.hover();
      await row.locator('.action-label[aria-label^="Rewind This File Only"]').click();
      const question = p.locator(".notification-toast").filter({ hasText: "rewind src/greet.py to the start of" }).first();
      await question.waitFor({ timeout: 30_000 });
      await p.locator(".monaco-diff-editor .editor.modified .view-line").filter({ hasText: '"Hello, "' }).first().waitFor({ timeout: 30_000 });
      await screenshot(p, "turns-rewind-file.png", "vscode-turns-rewind-file.png");
      await question.locator(".monaco-button").filter({ hasText: /^Rewind$/ }).click();
      await waitFor(`${TARGET} to be back as before the MCP turn`, () => readFileSync(target).equals(original), 20_000);
      if (readFileSync(notes, "utf8") !== MCP_NOTES_TEXT) {
        throw new Error(`${MCP_NOTES} should be untouched by a rewind of ${TARGET} only`);
      }
      await notificationText(p, "1 file restored");
    });

    await step("Undo the Last Rewind from the view's title puts the file back", async () => {
      await p.locator('.part.sidebar .title-actions .action-label[aria-label^="Undo the Last Rewind"], .part.sidebar .pane-header .action-label[aria-label^="Undo the Last Rewind"]').first().click();
      await waitFor(`${TARGET} to hold the MCP agent's edit again`, () => readFileSync(target, "utf8") === mcpEdited, 20_000);
      if (readFileSync(notes, "utf8") !== MCP_NOTES_TEXT) {
        throw new Error(`${MCP_NOTES} changed on undo`);
      }
      await turnsRow(p, "before rewind to mcp-turn-1").waitFor({ timeout: 30_000 });
      // The counts are asked for again after the rewind; the picture shows them.
      await turnsRow(p, MCP_TURN).filter({ hasText: "+2 −1" }).waitFor({ timeout: 30_000 });
      await p.waitForTimeout(600);
      await screenshot(p, "turns-undo.png", "vscode-turns-undo.png");
    });

    /** The turns (the server's model view) whose files include `file`. */
    const turnsWith = async (file: string): Promise<{ promptId: string; label: string }[]> => {
      await invokeTool(p, "waymark_turns", { all: true });
      const json = expectOk(await toolAnswer(lmOut, answers++));
      const turns = json.turns as { promptId: string; label: string; edited?: string[] }[];
      return turns.filter((turn) => turn.edited?.includes(file));
    };
    const recordedTurn = async (file: string): Promise<{ promptId: string; label: string }> => {
      let found: { promptId: string; label: string }[] = [];
      await waitFor(`a turn recording ${file}`, async () => (found = await turnsWith(file)).length > 0, 60_000);
      return found[0];
    };
    const otherTurns: { promptId: string; label: string }[] = [];
    await step("another extension saves through a WorkspaceEdit: a turn \"Saved in the editor\"", async () => {
      // The document keeps its CRLF line ends: VS Code turns the edit's LF into them.
      await otherWrite(p, "Waymark E2E: Save Through a WorkspaceEdit", SAVED, "saved by another extension: after\n");
      await waitFor(`${SAVED} to be saved`, () => readFileSync(path.join(workspace, SAVED), "utf8").includes(": after"), 30_000);
      const turn = await recordedTurn(SAVED);
      if (turn.label !== "Saved in the editor") {
        throw new Error(`the save's turn is labelled ${turn.label}`);
      }
      await turnsRow(p, "Saved in the editor").waitFor({ timeout: 30_000 });
      otherTurns.push(turn);
    });

    await step("another extension writes through workspace.fs: a turn of other programs", async () => {
      await otherWrite(p, "Waymark E2E: Write Through workspace.fs", FS_WRITTEN, "written through workspace.fs: after\n");
      const turn = await recordedTurn(FS_WRITTEN);
      if (!turn.label.startsWith("Changes by other programs")) {
        throw new Error(`the write's turn is labelled ${turn.label}`);
      }
      await turnsRow(p, "Changes by other programs").waitFor({ timeout: 30_000 });
      otherTurns.push(turn);
    });

    await step("a terminal runs rm: a turn of other programs", async () => {
      await runPaletteCommand(p, "Terminal: Create New Terminal");
      await p.locator(".terminal-wrapper.active .xterm").first().waitFor({ timeout: 30_000 });
      await p.waitForTimeout(1_000); // the shell's prompt
      await p.keyboard.type(`rm ${REMOVED}`);
      await p.keyboard.press("Enter");
      await waitFor(`${REMOVED} to be removed`, () => !existsSync(path.join(workspace, REMOVED)), 30_000);
      const turn = await recordedTurn(REMOVED);
      if (!turn.label.startsWith("Changes by other programs")) {
        throw new Error(`the rm's turn is labelled ${turn.label}`);
      }
      otherTurns.push(turn);
      await screenshot(p, "turns-other-programs.png");
    });

    await step("a rewind to the first of them restores every byte they changed", async () => {
      await invokeTool(p, "waymark_rewind", { promptId: otherTurns[0].promptId });
      const diff = p.locator(".monaco-diff-editor").first();
      await waitFor("the rewind to be proposed or answered", async () => (await diff.isVisible()) || answerLines(lmOut).length > answers, 30_000);
      if (await diff.isVisible()) {
        await screenshot(p, "turns-other-programs-rewind.png");
        // Three files: a multi-file diff, whose title has no per-file actions.
        await runCommand(p, "waymark.acceptProposal");
      }
      expectOk(await toolAnswer(lmOut, answers++));
      for (const [file, text] of Object.entries(OTHER_BEFORE)) {
        await waitFor(`${file} to be restored`, () => existsSync(path.join(workspace, file)) && readFileSync(path.join(workspace, file), "utf8") === text, 20_000);
      }
    });
  } catch (error) {
    if (page) {
      await screenshot(page, "failure.png").catch(() => undefined);
    }
    throw error;
  } finally {
    const logs = waymarkLogs(codeServer.userData);
    writeFileSync(path.join(ARTIFACTS, "waymark-output.log"), logs);
    writeFileSync(path.join(ARTIFACTS, "code-server.log"), codeServer.log);
    for (const line of logs.split("\n").filter((l) => /activated in|server started in/.test(l))) {
      console.log(`  log: ${line.trim()}`);
    }
    writeFileSync(path.join(ARTIFACTS, "mcp-agent.log"), agentLog);
    const leftovers: number[] = [];
    if (agentProcess?.pid) {
      agentProcess.stdin?.end();
      leftovers.push(...(await killTree(agentProcess.pid)));
    }
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
    console.log(`e2e: ${steps.filter((s) => s.ok).length}/${steps.length} steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  })
  .catch((error: unknown) => {
    console.error(`e2e FAILED: ${error instanceof Error ? error.message : String(error)}`);
    console.log(`e2e: ${steps.filter((s) => s.ok).length}/${steps.length} steps passed before the failure`);
    process.exitCode = 1;
  })
  .finally(() => {
    writeFileSync(path.join(ARTIFACTS, "e2e-steps.json"), JSON.stringify(steps, null, 2));
  });
