/**
 * `waymark-proposal:` URI paths: `/<token>/<workspace-relative path>`, with the query `base`
 * for the empty left side of a file the proposal creates. The file path stays readable because
 * VS Code shows its last segment as the tab title. Plain strings, so testable without VS Code.
 */
export const PROPOSAL_SCHEME = "waymark-proposal";

export interface ProposalRef {
  token: string;
  path: string;
  base: boolean;
}

export function proposalPath(token: string, path: string): string {
  return `/${encodeURIComponent(token)}/${path.replace(/^\/+/, "")}`;
}

export function parseProposalPath(uriPath: string, query: string): ProposalRef | undefined {
  const match = /^\/([^/]+)\/(.+)$/.exec(uriPath);
  if (!match) {
    return undefined;
  }
  return { token: decodeURIComponent(match[1]), path: match[2], base: query === "base" };
}
