import * as assert from "node:assert/strict";

import * as vscode from "vscode";

import { initHost } from "../../src/initHost";

interface Offered {
  id: string;
  label: string;
  detail: string;
  description: string;
}

const log = { info: () => undefined } as unknown as vscode.LogOutputChannel;

describe("Set Up an Agent Host…", () => {
  const window = vscode.window as unknown as Record<string, unknown>;
  const saved = { showQuickPick: window.showQuickPick, createTerminal: window.createTerminal };

  beforeEach(() => {
    Object.defineProperty(vscode.workspace, "workspaceFolders", {
      configurable: true,
      get: () => [{ name: "project", uri: { fsPath: "/project" } }],
    });
  });

  afterEach(() => {
    Object.assign(window, saved);
    Object.defineProperty(vscode.workspace, "workspaceFolders", { configurable: true, get: () => undefined });
  });

  it("offers every host waymark init sets up, and runs init for the one picked", async () => {
    let offered: Offered[] = [];
    const sent: string[] = [];
    window.showQuickPick = async (items: Offered[]) => {
      offered = items;
      return items.find((item) => item.id === "gemini-cli");
    };
    window.createTerminal = () => ({ show: () => undefined, sendText: (text: string) => void sent.push(text) });
    await initHost(undefined, log);
    assert.deepEqual(
      offered.map((item) => [item.id, item.label, item.description]),
      [
        ["claude-code", "Claude Code", "waymark init claude-code"],
        ["qwen-code", "Qwen Code", "waymark init qwen-code"],
        ["codex", "Codex CLI", "waymark init codex"],
        ["gemini-cli", "Gemini CLI", "waymark init gemini-cli"],
        ["copilot-cli", "GitHub Copilot CLI", "waymark init copilot-cli"],
        ["opencode", "opencode", "waymark init opencode"],
        ["cline", "Cline", "waymark init cline"],
      ],
    );
    assert.equal(offered[6].detail, "Hooks that back up its own edits and shell commands; its MCP server with waymark init cline --user");
    assert.equal(sent.length, 1);
    assert.match(sent[0], /waymark init gemini-cli/);
  });

  it("runs init at once for a host named by the command's argument", async () => {
    let asked = false;
    const sent: string[] = [];
    window.showQuickPick = async () => {
      asked = true;
      return undefined;
    };
    window.createTerminal = () => ({ show: () => undefined, sendText: (text: string) => void sent.push(text) });
    await initHost("cline", log);
    assert.equal(asked, false);
    assert.match(sent[0], /waymark init cline/);
  });
});
