// A CallTools client that never reads its events (an HTTP/2 stream window of 0) while sending cheap
// frames that each earn an answer: the session holds a bounded number of events for it, then stops
// (it writes nothing more, reads nothing more, and cancels its calls) instead of queueing without end
// in the control plane's memory.
import http2 from "node:http2";
import { Server, ServerCredentials, type ServerDuplexStream, type ServiceError } from "@grpc/grpc-js";
import { afterEach, expect, it } from "vitest";
import { ControlPlaneService, type ToolCallEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import type { DecodedToolCallFrame } from "@enclave/control-plane/server/strict-call-decoding.js";
import { serveToolCallSession } from "@enclave/control-plane/server/tool-call-session.js";
import { until } from "../helpers/wait.js";

const NO_DRAIN = { isDraining: false, enter: () => () => undefined, onDraining: () => () => undefined };
let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

it("a client that never reads: the session stops at its bound of unread events", async () => {
  let written = 0;
  let serverCall: ServerDuplexStream<DecodedToolCallFrame, ToolCallEvent> | undefined;
  const server = new Server();
  const impl = {
    callTools(call: ServerDuplexStream<DecodedToolCallFrame, ToolCallEvent>): void {
      serverCall = call;
      const write = call.write.bind(call);
      call.write = ((e: ToolCallEvent) => {
        written++;
        return write(e);
      }) as typeof call.write;
      serveToolCallSession(
        call,
        async () => ({ isError: false, parts: [], errorCode: "", durationMs: 0, detailsJson: "" }),
        NO_DRAIN,
        (e) => e as ServiceError,
      );
    },
  };
  server.addService(ControlPlaneService, impl as never);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  cleanup.push(() => server.forceShutdown());
  // A raw HTTP/2 client that never lets the server send (stream window 0).
  const session = http2.connect(`http://127.0.0.1:${port}`, { settings: { initialWindowSize: 0 } });
  cleanup.push(() => session.destroy());
  const req = session.request({ ":method": "POST", ":path": "/enclave.control.v1.ControlPlane/CallTools", "content-type": "application/grpc", te: "trailers" });
  req.on("error", () => undefined);
  // Each empty frame (call_id 0) is answered with an error event: 5 bytes in, ~100 bytes queued out.
  const frames = LIMITS.toolSessionUnreadEventsMax * 3;
  req.write(Buffer.concat(Array.from({ length: frames }, () => Buffer.from([0, 0, 0, 0, 0]))));
  await until(() => serverCall?.destroyed, "the session to stop for a client that does not read", 30_000);
  // Every frame arrived, and still nothing more was written once the bound was passed.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(written).toBe(LIMITS.toolSessionUnreadEventsMax + 1);
});
