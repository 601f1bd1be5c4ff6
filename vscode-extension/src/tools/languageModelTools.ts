/** Registers the Waymark tools with VS Code's language-model tool API (Copilot agent mode etc.). */
import * as vscode from "vscode";

import { TOOL_NAMES, TOOL_SPECS } from "./toolCatalog";
import { type ForwardDeps, forwardTool, modelText } from "./toolForwarder";
import { requestIdentity, type TurnTracker } from "./turnTracker";

/**
 * `contributed` are the tool names in this build's manifest: VS Code rejects registering a tool
 * the manifest does not declare, so a manifest out of sync loses tools instead of activation.
 */
export function registerLanguageModelTools(deps: ForwardDeps, turns: TurnTracker, contributed: readonly string[]): vscode.Disposable[] {
  // Hosts without chat (or older builds) have no vscode.lm; the rest of the extension still works.
  if (typeof vscode.lm?.registerTool !== "function") {
    return [];
  }
  return TOOL_NAMES.filter((name) => contributed.includes(name)).map((name) =>
    vscode.lm.registerTool<Record<string, unknown>>(name, {
      prepareInvocation(options) {
        const target = typeof options.input.path === "string" ? ` ${options.input.path}` : "";
        const asking = TOOL_SPECS[name].mutating && deps.approvalMode() === "diff" ? " (waiting for your approval in the diff editor)" : "";
        return { invocationMessage: `Waymark: ${name.replace(/^waymark_/, "")}${target}${asking}` };
      },
      async invoke(options) {
        if (name !== "waymark_snapshot") {
          const target = typeof options.input.path === "string" ? ` ${options.input.path}` : "";
          await turns.enter(requestIdentity(options as { toolInvocationToken?: unknown }), `${name}${target}`);
        }
        const result = await forwardTool(name, options.input, deps);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(await modelText(name, result, deps))]);
      },
    }),
  );
}
