/** Language-model tool name → server command. The names and schemas come from describeTools. */
import { type CommandId, Commands } from "../protocol";

export interface ToolSpec {
  command: CommandId;
  /** Mutating tools go through the user's approval mode. */
  mutating: boolean;
  /** Parameters the tool fills in when the model leaves them out. */
  defaults?: Record<string, unknown>;
}

export const TOOL_SPECS: Readonly<Record<string, ToolSpec>> = {
  // Anchored edits need the hashes, so a model reading through the tool gets them by default.
  waymark_read: { command: Commands.read, mutating: false, defaults: { hashes: true } },
  waymark_edit: { command: Commands.edit, mutating: true },
  waymark_replace: { command: Commands.replace, mutating: true },
  waymark_multi_replace: { command: Commands.multiReplace, mutating: true },
  waymark_write: { command: Commands.write, mutating: true },
  waymark_sed: { command: Commands.sed, mutating: true },
  waymark_patch: { command: Commands.patch, mutating: true },
  waymark_snapshot: { command: Commands.snapshot, mutating: false },
  waymark_turns: { command: Commands.turns, mutating: false },
  waymark_diff_stats: { command: Commands.diffStats, mutating: false },
  waymark_rewind: { command: Commands.rewind, mutating: true },
};

export const TOOL_NAMES = Object.keys(TOOL_SPECS);
