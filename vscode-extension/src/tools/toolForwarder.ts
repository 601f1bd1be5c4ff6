/**
 * Runs a tool call against the server under the user's approval mode. In "diff" mode a
 * mutating call is asked as a preview and the model gets an answer only after the user
 * accepted (possibly with their own changes) or rejected it. Pure: VS Code comes in via deps.
 */
import type { Decision } from "../approval/pendingStore";
import { DECLINED_MESSAGE } from "../generated/spec";
import { type CommandId, Commands, failure, isPreview, type Preview, type Result } from "../protocol";
import type { ApprovalMode } from "../settings";
import { TOOL_SPECS, type ToolSpec } from "./toolCatalog";

export interface ForwardDeps {
  execute(command: CommandId, params: object): Promise<Result>;
  approvalMode(): ApprovalMode;
  propose(preview: Preview, origin: string): Promise<Decision>;
}

export type ToolResult = Record<string, unknown> & { ok: boolean };

export async function forwardTool(name: string, input: unknown, deps: ForwardDeps): Promise<ToolResult> {
  const spec = TOOL_SPECS[name];
  if (!spec) {
    return failure("invalid_params", `Unknown Waymark tool "${name}".`);
  }
  return forwardCommand(spec, input, name, deps);
}

/** Shared by the tools and the extension API: both are agents' calls under the same approval. */
export async function forwardCommand(spec: ToolSpec, input: unknown, origin: string, deps: ForwardDeps): Promise<ToolResult> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return failure("invalid_params", `${origin} takes a JSON object.`);
  }
  const params: Record<string, unknown> = { ...spec.defaults, ...input };
  const callerAskedPreview = params.preview === true;
  if (!spec.mutating || callerAskedPreview || deps.approvalMode() !== "diff") {
    return deps.execute(spec.command, params);
  }
  const answer = await deps.execute(spec.command, { ...params, preview: true });
  if (!isPreview(answer)) {
    // Failures, and non-previews such as an unsimulated sed, go back to the caller as they are.
    return answer;
  }
  return decisionResult(await deps.propose(answer, origin));
}

export function decisionResult(decision: Decision): ToolResult {
  switch (decision.kind) {
    case "accepted":
      return { ...decision.result, ok: true };
    case "failed":
      return { ...decision.result, ok: false };
    case "rejected":
      return failure("declined", DECLINED_MESSAGE);
  }
}

/**
 * What the model reads: the server's model view of the result (`waymark.modelText`, the text the
 * MCP tools return too; docs/protocol.md "What a model reads"). A server that cannot answer it
 * leaves the plain rendering below.
 */
export async function modelText(name: string, result: ToolResult, deps: Pick<ForwardDeps, "execute">): Promise<string> {
  try {
    const answer = await deps.execute(Commands.modelText, { tool: name, result: { ...result, workspaceEdit: undefined } });
    if (answer.ok && typeof answer.text === "string") {
      return answer.text;
    }
  } catch {
    // An older or stopped server: the model still gets the result.
  }
  return toolResultText(name, result);
}

/** The rendered text for reads, the JSON result (minus the bulky LSP edit) otherwise. */
export function toolResultText(name: string, result: ToolResult): string {
  if (name === "waymark_read" && result.ok && typeof result.text === "string") {
    return result.text;
  }
  return JSON.stringify({ ...result, workspaceEdit: undefined }, null, 1);
}
