// The client's side of CallTools: one long-lived stream carrying many tool calls, each under an id,
// opened when first needed and opened again after it broke. A call answered with an error rejects as
// the same failure on CallTool would; a stream that breaks rejects every call on it with the error a
// broken CallTool stream gives.
import { type ClientDuplexStream, type ServiceError, status } from "@grpc/grpc-js";
import type { CallToolRequest, ToolCallError, ToolCallEvent, ToolCallFrame, ToolEvent, ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { PROTOCOL_LIMITS } from "@enclave/proto/limits.js";

/** The session ends after this long with no call (an open stream keeps a process alive). */
const SESSION_IDLE_MS = 1_000;

/** What one call on the session hears: its events, then exactly one of result or failure. */
export interface SessionCallHandlers {
  event(e: ToolEvent): void;
  result(r: ToolResult): void;
  failed(err: Error): void;
  /** The server has no CallTools (an older control plane): nothing ran, the call is to be made over CallTool. */
  unsent(): void;
}

/** A call started on the session; cancel stops it on the server (its handlers hear nothing more). */
export interface SessionCall {
  cancel(): void;
}

interface Session {
  stream: ClientDuplexStream<ToolCallFrame, ToolCallEvent>;
  /** Calls waiting for their result, by id. */
  calls: Map<number, SessionCallHandlers>;
  /** Ids cancelled whose answer has not come yet: the server still counts them, and they are not reused until then. */
  cancelled: Set<number>;
  broken: boolean;
  /** Ends the session once it has carried no call for a while (SESSION_IDLE_MS). */
  idle: NodeJS.Timeout | undefined;
}

export class ToolCallSessions {
  private session: Session | undefined;
  private nextId = 0;
  /** The server refused the session RPC itself (an older control plane): calls go over CallTool. */
  private unsupported = false;

  constructor(
    private readonly open: () => ClientDuplexStream<ToolCallFrame, ToolCallEvent>,
    /** A call's error event as the error CallTool's failure would give. */
    private readonly callError: (e: ToolCallError) => Error,
    /** A broken stream's status as the error a broken CallTool stream would give. */
    private readonly streamError: (err: ServiceError) => Error,
  ) {}

  /**
   * Starts a call on the session, or returns undefined when the session carries as many calls as
   * the server takes on one (the caller then uses CallTool).
   */
  start(req: CallToolRequest, handlers: SessionCallHandlers): SessionCall | undefined {
    if (this.unsupported) return undefined;
    const s = this.current();
    if (s.calls.size + s.cancelled.size >= PROTOCOL_LIMITS.toolSessionCallsInFlight) return undefined;
    clearTimeout(s.idle);
    s.idle = undefined;
    const id = this.freeId(s);
    s.calls.set(id, handlers);
    s.stream.write({ callId: id, frame: { $case: "call", value: req } });
    return {
      cancel: () => {
        if (!s.calls.delete(id) || s.broken) return;
        s.cancelled.add(id);
        s.stream.write({ callId: id, frame: { $case: "cancel", value: {} } });
        this.idleLater(s);
      },
    };
  }

  /** Cancels the session's stream: the server cancels every call still on it. */
  close(): void {
    const s = this.session;
    this.session = undefined;
    s?.stream.cancel();
  }

  /**
   * An open stream keeps the process alive (grpc-js holds its connection while any call is active),
   * so a session with no call ends itself after a short while: a script that never closes its client
   * still exits, and a harness making calls back to back keeps its one stream.
   */
  private idleLater(s: Session): void {
    if (s.broken || s.calls.size + s.cancelled.size > 0 || s.idle) return;
    s.idle = setTimeout(() => {
      s.idle = undefined;
      if (s.broken || s.calls.size + s.cancelled.size > 0) return;
      s.broken = true;
      if (this.session === s) this.session = undefined;
      s.stream.end(); // Half-closed with nothing in flight: the server ends the stream at once.
    }, SESSION_IDLE_MS);
    s.idle.unref();
  }

  private freeId(s: Session): number {
    for (;;) {
      this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
      if (!s.calls.has(this.nextId) && !s.cancelled.has(this.nextId)) return this.nextId;
    }
  }

  private current(): Session {
    if (this.session && !this.session.broken) return this.session;
    const stream = this.open();
    const s: Session = { stream, calls: new Map(), cancelled: new Set(), broken: false, idle: undefined };
    this.session = s;
    let heard = false;
    const breakWith = (err: Error, unsent = false): void => {
      clearTimeout(s.idle);
      if (s.broken) return;
      s.broken = true;
      if (this.session === s) this.session = undefined;
      const calls = [...s.calls.values()];
      s.calls.clear();
      for (const c of calls) {
        if (unsent) c.unsent();
        else c.failed(err);
      }
    };
    stream.on("data", (e: ToolCallEvent) => {
      heard = true;
      const ev = e.event;
      if (!ev) return;
      if (ev.$case === "result" || ev.$case === "error") {
        const c = s.calls.get(e.callId);
        s.cancelled.delete(e.callId);
        s.calls.delete(e.callId);
        this.idleLater(s);
        if (ev.$case === "result") c?.result(ev.value);
        else c?.failed(this.callError(ev.value));
        return;
      }
      s.calls.get(e.callId)?.event({ event: ev });
    });
    stream.on("error", (err: ServiceError) => {
      // Refused before it said anything: a control plane without CallTools ran none of these calls.
      const older = err.code === status.UNIMPLEMENTED && !heard;
      if (older) this.unsupported = true;
      breakWith(this.streamError(err), older);
    });
    // A session the server ended (it drained, say) leaves calls it never answered without a result.
    stream.on("end", () => breakWith(new Error("the tool call ended without a result")));
    return s;
  }
}
