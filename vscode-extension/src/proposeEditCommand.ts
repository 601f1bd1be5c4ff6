/**
 * "Waymark: Propose Anchored Edit from JSON…": sends an anchored edit through the diff
 * approval flow whatever the approval setting, so the flow can be tried (and is driven by the
 * end-to-end test) without an agent. `promptId` opens a turn first, so the edit can be rewound.
 */
import * as vscode from "vscode";

import { Commands } from "./protocol";
import { TOOL_SPECS } from "./tools/toolCatalog";
import { type ForwardDeps, forwardCommand, type ToolResult } from "./tools/toolForwarder";

const EXAMPLE = '{"path": "src/app.py", "promptId": "demo-1", "label": "Demo", "operations": [{"op": "replace_line", "hash": "a1b2c3", "content": "x = 1"}]}';

export async function proposeEdit(argument: unknown, deps: ForwardDeps): Promise<ToolResult | undefined> {
  const request = typeof argument === "object" && argument !== null ? argument : await askForJson(argument);
  if (!request) {
    return undefined;
  }
  const { promptId, label, ...edit } = request as Record<string, unknown>;
  if (typeof promptId === "string") {
    const turn = await deps.execute(Commands.snapshot, { promptId, ...(typeof label === "string" ? { label } : {}) });
    if (!turn.ok) {
      void vscode.window.showErrorMessage(`Waymark: could not start turn "${promptId}": ${turn.message}`);
      return turn;
    }
  }
  const result = await forwardCommand(TOOL_SPECS.waymark_edit, edit, "Propose Edit", { ...deps, approvalMode: () => "diff" });
  if (!result.ok && result.error !== "declined") {
    void vscode.window.showErrorMessage(`Waymark: the edit was not applied: ${String(result.message)}`);
  }
  return result;
}

async function askForJson(argument: unknown): Promise<object | undefined> {
  const text =
    typeof argument === "string"
      ? argument
      : await vscode.window.showInputBox({
          title: "Waymark: propose an anchored edit",
          prompt: "waymark.edit parameters as JSON, plus optional promptId/label to open a turn first",
          placeHolder: EXAMPLE,
          ignoreFocusOut: true,
          validateInput: (value) => (parseObject(value) ? undefined : "Enter a JSON object"),
        });
  return text === undefined ? undefined : parseObject(text);
}

function parseObject(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
