import * as assert from "node:assert/strict";

import { RestartPolicy } from "../../src/restartPolicy";

describe("restart policy", () => {
  it("does not restart a server that never started", () => {
    assert.deepEqual(new RestartPolicy().onClosed(), { restart: false });
  });

  it("restarts a crashed server, then stops a crash loop with one message", () => {
    let now = 0;
    const policy = new RestartPolicy(2, 60_000, () => now);
    policy.markRunning();
    assert.deepEqual(policy.onClosed(), { restart: true });
    now += 1000;
    assert.deepEqual(policy.onClosed(), { restart: true });
    now += 1000;
    const third = policy.onClosed();
    assert.equal(third.restart, false);
    assert.match(third.restart ? "" : (third.message ?? ""), /crashed 3 times.*Restart Server/);
  });

  it("forgets crashes outside the window", () => {
    let now = 0;
    const policy = new RestartPolicy(1, 60_000, () => now);
    policy.markRunning();
    assert.deepEqual(policy.onClosed(), { restart: true });
    now += 61_000;
    assert.deepEqual(policy.onClosed(), { restart: true });
  });
});
