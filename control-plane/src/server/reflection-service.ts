// gRPC server reflection (v1 and v1alpha, @grpc/reflection) on the API port, for grpcurl and other
// tools that list and call services without the .proto files: the control plane's service and the
// health service. It answers token holders only (any tenant's token), as the API does; what it tells
// is the schema, which the .proto files already publish.
import { dirname } from "node:path";
import { createRequire } from "node:module";
import { loadSync } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import type { ServerDuplexStream, UntypedServiceImplementation } from "@grpc/grpc-js";
import { protoPath as healthProtoPath } from "grpc-health-check";
import { EnclaveError } from "../errors.js";
import { toServiceError } from "./service-error.js";
import type { CallerAuth } from "../tenants/caller-auth.js";
import { type OnRefused, requireToken, type ServiceRegistry, wrappingRegistry } from "./token-gate.js";

/** The .proto files reflection describes, read from the packages that ship them (not the generated code, which carries no descriptors). */
function describedProtos(): ReturnType<typeof loadSync> {
  const protoRoot = dirname(createRequire(import.meta.url).resolve("@enclave/proto/package.json"));
  // health.proto's folder holds health/v1/health.proto: its package path, as reflection names files.
  const healthRoot = dirname(dirname(dirname(healthProtoPath)));
  return loadSync(["enclave/control/v1/control.proto", "health/v1/health.proto"], { includeDirs: [protoRoot, healthRoot] });
}

let described: ReturnType<typeof loadSync> | undefined;

/** Requests one reflection stream answers (a client such as grpcurl asks a handful); past it the stream ends. */
export const REFLECTION_REQUESTS_PER_STREAM = 256;
/** The longest name (symbol, file, type) a reflection request may carry; none this server describes comes near. */
export const REFLECTION_NAME_MAX_CHARS = 1024;

type ReflectionStream = ServerDuplexStream<unknown, unknown>;
type Listener = (...args: unknown[]) => void;

function longestString(v: unknown, depth = 0): number {
  if (typeof v === "string") return v.length;
  if (depth > 3 || v === null || typeof v !== "object") return 0;
  return Math.max(0, ...Object.values(v).map((x) => longestString(x, depth + 1)));
}

/**
 * The handlers, each taking at most so many requests a stream, of short names only. The package
 * answers every request at once, ignoring backpressure, and each answer quotes its request: a caller
 * that wrote requests of a megabyte and never read had the server hold every answer.
 */
function bounded(impl: UntypedServiceImplementation): UntypedServiceImplementation {
  const out: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(impl)) {
    const serve = handler as unknown as (stream: ReflectionStream) => void;
    out[name] = ((stream: ReflectionStream) => {
      let taken = 0;
      let refused = false;
      const on = stream.on.bind(stream) as (event: string, listener: Listener) => ReflectionStream;
      const refuse = (err: EnclaveError): void => {
        refused = true;
        stream.emit("error", toServiceError(err));
      };
      stream.on = ((event: string, listener: Listener) =>
        on(
          event,
          event !== "data"
            ? listener
            : (message: unknown) => {
                if (refused) return;
                if (++taken > REFLECTION_REQUESTS_PER_STREAM) {
                  return refuse(new EnclaveError("too_many_calls", `a reflection stream answers ${REFLECTION_REQUESTS_PER_STREAM} requests; open another`));
                }
                if (longestString(message) > REFLECTION_NAME_MAX_CHARS) {
                  return refuse(new EnclaveError("invalid_arguments", `a reflection request's names are at most ${REFLECTION_NAME_MAX_CHARS} characters`));
                }
                listener(message);
              },
        )) as ReflectionStream["on"];
      serve(stream);
    }) as unknown as typeof handler;
  }
  return out;
}

export function addReflection(server: ServiceRegistry, auth: CallerAuth, refused: OnRefused): void {
  // Parsed once a process: every server of it (tests start many) describes the same files.
  described ??= describedProtos();
  new ReflectionService(described).addToServer(wrappingRegistry(server, (definition, impl) => requireToken(definition, bounded(impl), auth, refused)));
}
