/**
 * Proposals waiting for the user's decision. Pure (no VS Code import): the diff editor, the
 * file-system provider and the status bar all read from here, and tools await `decision()`.
 */
import type { PreviewFile } from "../protocol";

export interface PendingFile extends PreviewFile {
  /** The user's version of the proposal, once they changed it in the diff editor. */
  editedContent?: string;
}

export interface PendingEdit {
  token: string;
  /** Who asked: a tool name, an API caller, a UI command. Shown to the user. */
  origin: string;
  diff: string;
  files: PendingFile[];
  createdAt: number;
}

export type Decision =
  | { kind: "accepted"; result: Record<string, unknown> }
  | { kind: "rejected" }
  | { kind: "failed"; result: Record<string, unknown> };

interface Entry {
  edit: PendingEdit;
  decision: Promise<Decision>;
  settle: (decision: Decision) => void;
}

export class PendingStore {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();

  add(edit: PendingEdit): void {
    if (this.entries.has(edit.token)) {
      throw new Error(`proposal ${edit.token} is already pending`);
    }
    let settle!: (decision: Decision) => void;
    const decision = new Promise<Decision>((resolve) => {
      settle = resolve;
    });
    // A copy: the user's edits are recorded on these objects, never on the caller's preview.
    const own = { ...edit, files: edit.files.map((file) => ({ ...file })) };
    this.entries.set(edit.token, { edit: own, decision, settle });
    this.changed();
  }

  get(token: string): PendingEdit | undefined {
    return this.entries.get(token)?.edit;
  }

  file(token: string, path: string): PendingFile | undefined {
    return this.get(token)?.files.find((file) => file.path === path);
  }

  list(): PendingEdit[] {
    return [...this.entries.values()].map((entry) => entry.edit);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Only single-file proposals are editable: applyPending's newContent names no file. */
  isEditable(token: string, path: string): boolean {
    const edit = this.get(token);
    const file = this.file(token, path);
    return edit !== undefined && edit.files.length === 1 && file !== undefined && file.action !== "deleted";
  }

  setEdited(token: string, path: string, content: string): void {
    const file = this.file(token, path);
    if (!file || !this.isEditable(token, path)) {
      throw new Error(`proposal ${token} has no editable file ${path}`);
    }
    file.editedContent = content === file.newContent ? undefined : content;
    this.changed();
  }

  /** What the user approved: their edited text for a single-file proposal, or nothing. */
  newContentFor(token: string): string | undefined {
    const edit = this.get(token);
    if (!edit || edit.files.length !== 1) {
      return undefined;
    }
    return edit.files[0].editedContent;
  }

  decision(token: string): Promise<Decision> | undefined {
    return this.entries.get(token)?.decision;
  }

  settle(token: string, decision: Decision): void {
    const entry = this.entries.get(token);
    if (!entry) {
      return;
    }
    this.entries.delete(token);
    entry.settle(decision);
    this.changed();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}
