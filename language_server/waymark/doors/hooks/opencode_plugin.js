// Waymark for opencode, written by `waymark init opencode` (which rewrites this file).
// Each hook below runs `waymark hook opencode` with opencode's hook input as JSON on stdin
// and applies the answer: "args" replaces the tool's input, "context" is appended to what
// the model reads, "deny" keeps the tool from running. No answer: the tool runs as is.
import { spawn } from "node:child_process";

const HOOK = "@HOOK@";
const TOOLS = ["@TOOLS@"];
const TIMEOUT_MS = Number("@TIMEOUT_MS@");

function waymark(event, directory, client) {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", HOOK], { cwd: directory, timeout: TIMEOUT_MS });
    let out = "";
    let err = "";
    child.stdout.on("data", (data) => (out += data));
    child.stderr.on("data", (data) => (err += data));
    child.on("error", () => resolve({}));
    child.on("close", () => {
      if (err.trim()) {
        client.app.log({ body: { service: "waymark", level: "warn", message: err.trim() } }).catch(() => {});
      }
      try {
        resolve(out.trim() ? JSON.parse(out) : {});
      } catch {
        resolve({});
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ ...event, cwd: directory }));
  });
}

export const Waymark = async ({ directory, client }) => ({
  "chat.message": async (input, output) => {
    const { message, parts } = output;
    await waymark({ hook_event_name: "chat.message", input, output: { message, parts } }, directory, client);
  },
  "tool.execute.before": async (input, output) => {
    if (!TOOLS.includes(input.tool)) return;
    const answer = await waymark({ hook_event_name: "tool.execute.before", input, output }, directory, client);
    if (typeof answer.deny === "string") throw new Error(answer.deny);
    if (answer.args && typeof answer.args === "object") Object.assign(output.args, answer.args);
  },
  "tool.execute.after": async (input, output) => {
    if (!TOOLS.includes(input.tool)) return;
    const answer = await waymark({ hook_event_name: "tool.execute.after", input }, directory, client);
    if (typeof answer.context === "string" && typeof output.output === "string") {
      output.output += `\n\n${answer.context}`;
    }
  },
});
