// Tool calls as they start and finish, for whoever watches them live (the console's recent calls,
// the in-flight gauge). The dispatcher publishes; the finished event is the audit event it recorded,
// so a watcher sees exactly what the audit log keeps. Listeners run inside the call: one that throws
// is dropped from this event, never fails the call.
import type { AuditEvent } from "../audit/audit-log.js";
import type { CallOrigin } from "./tool.js";

export interface CallStarted {
  /** Unique in this process; ties a call's start to its finish. */
  callId: number;
  conversationId: string;
  runId: string;
  /** As the caller named it: not checked yet, so possibly no tool at all. */
  tool: string;
  origin: CallOrigin;
  startedAtMs: number;
}

export type CallFeedEvent = { type: "started"; call: CallStarted } | { type: "finished"; call: CallStarted; event: AuditEvent };

export class CallFeed {
  private readonly listeners = new Set<(e: CallFeedEvent) => void>();
  private next = 0;

  subscribe(listener: (e: CallFeedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  started(call: Omit<CallStarted, "callId" | "startedAtMs">): CallStarted {
    const c: CallStarted = { ...call, callId: ++this.next, startedAtMs: Date.now() };
    this.publish({ type: "started", call: c });
    return c;
  }

  finished(call: CallStarted, event: AuditEvent): void {
    this.publish({ type: "finished", call, event });
  }

  private publish(e: CallFeedEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A watcher's failure is its own.
      }
    }
  }
}
