/** Language-model tool name → server command, from the server's spec (src/generated/spec.ts). */
import { COMMAND_SPECS } from "../generated/spec";
import type { CommandId } from "../protocol";

export interface ToolSpec {
  command: CommandId;
  /** Mutating tools go through the user's approval mode. */
  mutating: boolean;
  /** Parameters the tool fills in when the model leaves them out. */
  defaults?: Readonly<Record<string, unknown>>;
}

export const TOOL_SPECS: Readonly<Record<string, ToolSpec>> = Object.fromEntries(
  COMMAND_SPECS.flatMap((spec) =>
    spec.tool === null ? [] : [[spec.tool, { command: spec.id, mutating: spec.mutating, defaults: spec.toolDefaults }]],
  ),
);

export const TOOL_NAMES = Object.keys(TOOL_SPECS);
