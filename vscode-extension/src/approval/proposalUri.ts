/**
 * `waymark-proposal:` URIs: the path is the workspace-relative file path, so the tab title
 * and the breadcrumb read like the file's own; the query carries the proposal's token (and
 * `base` for the empty left side of a file the proposal creates), which the user never needs
 * to see. Plain strings, so testable without VS Code.
 */
export const PROPOSAL_SCHEME = "waymark-proposal";

export interface ProposalRef {
  token: string;
  path: string;
  base: boolean;
}

export function proposalPath(path: string): string {
  return `/${path.replace(/^\/+/, "")}`;
}

export function proposalQuery(token: string, base: boolean): string {
  const query = new URLSearchParams({ token });
  if (base) {
    query.set("base", "1");
  }
  return query.toString();
}

export function parseProposalPath(uriPath: string, query: string): ProposalRef | undefined {
  const params = new URLSearchParams(query);
  const token = params.get("token");
  const path = uriPath.replace(/^\/+/, "");
  if (!token || !path) {
    return undefined;
  }
  return { token, path, base: params.has("base") };
}
