/**
 * Serves proposals as files so the diff editor's right side is a real, editable document:
 * saving it (or just typing — see ApprovalController.accept) records the user's version.
 */
import * as vscode from "vscode";

import type { PendingStore } from "./pendingStore";
import { parseProposalPath, PROPOSAL_SCHEME, proposalPath, proposalQuery } from "./proposalUri";

const encoder = new TextEncoder();

export function proposalUri(token: string, path: string, base = false): vscode.Uri {
  return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: proposalPath(path), query: proposalQuery(token, base) });
}

export class ProposalFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  /** VS Code's save-conflict check compares mtimes, so a user's save must move it forward. */
  private readonly mtimes = new Map<string, number>();

  constructor(private readonly store: PendingStore) {}

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const { content, editable } = this.lookup(uri);
    return {
      type: vscode.FileType.File,
      ctime: 0,
      mtime: this.mtimes.get(uri.toString()) ?? 0,
      size: encoder.encode(content).byteLength,
      permissions: editable ? undefined : vscode.FilePermission.Readonly,
    };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return encoder.encode(this.lookup(uri).content);
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const ref = parseProposalPath(uri.path, uri.query);
    if (!ref || ref.base || !this.store.isEditable(ref.token, ref.path)) {
      throw vscode.FileSystemError.NoPermissions(uri);
    }
    this.store.setEdited(ref.token, ref.path, new TextDecoder().decode(content));
    this.mtimes.set(uri.toString(), Date.now());
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }

  private lookup(uri: vscode.Uri): { content: string; editable: boolean } {
    const ref = parseProposalPath(uri.path, uri.query);
    const file = ref && this.store.file(ref.token, ref.path);
    if (!ref || !file) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    if (ref.base) {
      return { content: "", editable: false };
    }
    return {
      content: file.editedContent ?? file.newContent ?? "",
      editable: this.store.isEditable(ref.token, ref.path),
    };
  }
}
