import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { SERVER_OPTIONS } from "../../src/generated/spec";
import { initCommand } from "../../src/initHost";
import { missingServerMessage, resolveExecutable } from "../../src/launchCheck";
import { initializationOptions, readSettings, serverEnvironment, serverLaunch } from "../../src/settings";

const reader = (values: Record<string, unknown>) => ({ get: <T>(key: string) => values[key] as T | undefined });

interface FixtureCase {
  name: string;
  settings: Record<string, unknown>;
  sessionId: string;
  initializationOptions: Record<string, unknown>;
}

// Shared with tests/unit/test_options_fixture.py, which feeds each output to the server.
const fixture = JSON.parse(readFileSync(path.resolve(__dirname, "../../../../tests/fixtures/initialization-options.json"), "utf8")) as {
  cases: FixtureCase[];
};

describe("settings → initializationOptions (tests/fixtures/initialization-options.json)", () => {
  for (const fixtureCase of fixture.cases) {
    it(fixtureCase.name, () => {
      assert.deepEqual(initializationOptions(readSettings(reader(fixtureCase.settings)), fixtureCase.sessionId), fixtureCase.initializationOptions);
    });
  }
});

describe("settings", () => {
  it("falls back to defaults for missing or malformed values", () => {
    const settings = readSettings(reader({ "server.command": "waymark-ls", approval: "sometimes", maxSnapshots: 0 }));
    assert.deepEqual(settings.serverCommand, []);
    assert.equal(settings.approval, "diff");
    assert.equal(settings.checkpointing, true);
    assert.equal(settings.maxSnapshots, 100);
  });

  it("falls back to the server's defaults from the generated spec", () => {
    const settings = readSettings(reader({ checkpointing: 1, protectedPaths: { "0": ".git/**" }, maxSnapshots: Number.POSITIVE_INFINITY }));
    assert.equal(settings.checkpointing, SERVER_OPTIONS.checkpointing.default);
    assert.deepEqual(settings.protectedPaths, SERVER_OPTIONS.protectedPaths.default);
    assert.equal(settings.maxSnapshots, SERVER_OPTIONS.maxSnapshots.default);
    settings.protectedPaths.push("mine/**");
    assert.equal(SERVER_OPTIONS.protectedPaths.default.length, 5, "each settings object gets its own copy of the defaults");
  });

  it("launches the bundled server by default, else the configured command or <python> -m waymark serve", () => {
    assert.equal(serverLaunch(readSettings(reader({}))), undefined);
    assert.equal(serverLaunch(readSettings(reader({ "server.command": [] }))), undefined);
    assert.deepEqual(serverLaunch(readSettings(reader({ "server.command": ["/opt/w/bin/waymark-ls", "--log", "debug"] }))), {
      command: "/opt/w/bin/waymark-ls",
      args: ["--log", "debug"],
    });
    assert.deepEqual(serverLaunch(readSettings(reader({ "server.pythonPath": " /venv/bin/python " }))), {
      command: "/venv/bin/python",
      args: ["-m", "waymark", "serve"],
    });
  });

  it("passes VS Code's files.encoding when it is set, and nothing otherwise", () => {
    const settings = readSettings(reader({}));
    assert.equal(initializationOptions(settings, "s", "windows1252").filesEncoding, "windows1252");
    assert.equal(initializationOptions(settings, "s", " shiftjis ").filesEncoding, "shiftjis");
    for (const missing of [undefined, "", 42]) {
      assert.equal("filesEncoding" in initializationOptions(settings, "s", missing), false);
    }
  });

  it("maps approval modes onto the server's auto/editor", () => {
    const mode = (approval: string) => initializationOptions(readSettings(reader({ approval })), "s").approval;
    assert.equal(mode("diff"), "auto", "the extension previews and approves before applyPending");
    assert.equal(mode("auto"), "auto");
    assert.equal(mode("refactorPreview"), "editor");
  });

  it("passes checkpointing, the watch, protected paths, history dir and the session id", () => {
    const options = initializationOptions(
      readSettings(reader({ checkpointing: false, watch: false, protectedPaths: ["secrets/**"], historyDir: "/tmp/h", maxSnapshots: 7, maxHistoryBytes: 2048.5 })),
      "session-1",
    );
    assert.deepEqual(options, {
      approval: "auto",
      checkpointing: false,
      watch: false,
      protectedPaths: ["secrets/**"],
      sessionId: "session-1",
      maxSnapshots: 7,
      maxHistoryBytes: 2048,
      historyDir: "/tmp/h",
    });
  });

  it("turns the editor bridge off in the server's environment only when the setting says so", () => {
    assert.equal(serverEnvironment(readSettings(reader({}))), undefined);
    assert.equal(serverEnvironment(readSettings(reader({ "bridge.enabled": "no" }))), undefined, "a malformed value keeps the default (on)");
    assert.deepEqual(serverEnvironment(readSettings(reader({ "bridge.enabled": false }))), { WAYMARK_BRIDGE: "off" });
  });

  it("omits an empty history dir so the server's XDG default applies", () => {
    assert.equal("historyDir" in initializationOptions(readSettings(reader({ historyDir: "  " })), "s"), false);
  });
});

describe("server launch check", () => {
  it("finds a bare command on PATH and a path as given", () => {
    const exists = (file: string) => file === "/b/waymark-ls" || file === "/abs/python";
    assert.equal(resolveExecutable("waymark-ls", "/a:/b", exists), "/b/waymark-ls");
    assert.equal(resolveExecutable("/abs/python", "", exists), "/abs/python");
    assert.equal(resolveExecutable("waymark-ls", "/a", exists), undefined);
  });

  it("names the fix in the missing-server message", () => {
    const message = missingServerMessage({ command: "waymark-ls", args: [] }, false);
    assert.match(message, /not found on PATH/);
    assert.match(message, /waymark\.server\.command/);
    assert.match(message, /bundled with the extension/);
    assert.match(missingServerMessage({ command: "/nope/python", args: [] }, true), /waymark\.server\.pythonPath/);
  });
});

describe("agent host setup", () => {
  it("runs `waymark init <host>` with the configured interpreter, the installed command, or offers the install", () => {
    assert.deepEqual(initCommand("claude-code", "/opt/my venv/bin/python", true), { text: "'/opt/my venv/bin/python' -m waymark init claude-code", run: true });
    assert.deepEqual(initCommand("codex", "", true), { text: "waymark init codex", run: true });
    assert.deepEqual(initCommand("qwen-code", "", false), { text: "waymark init qwen-code  # first install the waymark command as the Install section of the Waymark README says", run: false });
  });
});
