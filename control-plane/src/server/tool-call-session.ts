// The CallTools stream: many tool calls multiplexed on one long-lived gRPC stream, each named by an id
// the client chose. A call runs through the very function CallTool uses (authorization, quotas,
// kernel reservation, audit); only the framing differs. A bad frame fails its own call (or, with no
// call to fail, is answered under id 0) and the session goes on.
import type { ServerDuplexStream, ServiceError } from "@grpc/grpc-js";
import { type ToolCallError, ToolCallEvent, type ToolEvent, type ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { onCallerGone } from "@enclave/proto/caller-gone.js";
import { asEnclaveError, EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { encodedSize } from "../streams/encoded-once.js";
import { WriteBudget } from "../streams/write-budget.js";
import type { DecodedCallToolRequest, DecodedToolCallFrame } from "./strict-call-decoding.js";

/** Runs one tool call as CallTool does, streaming its progress and output to emit. */
export type RunToolCall = (req: DecodedCallToolRequest, signal: AbortSignal, emit: (e: NonNullable<ToolEvent["event"]>) => void) => Promise<ToolResult>;

/** What a session needs of the server's drain: whether new calls are refused, counting calls in flight, and the moment draining starts. */
export interface SessionDrain {
  readonly isDraining: boolean;
  enter(): () => void;
  onDraining(listener: () => void): () => void;
}

export function callError(err: unknown): ToolCallError {
  const e = asEnclaveError(err);
  return { grpcCode: e.grpcCode, code: e.code, message: e.message };
}

function draining(): EnclaveError {
  return new EnclaveError(
    "draining",
    "the control plane is shutting down and takes no new calls; retry once it is back (conversations, runs and enclosures are kept)",
  );
}

export function serveToolCallSession(
  call: ServerDuplexStream<DecodedToolCallFrame, ToolCallEvent>,
  run: RunToolCall,
  drain: SessionDrain,
  toServiceError: (err: unknown) => ServiceError,
  /** Told of each refusal of the session's own (not of calls that ran), for the audit log. */
  refused: (err: EnclaveError) => void = () => undefined,
): { end(err: EnclaveError): void } {
  const inFlight = new Map<number, AbortController>();
  /** The server ended the stream (a status is on its way): nothing more is written. */
  let ended = false;
  /** The caller went away or the stream closed: nothing more is written either. */
  let closed = false;
  let halfClosed = false;
  let drainingNow = drain.isDraining;

  /** Ends the session from this side with a status saying why; its calls are cancelled. */
  const endWith = (err: EnclaveError): void => {
    if (ended || closed) return;
    ended = true;
    gone();
    call.emit("error", toServiceError(err));
  };
  const out = new WriteBudget<ToolCallEvent>(
    call,
    encodedSize(ToolCallEvent),
    (err) => {
      refused(err);
      endWith(err);
    },
    LIMITS.streamBufferedBytes.tool_session,
  );
  const send = (event: ToolCallEvent): void => {
    if (ended || closed) return;
    if (!out.write(event)) return;
    // A client that does not read its events: what waits for it is bounded. Past the bound the
    // session stops (a status could not reach it either): nothing more is written or read, and its
    // calls are cancelled.
    if (call.writableLength > LIMITS.toolSessionUnreadEventsMax) {
      ended = true;
      refused(
        new EnclaveError(
          "too_many_calls",
          `the client read none of the session's last ${LIMITS.toolSessionUnreadEventsMax} events, so the session was stopped and its calls cancelled`,
        ),
      );
      gone();
      call.destroy();
    }
  };
  const refuse = (callId: number, err: EnclaveError): void => {
    refused(err);
    send({ callId, event: { $case: "error", value: callError(err) } });
  };
  /** Ends the stream once nothing is in flight and the client or a drain asked for the end. */
  const endIfDone = (): void => {
    if (ended || closed || inFlight.size > 0) return;
    if (drainingNow) {
      ended = true;
      // emit, not destroy: grpc-js sends the status only for a stream that ends after "error".
      call.emit("error", toServiceError(draining()));
    } else if (halfClosed) {
      ended = true;
      call.end();
    }
  };
  const stopWatchingDrain = drain.onDraining(() => {
    drainingNow = true;
    endIfDone();
  });
  const gone = (): void => {
    closed = true;
    stopWatchingDrain();
    for (const abort of inFlight.values()) abort.abort();
  };
  onCallerGone(call, () => ended, gone);
  for (const event of ["cancelled", "close", "finish"]) call.once(event, stopWatchingDrain);
  call.on("error", () => {
    if (!ended) gone();
  });

  const start = (callId: number, req: DecodedCallToolRequest): void => {
    const abort = new AbortController();
    inFlight.set(callId, abort);
    const leave = drain.enter();
    const finish = (event: NonNullable<ToolCallEvent["event"]>): void => {
      inFlight.delete(callId);
      leave();
      send({ callId, event });
      endIfDone();
    };
    // Through a promise, so a call that throws at once (an unknown run) is answered like one that fails later.
    Promise.resolve()
      .then(() => run(req, abort.signal, (event) => send({ callId, event })))
      .then(
        (result) => finish({ $case: "result", value: result }),
        (err: unknown) => finish({ $case: "error", value: callError(err) }),
      )
      .catch(() => undefined); // finish wrote to a stream that closed meanwhile: nothing is owed to anyone.
  };

  call.on("data", (frame: DecodedToolCallFrame) => {
    if (ended || closed) return;
    const id = frame.callId;
    // A frame whose id names a call in flight must not fail that call: it is answered under id 0.
    const own = id !== 0 && !inFlight.has(id) ? id : 0;
    const which = id === 0 ? "a frame with no call_id" : `the frame for call ${id}`;
    if (frame.malformed !== undefined) {
      return refuse(own, new EnclaveError("invalid_arguments", `${which} is not a ToolCallFrame (${frame.malformed}); send call_id and a call or a cancel`));
    }
    const f = frame.frame;
    if (f?.$case === "cancel") {
      inFlight.get(id)?.abort(); // An id not in flight was answered already: nothing to cancel.
      return;
    }
    if (id === 0) return refuse(0, new EnclaveError("invalid_arguments", "a frame has call_id 0; number each call with an id other than 0"));
    if (f?.$case !== "call" || !f.value) return refuse(own, new EnclaveError("invalid_arguments", `${which} has neither a call nor a cancel`));
    if (inFlight.has(id)) {
      return refuse(
        0,
        new EnclaveError(
          "already_exists",
          `call ${id} is already in flight on this session, so a second call with that id was refused (the first goes on); use an id not in flight`,
        ),
      );
    }
    if (drainingNow) return refuse(id, draining());
    if (inFlight.size >= LIMITS.toolSessionCallsInFlight) {
      return refuse(
        id,
        new EnclaveError(
          "too_many_calls",
          `this session already has ${inFlight.size} calls in flight, the most one session carries; wait for one to finish, or make the call on another session or with CallTool`,
        ),
      );
    }
    const req: DecodedCallToolRequest = { runId: f.value.runId, tool: f.value.tool, argumentsJson: f.value.argumentsJson };
    if (frame.notUtf8) req.notUtf8 = true;
    start(id, req);
  });
  call.on("end", () => {
    halfClosed = true;
    endIfDone();
  });
  return { end: endWith };
}
