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
import { type CommandId, Commands, type DidRewindEvent, type Result } from "./protocol";
import type { ToolSpec } from "./tools/toolCatalog";
import { type ForwardDeps, forwardCommand, type ToolResult } from "./tools/toolForwarder";

export type Params = Record<string, unknown>;

export interface CallOptions {
  /** Who is asking; shown in the diff editor's title. Default "extension API". */
  origin?: string;
}

export interface WaymarkApi {
  readonly apiVersion: 1;
  read(params: Params): Promise<ToolResult>;
  edit(params: Params, options?: CallOptions): Promise<ToolResult>;
  replace(params: Params, options?: CallOptions): Promise<ToolResult>;
  multiReplace(params: Params, options?: CallOptions): Promise<ToolResult>;
  write(params: Params, options?: CallOptions): Promise<ToolResult>;
  sed(params: Params, options?: CallOptions): Promise<ToolResult>;
  rewind(params: Params, options?: CallOptions): Promise<ToolResult>;
  applyPending(params: Params): Promise<ToolResult>;
  discardPending(params: Params): Promise<ToolResult>;
  snapshot(params: Params): Promise<ToolResult>;
  turns(): Promise<ToolResult>;
  diffStats(params: Params): Promise<ToolResult>;
  describeTools(): Promise<ToolResult>;
  /** Fires for every rewind the server reports (waymark/didRewind). */
  readonly onDidRewind: vscode.Event<DidRewindEvent>;
  /** Enables "code and conversation" / "conversation only" in the rewind picker while registered. */
  registerConversationHost(host: ConversationHost): vscode.Disposable;
}

export function createApi(
  deps: ForwardDeps,
  onDidRewind: vscode.Event<DidRewindEvent>,
  hosts: ConversationHosts,
): WaymarkApi {
  const direct = (command: CommandId) => (params: Params = {}) => deps.execute(command, params) as Promise<Result & ToolResult>;
  const approved = (command: CommandId) => (params: Params, options?: CallOptions) => {
    const spec: ToolSpec = { command, mutating: true };
    return forwardCommand(spec, params, options?.origin ?? "extension API", deps);
  };
  return {
    apiVersion: 1,
    read: direct(Commands.read),
    edit: approved(Commands.edit),
    replace: approved(Commands.replace),
    multiReplace: approved(Commands.multiReplace),
    write: approved(Commands.write),
    sed: approved(Commands.sed),
    rewind: approved(Commands.rewind),
    applyPending: direct(Commands.applyPending),
    discardPending: direct(Commands.discardPending),
    snapshot: direct(Commands.snapshot),
    turns: () => direct(Commands.turns)(),
    diffStats: direct(Commands.diffStats),
    describeTools: () => direct(Commands.describeTools)(),
    onDidRewind,
    registerConversationHost: (host) => hosts.register(host),
  };
}
