// gRPC server reflection (v1 and v1alpha, @grpc/reflection) on the API port, for grpcurl and other
// tools that list and call services without the .proto files: the control plane's service and the
// health service. It answers token holders only (any tenant's token), as the API does; what it tells
// is the schema, which the .proto files already publish.
import { dirname } from "node:path";
import { createRequire } from "node:module";
import { loadSync } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { protoPath as healthProtoPath } from "grpc-health-check";
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

export function addReflection(server: ServiceRegistry, auth: CallerAuth, refused: OnRefused): void {
  // Parsed once a process: every server of it (tests start many) describes the same files.
  described ??= describedProtos();
  new ReflectionService(described).addToServer(wrappingRegistry(server, (definition, impl) => requireToken(definition, impl, auth, refused)));
}
