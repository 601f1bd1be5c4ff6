/**
 * Opens a Waymark turn (waymark.snapshot) at the first tool call of each chat request, so the
 * user can rewind "to before that prompt". Stable VS Code API identifies the chat session
 * (toolInvocationToken.sessionId) but not the request, so unless a request id is available a
 * new request is recognised by a pause between tool calls longer than `idleMs`: an extra
 * boundary inside a long request only adds a rewind point, a missed one would merge two prompts.
 */
export interface TurnStart {
  promptId: string;
  label: string;
}

export interface RequestIdentity {
  /** Present only when the host exposes it (proposed API). */
  requestId?: string;
  sessionId?: string;
}

export class TurnTracker {
  private readonly sessions = new Map<string, { requestKey: string; lastCallAt: number; promptId: string; opened: Promise<unknown> }>();

  constructor(
    private readonly snapshot: (turn: TurnStart) => Promise<unknown>,
    private readonly idleMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves once the turn this call belongs to has its snapshot. */
  async enter(identity: RequestIdentity, firstCall: string): Promise<string> {
    const sessionKey = identity.sessionId ?? "no-session";
    const now = this.now();
    const known = this.sessions.get(sessionKey);
    const sameRequest = identity.requestId
      ? known?.requestKey === identity.requestId
      : known !== undefined && now - known.lastCallAt <= this.idleMs;
    if (known && sameRequest) {
      known.lastCallAt = now;
      await known.opened;
      return known.promptId;
    }
    // Time in the id keeps ids unique across reloads: the journal is last-wins by promptId.
    const promptId = `chat-${shortId(sessionKey)}-${identity.requestId ? shortId(identity.requestId) : now.toString(36)}`;
    const label = `Agent turn: ${firstCall}`;
    const opened = this.snapshot({ promptId, label });
    this.sessions.set(sessionKey, { requestKey: identity.requestId ?? String(now), lastCallAt: now, promptId, opened });
    await opened;
    return promptId;
  }
}

export function requestIdentity(options: { toolInvocationToken?: unknown; chatRequestId?: unknown }): RequestIdentity {
  const token = options.toolInvocationToken;
  const sessionId =
    typeof token === "object" && token !== null && typeof (token as { sessionId?: unknown }).sessionId === "string"
      ? (token as { sessionId: string }).sessionId
      : undefined;
  const requestId = typeof options.chatRequestId === "string" ? options.chatRequestId : undefined;
  return { sessionId, requestId };
}

function shortId(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, "").slice(-12) || "x";
}
