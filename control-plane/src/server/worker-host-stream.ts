// The ConnectWorkerHost stream: a harness-side worker host says hello, is registered with the
// roster, receives assignments and kills, and reports progress and results until it disconnects.
import type { ServerDuplexStream, ServiceError } from "@grpc/grpc-js";
import { WorkerHostCommand, type WorkerHostMessage } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { EnclaveError } from "../errors.js";
import { undecodableReason } from "./strict-call-decoding.js";
import { LIMITS } from "../limits.js";
import { WriteBudget } from "../streams/write-budget.js";
import { type HostIds, RemoteWorkerHost } from "../vibe/remote-worker-host.js";
import { VIBE_TIERS } from "../vibe/worker.js";

let hostCounter = 0;

/** Where a connected host is registered while its stream lasts. */
export interface WorkerHostRoster {
  addHost(host: RemoteWorkerHost): void;
  removeHost(host: RemoteWorkerHost): void;
  /** Which conversations a host naming these may serve at all (its caller's); without it, any it names (or all). */
  admit?(conversationIds: readonly string[]): (conversationId: string) => boolean;
  /** How the caller names conversations, when not as the roster does (keys). */
  ids?: HostIds;
}

export function connectWorkerHost(
  roster: WorkerHostRoster,
  call: ServerDuplexStream<WorkerHostMessage, WorkerHostCommand>,
  toServiceError: (err: unknown) => ServiceError,
): { end(err: EnclaveError): void } {
  let host: RemoteWorkerHost | undefined;
  let closed = false;
  /** Ends the stream from this side (a reader too slow, its token revoked), with a status saying why. */
  const end = (err: EnclaveError): void => {
    if (closed) return;
    gone();
    call.emit("error", toServiceError(err));
  };
  const out = new WriteBudget<WorkerHostCommand>(call, (c) => WorkerHostCommand.encode(c).finish().byteLength, end, LIMITS.streamBufferedBytes.worker_host);
  // Emitting "error" (not destroy) is what makes grpc-js send the status to the client.
  const refuse = (message: string): void => {
    gone();
    call.emit("error", toServiceError(new EnclaveError("invalid_arguments", message)));
  };
  const gone = (): void => {
    closed = true;
    if (!host) return;
    roster.removeHost(host);
    host.disconnected();
    host = undefined;
  };
  call.on("data", (msg: WorkerHostMessage) => {
    const undecodable = undecodableReason(msg);
    if (undecodable !== undefined) return refuse(undecodable);
    const m = msg.message;
    if (!host) {
      if (m?.$case !== "hello") return refuse("a worker host's first message must be hello");
      const badTier = m.value.tiers.find((t) => !(VIBE_TIERS as readonly string[]).includes(t));
      if (badTier !== undefined) return refuse(`tier \`${badTier}\` is not one of ${VIBE_TIERS.join(", ")}`);
      let within: ((conversationId: string) => boolean) | undefined;
      let named: string[];
      try {
        named = m.value.conversationIds.map((id) => roster.ids?.toKey(id) ?? id);
        within = roster.admit?.(named);
      } catch (err) {
        gone();
        call.emit("error", toServiceError(err));
        return;
      }
      hostCounter += 1;
      const id = `h${hostCounter}`;
      const name = m.value.name.trim() || `worker host ${id}`;
      host = new RemoteWorkerHost(
        name,
        named,
        m.value.tiers,
        (command) => {
          if (!closed) out.write(command);
        },
        within,
        roster.ids,
      );
      roster.addHost(host);
      call.write({ command: { $case: "ready", value: { hostId: id } } });
      return;
    }
    if (m?.$case === "progress") host.progress(m.value);
    else if (m?.$case === "result") host.result(m.value);
    else if (m?.$case === "hello") refuse("hello was already sent on this stream");
  });
  call.on("end", () => {
    gone();
    call.end();
  });
  call.on("cancelled", gone);
  call.on("error", gone);
  call.on("close", gone);
  return { end };
}
