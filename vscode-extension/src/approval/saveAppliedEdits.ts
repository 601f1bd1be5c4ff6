/**
 * When the server sends `workspace/applyEdit` (approval "editor", or an edit of a buffer), VS
 * Code applies it to the open buffers and leaves them dirty. For a buffer that was clean the
 * server also writes the approved bytes to disk, so VS Code would later see the file "newer"
 * than its dirty buffer and raise a save conflict. Saving those buffers before answering keeps
 * buffer and disk equal and leaves the server nothing to write. Buffers that already held the
 * user's unsaved work stay unsaved: the edit joins that work, and saving is the user's call.
 */

export interface SavableDocument {
  readonly uri: { toString(): string };
  readonly isDirty: boolean;
  save(): PromiseLike<boolean>;
}

interface EditParams {
  edit: {
    documentChanges?: ReadonlyArray<object>;
    changes?: { [uri: string]: unknown };
  };
}

/** The documents an edit touches, as normalised URI strings. */
export function editedUris(params: EditParams, normalise: (uri: string) => string): Set<string> {
  const uris = new Set<string>();
  for (const change of params.edit.documentChanges ?? []) {
    if ("textDocument" in change) {
      uris.add(normalise((change as { textDocument: { uri: string } }).textDocument.uri));
    }
  }
  for (const uri of Object.keys(params.edit.changes ?? {})) {
    uris.add(normalise(uri));
  }
  return uris;
}

/** Apply through `apply` (the client's own handler); an error result passes through as is. */
export async function applyThenSave<P extends EditParams, R extends object>(
  params: P,
  apply: (params: P) => PromiseLike<R> | R,
  documents: () => readonly SavableDocument[],
  normalise: (uri: string) => string,
): Promise<R> {
  const uris = editedUris(params, normalise);
  const touched = (doc: SavableDocument) => uris.has(normalise(doc.uri.toString()));
  const dirtyBefore = new Set(documents().filter((doc) => touched(doc) && doc.isDirty).map((doc) => doc.uri.toString()));
  const result = await apply(params);
  if ("applied" in result && result.applied === true) {
    for (const doc of documents()) {
      if (touched(doc) && doc.isDirty && !dirtyBefore.has(doc.uri.toString())) {
        await doc.save();
      }
    }
  }
  return result;
}
