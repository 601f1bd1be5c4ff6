import * as assert from "node:assert/strict";

import { requestIdentity, type TurnStart, TurnTracker } from "../../src/tools/turnTracker";

function tracker(idleMs = 30_000) {
  let now = 1_000_000;
  const snapshots: TurnStart[] = [];
  const t = new TurnTracker(async (turn) => snapshots.push(turn), idleMs, () => now);
  return { t, snapshots, advance: (ms: number) => (now += ms) };
}

describe("turn tracker", () => {
  it("opens one turn per request id", async () => {
    const { t, snapshots } = tracker();
    const first = await t.enter({ sessionId: "s1", requestId: "r1" }, "waymark_edit a.py");
    assert.equal(await t.enter({ sessionId: "s1", requestId: "r1" }, "waymark_edit b.py"), first);
    await t.enter({ sessionId: "s1", requestId: "r2" }, "waymark_read c.py");
    assert.equal(snapshots.length, 2);
    assert.equal(snapshots[0].label, "Agent turn: waymark_edit a.py");
    assert.notEqual(snapshots[0].promptId, snapshots[1].promptId);
  });

  it("without a request id, starts a new turn after a pause", async () => {
    const { t, snapshots, advance } = tracker(30_000);
    await t.enter({ sessionId: "s1" }, "a");
    advance(10_000);
    await t.enter({ sessionId: "s1" }, "b");
    advance(10_000);
    await t.enter({ sessionId: "s1" }, "c");
    assert.equal(snapshots.length, 1, "calls 10 s apart belong to one request");
    advance(31_000);
    await t.enter({ sessionId: "s1" }, "d");
    assert.equal(snapshots.length, 2);
  });

  it("keeps sessions apart", async () => {
    const { t, snapshots } = tracker();
    await t.enter({ sessionId: "s1" }, "a");
    await t.enter({ sessionId: "s2" }, "b");
    assert.equal(snapshots.length, 2);
  });

  it("shares one snapshot between concurrent first calls", async () => {
    const { t, snapshots } = tracker();
    const ids = await Promise.all([t.enter({ sessionId: "s" }, "a"), t.enter({ sessionId: "s" }, "b")]);
    assert.equal(snapshots.length, 1);
    assert.equal(ids[0], ids[1]);
  });

  it("reads the session from the invocation token and the request id when exposed", () => {
    assert.deepEqual(requestIdentity({ toolInvocationToken: { sessionId: "abc" } }), { sessionId: "abc", requestId: undefined });
    assert.deepEqual(requestIdentity({ toolInvocationToken: undefined, chatRequestId: "r9" }), { sessionId: undefined, requestId: "r9" });
  });
});
