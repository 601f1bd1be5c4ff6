/**
 * Agent hosts that can truncate their conversation to a turn. Rewind offers "code and
 * conversation" / "conversation only" only while at least one is registered, because without
 * one those options would silently do nothing to any conversation.
 */
import type { DidRewindEvent } from "./protocol";

export interface ConversationHost {
  /** Shown in the rewind options, e.g. "My Agent". */
  readonly label: string;
  /** Called after the server reported a rewind with option "conversation" or "both". */
  rewindConversation(event: DidRewindEvent): void | Thenable<void>;
}

export class ConversationHosts {
  private readonly hosts = new Set<ConversationHost>();

  register(host: ConversationHost): { dispose(): void } {
    this.hosts.add(host);
    return { dispose: () => this.hosts.delete(host) };
  }

  get labels(): string[] {
    return [...this.hosts].map((host) => host.label);
  }

  get any(): boolean {
    return this.hosts.size > 0;
  }

  /** One failing host must not stop the others from truncating. */
  async notify(event: DidRewindEvent, onError: (host: ConversationHost, error: unknown) => void): Promise<void> {
    if (event.option === "code") {
      return;
    }
    await Promise.all(
      [...this.hosts].map(async (host) => {
        try {
          await host.rewindConversation(event);
        } catch (error) {
          onError(host, error);
        }
      }),
    );
  }
}
