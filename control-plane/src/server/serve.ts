// Serves the control plane's gRPC API on a TCP address (loopback by default) or a unix socket.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { within } from "../../../enclave-agent/src/time/wait.js";
import type { ControlPlaneFacade } from "../control-plane.js";
import { LIMITS } from "../limits.js";
import { controlPlaneService } from "./control-plane-service.js";
import { StrictControlPlaneService } from "./strict-call-decoding.js";

export interface ServingControlPlane {
  address: string;
  close(): Promise<void>;
}

export async function serveControlPlane(cp: ControlPlaneFacade, listen: string): Promise<ServingControlPlane> {
  const server = new Server({
    "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
    "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  });
  server.addService(StrictControlPlaneService, controlPlaneService(cp));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(listen, ServerCredentials.createInsecure(), (err, p) => (err ? reject(new Error(`cannot listen on ${listen}: ${err.message}`)) : resolve(p))),
  );
  const address = listen.startsWith("unix:") ? listen : listen.replace(/:\d+$/, `:${port}`);
  return {
    address,
    close: async () => {
      const shut = new Promise<true>((resolve) => server.tryShutdown(() => resolve(true)));
      if (!(await within(shut, LIMITS.serverShutdownGraceMs, false))) {
        server.forceShutdown();
        await shut;
      }
    },
  };
}
