import * as assert from "node:assert/strict";
import * as path from "node:path";

import { findBundledLaunch, type Probe, WINDOWS_MESSAGE } from "../../src/bundledServer";

const EXT = path.join("/ext", "waymark");
const LAUNCHER = path.join(EXT, "bundled", "tool", "launch.py");

function probeFrom(answers: Record<string, string | undefined>): { probe: Probe; asked: string[] } {
  const asked: string[] = [];
  const probe: Probe = async (python, launcher) => {
    assert.equal(launcher, LAUNCHER);
    asked.push(python);
    return { python, problem: answers[python] };
  };
  return { probe, asked };
}

describe("bundled server", () => {
  it("runs the launcher isolated (-I) with the first interpreter that passes the check", async () => {
    const { probe, asked } = probeFrom({ "/venv/bin/python": "Python 3.9 is too old: Waymark needs 3.11 or newer" });
    const found = await findBundledLaunch(EXT, ["/venv/bin/python", "python3"], probe);
    assert.deepEqual(found, { launch: { command: "python3", args: ["-I", LAUNCHER] } });
    assert.deepEqual(asked, ["/venv/bin/python", "python3"]);
  });

  it("asks each interpreter once", async () => {
    const { probe, asked } = probeFrom({ python3: "not found" });
    await findBundledLaunch(EXT, ["python3", "python3"], probe);
    assert.deepEqual(asked, ["python3"]);
  });

  it("says in one message what every interpreter lacked and what to do", async () => {
    const { probe } = probeFrom({ "/usr/bin/python3.9": "Python 3.9 is too old: Waymark needs 3.11 or newer", python3: "not found" });
    const found = await findBundledLaunch(EXT, ["/usr/bin/python3.9", "python3"], probe);
    assert.ok("error" in found);
    assert.match(found.error, /^Waymark: no Python 3\.11 or newer was found/);
    assert.match(found.error, /\/usr\/bin\/python3\.9: Python 3\.9 is too old/);
    assert.match(found.error, /python3: not found/);
    assert.match(found.error, /Python: Select Interpreter/);
    assert.match(found.error, /waymark\.server\.command/);
  });
});

describe("bundled server on Windows", () => {
  it("asks no interpreter and tells the user to open the folder in WSL", async () => {
    const { probe, asked } = probeFrom({});
    const found = await findBundledLaunch(EXT, ["python"], probe, "win32");
    assert.deepEqual(asked, []);
    assert.ok("error" in found);
    assert.equal(found.error, WINDOWS_MESSAGE);
    assert.match(found.error, /^Waymark: the language server runs on Linux and macOS, not on Windows\. /);
    assert.match(found.error, /WSL/);
  });

  it("probes as before on Linux and macOS", async () => {
    for (const platform of ["linux", "darwin"] as const) {
      const { probe } = probeFrom({});
      const found = await findBundledLaunch(EXT, ["python3"], probe, platform);
      assert.deepEqual(found, { launch: { command: "python3", args: ["-I", LAUNCHER] } });
    }
  });
});
