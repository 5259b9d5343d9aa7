// A server stream's "cancelled" event, narrowed to what its name says. grpc-js emits it whenever the
// stream closes: after the handler ended the call normally as well as when the caller cancelled or
// its connection dropped. Work tied to "the caller went away" (kill the command, interrupt the cell,
// abort the tool call) must not run on a normal end, or it reaches what the call left running on
// purpose (a server a command detached, say).
import type { EventEmitter } from "node:events";

/** Runs `gone` when the caller leaves before the handler has `ended` the call. */
export function onCallerGone(call: EventEmitter, ended: () => boolean, gone: () => void): void {
  call.on("cancelled", () => {
    if (!ended()) gone();
  });
}
