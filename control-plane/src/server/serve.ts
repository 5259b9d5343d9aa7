// Serves the control plane's gRPC API on a TCP address (loopback by default) or a unix socket.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { within } from "../../../enclave-agent/src/time/wait.js";
import type { ControlPlaneFacade } from "../control-plane.js";
import { LIMITS } from "../limits.js";
import { controlPlaneService } from "./control-plane-service.js";
import { Drain } from "./drain.js";
import { removeStaleSocket } from "./stale-socket.js";
import { StrictControlPlaneService } from "./strict-call-decoding.js";

export interface ServingControlPlane {
  address: string;
  close(): Promise<void>;
  /**
   * A graceful stop: new calls are refused (UNAVAILABLE, code `draining`), calls in flight run on
   * for at most maxMs, then the server closes. Resolves whether every call finished in time.
   */
  drainAndClose(maxMs?: number): Promise<boolean>;
}

export async function serveControlPlane(cp: ControlPlaneFacade, listen: string): Promise<ServingControlPlane> {
  const server = new Server({
    "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
    "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  });
  const drain = new Drain();
  server.addService(StrictControlPlaneService, drain.wrap(StrictControlPlaneService, controlPlaneService(cp)));
  await removeStaleSocket(listen);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(listen, ServerCredentials.createInsecure(), (err, p) => (err ? reject(new Error(`cannot listen on ${listen}: ${err.message}`)) : resolve(p))),
  );
  const address = listen.startsWith("unix:") ? listen : listen.replace(/:\d+$/, `:${port}`);
  const close = async (): Promise<void> => {
    const shut = new Promise<true>((resolve) => server.tryShutdown(() => resolve(true)));
    if (!(await within(shut, LIMITS.serverShutdownGraceMs, false))) {
      server.forceShutdown();
      await shut;
    }
  };
  return {
    address,
    close,
    drainAndClose: async (maxMs = LIMITS.drainMaxMs) => {
      const finished = await drain.drain(maxMs);
      await close();
      return finished;
    },
  };
}
