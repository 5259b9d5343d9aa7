// The ConnectToolHost stream: a harness says hello for one of its runs with the tools it offers the
// run's kernel cells (and whether it intercepts their calls to Enclave's tools), is registered, then
// receives calls, interception offers and cancels, and answers them until it disconnects.
import type { ServerDuplexStream, ServiceError } from "@grpc/grpc-js";
import { ToolHostCommand, type ToolHostMessage } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { ToolHostPort } from "../control-plane-api.js";
import { asEnclaveError, EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { ToolHost } from "../toolhost/tool-host.js";
import { undecodableReason } from "./strict-call-decoding.js";
import { WriteBudget } from "../streams/write-budget.js";

let hostCounter = 0;

export function connectToolHost(
  cp: ToolHostPort,
  call: ServerDuplexStream<ToolHostMessage, ToolHostCommand>,
  toServiceError: (err: unknown) => ServiceError,
): { end(err: EnclaveError): void } {
  let host: ToolHost | undefined;
  let closed = false;
  const gone = (why: string): void => {
    closed = true;
    if (!host) return;
    cp.disconnectToolHost(host, why);
    host = undefined;
  };
  // Emitting "error" (not destroy) is what makes grpc-js send the status to the client.
  const refuse = (err: EnclaveError): void => {
    if (closed) return;
    gone(err.code === "unauthenticated" ? "its token was revoked" : err.code === "slow_reader" ? "it fell behind reading" : "refused");
    call.emit("error", toServiceError(err));
  };
  const out = new WriteBudget<ToolHostCommand>(call, (c) => ToolHostCommand.encode(c).finish().byteLength, refuse, LIMITS.streamBufferedBytes.tool_host);
  call.on("data", (msg: ToolHostMessage) => {
    if (closed) return;
    const undecodable = undecodableReason(msg);
    if (undecodable !== undefined) return refuse(new EnclaveError("invalid_arguments", undecodable));
    const m = msg.message;
    if (!host) {
      if (m?.$case !== "hello") return refuse(new EnclaveError("invalid_arguments", "a tool host's first message must be hello"));
      try {
        const runId = cp.runIdFor(m.value.runId);
        hostCounter += 1;
        const made = new ToolHost(
          `th${hostCounter}`,
          runId,
          m.value.tools,
          m.value.intercept,
          (command) => {
            if (!closed) out.write(command);
          },
          (name) => cp.isEnclaveTool(name),
        );
        cp.connectToolHost(made, (why) => refuse(new EnclaveError("not_found", `${why}; its tool host is disconnected`)));
        host = made;
      } catch (err) {
        return refuse(asEnclaveError(err));
      }
      call.write({ command: { $case: "ready", value: { hostId: host.id, tools: host.tools.map((t) => t.name) } } });
      return;
    }
    if (m?.$case === "result") host.answer("call", m.value);
    else if (m?.$case === "decision") host.answer("offer", m.value);
    else if (m?.$case === "hello") refuse(new EnclaveError("invalid_arguments", "hello was already sent on this stream"));
  });
  call.on("end", () => {
    gone("its stream ended");
    call.end();
  });
  call.on("cancelled", () => gone("its stream was cancelled"));
  call.on("error", () => gone("its stream failed"));
  call.on("close", () => gone("its stream closed"));
  return { end: refuse };
}
