// The tool calls running now, each with a way to cancel it from outside its caller: an operator's
// CancelCall. The dispatcher registers every call it runs (its CallFeed start, so ids are the feed's)
// and the call's signal becomes the caller's or the operator's, whichever aborts first. A cancelled
// tool stops as it does for its own caller (exec's agent kills the command's process tree, eval
// interrupts the cell); the dispatcher then answers the caller with `cancelled`, saying who.
import { EnclaveError } from "../errors.js";
import type { CallStarted } from "./call-feed.js";

/** Who cancelled a call, as the audit log names callers (a tenant, and the token or console it used). */
export interface CancelledBy {
  who: string;
}

interface Entry {
  call: CallStarted;
  controller: AbortController;
  cancelledBy?: CancelledBy;
  /** Told when an operator's cancel is what aborts the call (not after the caller's own abort). */
  onCancel?: () => void;
}

export class CallsInFlight {
  private readonly calls = new Map<number, Entry>();

  /**
   * Registers a call; its signal aborts when the caller's does or when it is cancelled here. `done`
   * forgets it (however the call ended).
   */
  track(
    call: CallStarted,
    callerSignal: AbortSignal,
  ): { signal: AbortSignal; cancelledBy(): CancelledBy | undefined; whenCancelled(listener: () => void): void; done(): void } {
    const entry: Entry = { call, controller: new AbortController() };
    this.calls.set(call.callId, entry);
    // The caller's abort is forwarded by a listener that done() removes. Not AbortSignal.any: Node
    // keeps a signal it made alive while it has an abort listener and a source may still abort, so
    // every call never aborted (and all it holds) would stay in memory.
    const forward = (): void => entry.controller.abort(callerSignal.reason);
    if (callerSignal.aborted) forward();
    else callerSignal.addEventListener("abort", forward, { once: true });
    return {
      signal: entry.controller.signal,
      cancelledBy: () => entry.cancelledBy,
      // A callback, not an abort listener on the signal: one listener less to add and remove on every call.
      whenCancelled: (listener) => (entry.onCancel = listener),
      done: () => {
        callerSignal.removeEventListener("abort", forward);
        if (this.calls.get(call.callId) === entry) this.calls.delete(call.callId);
      },
    };
  }

  /** The calls in flight now, oldest first. */
  list(): CallStarted[] {
    return [...this.calls.values()].map((e) => e.call).sort((a, b) => a.callId - b.callId);
  }

  /** The call with this id, or not_found when none is in flight (ended already, or never was). */
  get(callId: number): CallStarted {
    const entry = this.calls.get(callId);
    if (!entry) throw noCall(String(callId));
    return entry.call;
  }

  /** Cancels the call; not_found when it is not in flight. A second cancel of the same call is a no-op that answers the call. */
  cancel(callId: number, by: CancelledBy): CallStarted {
    const entry = this.calls.get(callId);
    if (!entry) throw noCall(String(callId));
    const first = !entry.controller.signal.aborted;
    entry.cancelledBy ??= by;
    entry.controller.abort(new EnclaveError("cancelled", `cancelled by ${by.who}`));
    if (first) entry.onCancel?.();
    return entry.call;
  }
}

export function noCall(callId: string): EnclaveError {
  return new EnclaveError("not_found", `no call \`${callId}\` is in flight (it ended, or never was); ListCallsInFlight lists the calls running now`);
}

/** A call id as the API carries it (the decimal feed id); invalid_arguments for any other shape. */
export function parseCallId(raw: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) {
    throw new EnclaveError("invalid_arguments", `call_id \`${raw.slice(0, 40)}\` is not a call id (a decimal number, as ListCallsInFlight gives)`);
  }
  return Number(raw);
}
