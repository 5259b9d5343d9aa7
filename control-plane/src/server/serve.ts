// Serves the control plane's gRPC API on a TCP address (loopback by default) or a unix socket, with
// TLS and bearer tokens when configured (see api-security.ts), with the standard health service
// (no token: probes ask before they hold one) and server reflection (token holders) beside it.
import { Server } from "@grpc/grpc-js";
import { within } from "@enclave/proto/wait.js";
import type { ControlPlaneApi } from "../control-plane-api.js";
import { LIMITS } from "../limits.js";
import { RefusalAudit } from "../audit/refusal-audit.js";
import { asEnclaveError } from "../errors.js";
import { type ApiSecurityConfig, NO_API_SECURITY, resolveApiSecurity } from "./api-security.js";
import { controlPlaneService } from "./control-plane-service.js";
import { Drain } from "./drain.js";
import { ApiHealth } from "./health-service.js";
import { addReflection } from "./reflection-service.js";
import { removeStaleSocket } from "./stale-socket.js";
import { StrictControlPlaneService } from "./strict-call-decoding.js";
import { type Tracing, TRACING_OFF } from "../observability/tracing.js";

export interface ServingControlPlane {
  address: string;
  /** How the API guards itself (TLS, tokens, any weakening), one line. */
  security: string;
  close(): Promise<void>;
  /**
   * A graceful stop: new calls are refused (UNAVAILABLE, code `draining`), calls in flight run on
   * for at most maxMs, then the server closes. Resolves whether every call finished in time.
   */
  drainAndClose(maxMs?: number): Promise<boolean>;
}

export async function serveControlPlane(
  cp: ControlPlaneApi,
  listen: string,
  config: Partial<ApiSecurityConfig> = {},
  tracing: Tracing = TRACING_OFF,
): Promise<ServingControlPlane> {
  const security = resolveApiSecurity(listen, { ...NO_API_SECURITY, ...config });
  const server = new Server({
    "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
    "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  });
  const drain = new Drain();
  // A revoked token's open streams end with it (its next call is refused by authenticate already).
  const stopRevoking = security.auth.onRevoked((ids) => cp.streams.revoke(ids));
  server.addService(
    StrictControlPlaneService,
    drain.wrap(StrictControlPlaneService, controlPlaneService(cp, { auth: security.auth, quotas: cp.quotas }, drain, tracing)),
  );
  const health = new ApiHealth();
  // Refused reflection (or List) calls are audited like the API's refused callers, at most once an interval.
  const refusals = new RefusalAudit((input) => cp.recordAudit(input));
  const refused = (call: { getPath(): string; getPeer(): string }, err: unknown): void =>
    refusals.refused("", { kind: "call_refused", outcome: `refused:${asEnclaveError(err).code}`, detail: `${call.getPath()} from ${call.getPeer()}` });
  health.addTo(server, security.auth, refused);
  addReflection(server, security.auth, refused);
  drain.onDraining(() => health.set("NOT_SERVING"));
  await removeStaleSocket(listen);
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(listen, security.credentials, (err, p) => (err ? reject(new Error(`cannot listen on ${listen}: ${err.message}`)) : resolve(p))),
    );
  } catch (err) {
    stopRevoking();
    security.auth.close();
    throw err;
  }
  health.set("SERVING");
  const address = listen.startsWith("unix:") ? listen : listen.replace(/:\d+$/, `:${port}`);
  cp.recordAudit({ kind: "api_started", outcome: security.weakened ? "weakened" : "ok", detail: `listening on ${address}: ${security.summary}` });
  if (security.weakened) process.stderr.write(`control plane: WARNING: ${security.summary}\n`);
  const close = async (): Promise<void> => {
    // Idle CallTools sessions end now rather than hold the shutdown for its whole grace.
    drain.stopTaking();
    health.close();
    stopRevoking();
    security.auth.close();
    const shut = new Promise<true>((resolve) => server.tryShutdown(() => resolve(true)));
    if (!(await within(shut, LIMITS.serverShutdownGraceMs, false))) {
      server.forceShutdown();
      await shut;
    }
  };
  return {
    address,
    security: security.summary,
    close,
    drainAndClose: async (maxMs = LIMITS.drainMaxMs) => {
      const finished = await drain.drain(maxMs);
      await close();
      return finished;
    },
  };
}
