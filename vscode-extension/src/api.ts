/**
 * The API `activate` returns, for agent hosts in other extensions:
 *
 *   const waymark = await vscode.extensions.getExtension("waymark.waymark")?.activate();
 *   await waymark.snapshot({ promptId: "req-42", label: "Fix the parser" });
 *   const result = await waymark.edit({ path, operations }, { origin: "My Agent" });
 *
 * Mutating calls follow the user's approval mode (in "diff" mode they resolve after the user
 * accepted or rejected), unless the caller passes `preview: true` and settles the token itself.
 */
import type * as vscode from "vscode";

import type { ConversationHost, ConversationHosts } from "./conversationHosts";
import { COMMAND_SPECS } from "./generated/spec";
import type { CommandId, DidRewindEvent, Result } from "./protocol";
import type { ToolSpec } from "./tools/toolCatalog";
import { type ForwardDeps, forwardCommand, type ToolResult } from "./tools/toolForwarder";

export type Params = Record<string, unknown>;

export interface CallOptions {
  /** Who is asking; shown in the diff editor's title. Default "extension API". */
  origin?: string;
}

type CommandSpec = (typeof COMMAND_SPECS)[number];
/** Mutating tools follow the approval mode; applyPending/discardPending settle it, so run directly. */
type ApprovedSpec = Extract<CommandSpec, { mutating: true; tool: string }>;

export type ApprovedCall = (params: Params, options?: CallOptions) => Promise<ToolResult>;
export type DirectCall = (params?: Params) => Promise<ToolResult>;

/** One method per server command (named as in `Commands`), plus the API's own members. */
export type WaymarkApi = {
  readonly [K in CommandSpec["key"]]: K extends ApprovedSpec["key"] ? ApprovedCall : DirectCall;
} & {
  readonly apiVersion: 1;
  /** Fires for every rewind the server reports (waymark/didRewind). */
  readonly onDidRewind: vscode.Event<DidRewindEvent>;
  /** Enables "code and conversation" / "conversation only" in the rewind picker while registered. */
  registerConversationHost(host: ConversationHost): vscode.Disposable;
};

export function createApi(
  deps: ForwardDeps,
  onDidRewind: vscode.Event<DidRewindEvent>,
  hosts: ConversationHosts,
): WaymarkApi {
  const direct = (command: CommandId): DirectCall => (params: Params = {}) => deps.execute(command, params) as Promise<Result & ToolResult>;
  const approved = (command: CommandId): ApprovedCall => (params, options) => {
    const spec: ToolSpec = { command, mutating: true };
    return forwardCommand(spec, params, options?.origin ?? "extension API", deps);
  };
  const calls = Object.fromEntries(
    COMMAND_SPECS.map((spec) => [spec.key, spec.mutating && spec.tool !== null ? approved(spec.id) : direct(spec.id)]),
  ) as Pick<WaymarkApi, CommandSpec["key"]>;
  return {
    ...calls,
    apiVersion: 1,
    onDidRewind,
    registerConversationHost: (host) => hosts.register(host),
  };
}
