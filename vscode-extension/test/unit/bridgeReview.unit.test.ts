import * as assert from "node:assert/strict";

import { answerReview, ReviewCapability } from "../../src/approval/bridgeReview";
import type { Preview } from "../../src/protocol";

const preview: Preview = {
  preview: true,
  token: "t1",
  diff: "",
  files: [{ path: "a.py", uri: "file:///w/a.py", action: "updated", newContent: "x\n" }],
};

describe("bridge review", () => {
  it("declares waymarkReview next to other experimental capabilities", () => {
    const capabilities: { experimental?: object } = { experimental: { other: 1 } };
    new ReviewCapability().fillClientCapabilities(capabilities);
    assert.deepEqual(capabilities.experimental, { other: 1, waymarkReview: true });
  });

  it("shows the proposal with where it came from and returns the user's decision", async () => {
    const seen: string[] = [];
    const decision = await answerReview({ preview, origin: "waymark mcp" }, (p, origin) => {
      seen.push(`${p.token} ${origin}`);
      return Promise.resolve({ kind: "accepted", result: { ok: true, editedByUser: true } });
    });
    assert.deepEqual(seen, ["t1 waymark mcp, from outside VS Code"]);
    assert.deepEqual(decision, { kind: "accepted", result: { ok: true, editedByUser: true } });
  });

  it("rejects when no approval UI is there yet", async () => {
    assert.deepEqual(await answerReview({ preview, origin: "waymark CLI" }, undefined), { kind: "rejected" });
  });
});
