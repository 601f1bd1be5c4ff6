/**
 * Reviews for terminal agents: a `waymark mcp` or CLI started in this workspace sends its
 * changes to our server through the editor bridge, and the server asks us with
 * `waymark/review`. The proposal opens in the same diff editor as an in-editor agent's; the
 * answer (accepted — perhaps edited —, rejected, failed) goes back to the agent.
 */
import type { ClientCapabilities, FeatureState, StaticFeature } from "vscode-languageclient/node";

import type { Preview } from "../protocol";
import type { Decision } from "./pendingStore";

export const REVIEW_REQUEST = "waymark/review";

export interface ReviewParams {
  preview: Preview;
  origin: string;
}

/** Tells the server this client answers `waymark/review` (else it falls back to applyEdit). */
export class ReviewCapability implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), waymarkReview: true };
  }

  initialize(): void {}

  getState(): FeatureState {
    return { kind: "static" };
  }

  clear(): void {}
}

export type Reviewer = (preview: Preview, origin: string) => Promise<Decision>;

export async function answerReview(params: ReviewParams, reviewer: Reviewer | undefined): Promise<Decision> {
  if (!reviewer) {
    return { kind: "rejected" };
  }
  return reviewer(params.preview, `${params.origin}, from outside VS Code`);
}
