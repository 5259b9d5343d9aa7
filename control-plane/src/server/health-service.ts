// The standard gRPC health service (grpc.health.v1, grpc-health-check) on the API port, for
// Kubernetes' gRPC probes and load balancers, which ask before they hold a token: Check and Watch
// answer without one and say only the serving status, for "" (the server) and for the control
// plane's service. SERVING once the server listens, NOT_SERVING from the moment it drains. List
// names the services, so it wants a token like reflection. Watch streams are open to strangers, so
// they are bounded in number (LIMITS.healthWatchStreamsMax) and end when the server closes.
import { type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, status as grpcStatus } from "@grpc/grpc-js";
import { protobufPackage } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { HealthImplementation, type ServingStatus } from "grpc-health-check";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { CallerAuth } from "../tenants/caller-auth.js";
import { toServiceError } from "./service-error.js";
import { type OnRefused, requireToken, type ServiceRegistry, wrappingRegistry } from "./token-gate.js";

/** The name the control plane's service answers to in Check and Watch, beside "" for the whole server. */
export const CONTROL_PLANE_SERVICE_NAME = `${protobufPackage}.ControlPlane`;

const SERVICE_NAMES: readonly string[] = ["", CONTROL_PLANE_SERVICE_NAME];

/** The longest service name a Watch is taken for (answered SERVICE_UNKNOWN, when it is not one of SERVICE_NAMES). */
const WATCHED_NAME_MAX_CHARS = 256;

type WatchCall = ServerWritableStream<{ service?: string }, { status: ServingStatus | "SERVICE_UNKNOWN" }>;
type CheckCall = ServerUnaryCall<{ service?: string }, { status: ServingStatus }>;
type CheckCallback = sendUnaryData<{ status: ServingStatus }>;

export class ApiHealth {
  private status: ServingStatus = "NOT_SERVING";
  private readonly checks = new HealthImplementation(Object.fromEntries(SERVICE_NAMES.map((n) => [n, "NOT_SERVING"])));
  private readonly watches = new Set<WatchCall>();

  /** Registers the service on the server: Check (the package's), Watch (bounded), List (token holders only). */
  addTo(server: ServiceRegistry, auth: CallerAuth, refused: OnRefused): void {
    this.checks.addToServer(
      wrappingRegistry(server, (definition, impl) =>
        requireToken(
          definition,
          { ...impl, check: (call: CheckCall, callback: CheckCallback) => this.check(call, callback), watch: (call: WatchCall) => this.watch(call) },
          auth,
          refused,
          ["list"],
        ),
      ),
    );
  }

  get serving(): boolean {
    return this.status === "SERVING";
  }

  set(status: ServingStatus): void {
    if (status === this.status) return;
    this.status = status;
    for (const name of SERVICE_NAMES) this.checks.setStatus(name, status);
    for (const call of this.watches) if (SERVICE_NAMES.includes(call.request.service ?? "")) call.write({ status });
  }

  /** Ends every Watch stream (the server is closing: an open stream would hold its shutdown). */
  close(): void {
    this.set("NOT_SERVING");
    for (const call of [...this.watches]) call.end();
    this.watches.clear();
  }

  /**
   * Check, as the package's but for an unknown name: its answer never quotes the name. A stranger
   * chooses it, up to the message size; quoted into the status trailer, a name of a megabyte left the
   * call unanswered and held the server's shutdown.
   */
  private check(call: CheckCall, callback: CheckCallback): void {
    if (SERVICE_NAMES.includes(call.request.service ?? "")) return callback(null, { status: this.status });
    callback({ code: grpcStatus.NOT_FOUND, details: `unknown service: ask for "" (the server) or ${CONTROL_PLANE_SERVICE_NAME}` });
  }

  private watch(call: WatchCall): void {
    // A Watch keeps its request for as long as it is open: a stranger's name of tens of megabytes on
    // each of the bounded streams would hold gigabytes. No name this server knows is this long.
    if ((call.request.service ?? "").length > WATCHED_NAME_MAX_CHARS) {
      const err = new EnclaveError("invalid_arguments", `a service name is at most ${WATCHED_NAME_MAX_CHARS} characters`);
      return void call.emit("error", toServiceError(err));
    }
    if (this.watches.size >= LIMITS.healthWatchStreamsMax) {
      const err = new EnclaveError(
        "too_many_calls",
        `the server holds ${LIMITS.healthWatchStreamsMax} health watches already; use Check, or watch again later`,
      );
      return void call.emit("error", toServiceError(err));
    }
    this.watches.add(call);
    const forget = (): void => void this.watches.delete(call);
    for (const event of ["cancelled", "close", "finish", "error"]) call.once(event, forget);
    // An unknown name is answered as the protocol says (SERVICE_UNKNOWN) and then left open, as Watch's contract asks.
    call.write({ status: SERVICE_NAMES.includes(call.request.service ?? "") ? this.status : "SERVICE_UNKNOWN" });
  }
}
