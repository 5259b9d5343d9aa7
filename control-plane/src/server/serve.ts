// Serves the control plane's gRPC API on a TCP address (loopback by default) or a unix socket, with
// TLS and bearer tokens when configured (see api-security.ts).
import { Server } from "@grpc/grpc-js";
import { within } from "../../../enclave-agent/src/time/wait.js";
import type { ControlPlaneFacade } from "../control-plane.js";
import { LIMITS } from "../limits.js";
import { TenantQuotas } from "../tenants/quotas.js";
import { type ApiSecurityConfig, NO_API_SECURITY, resolveApiSecurity } from "./api-security.js";
import { controlPlaneService } from "./control-plane-service.js";
import { StrictControlPlaneService } from "./strict-call-decoding.js";

export interface ServingControlPlane {
  address: string;
  /** How the API guards itself (TLS, tokens, any weakening), one line. */
  security: string;
  close(): Promise<void>;
}

export async function serveControlPlane(cp: ControlPlaneFacade, listen: string, config: Partial<ApiSecurityConfig> = {}): Promise<ServingControlPlane> {
  const security = resolveApiSecurity(listen, { ...NO_API_SECURITY, ...config });
  const server = new Server({
    "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
    "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  });
  server.addService(StrictControlPlaneService, controlPlaneService(cp, { auth: security.auth, quotas: new TenantQuotas() }));
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(listen, security.credentials, (err, p) => (err ? reject(new Error(`cannot listen on ${listen}: ${err.message}`)) : resolve(p))),
    );
  } catch (err) {
    security.auth.close();
    throw err;
  }
  const address = listen.startsWith("unix:") ? listen : listen.replace(/:\d+$/, `:${port}`);
  cp.recordAudit({ kind: "api_started", outcome: security.weakened ? "weakened" : "ok", detail: `listening on ${address}: ${security.summary}` });
  if (security.weakened) process.stderr.write(`control plane: WARNING: ${security.summary}\n`);
  return {
    address,
    security: security.summary,
    close: async () => {
      security.auth.close();
      const shut = new Promise<true>((resolve) => server.tryShutdown(() => resolve(true)));
      if (!(await within(shut, LIMITS.serverShutdownGraceMs, false))) {
        server.forceShutdown();
        await shut;
      }
    },
  };
}
