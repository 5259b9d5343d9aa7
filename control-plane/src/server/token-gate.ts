// Services registered beside the control plane's own that answer token holders only (reflection, the
// health service's List): each handler checks the call's bearer token first, as the API's methods
// do, and a refused caller gets UNAUTHENTICATED before the handler sees its request.
import type { Metadata, Server, ServiceError, UntypedServiceImplementation } from "@grpc/grpc-js";
import type { CallerAuth } from "../tenants/caller-auth.js";
import { toServiceError } from "./service-error.js";

/** What a handler table is registered with (grpc-js's Server, or one that wraps what it is given). */
export type ServiceRegistry = Pick<Server, "addService">;

type MethodShapes = Record<string, { requestStream: boolean; responseStream: boolean; originalName?: string } | undefined>;
type AnyHandler = (...args: unknown[]) => void;

/** What every kind of server call has that the gate reads. */
interface GatedCall {
  readonly metadata: Metadata;
  getPath(): string;
  getPeer(): string;
}

/** Told of each refused call (the caller audits it). */
export type OnRefused = (call: GatedCall, err: unknown) => void;

/** The method a handler's name is for: handler tables name methods as the proto does or by their camelCase originalName. */
export function methodOf(definition: MethodShapes, name: string): MethodShapes[string] {
  return Object.hasOwn(definition, name) ? definition[name] : Object.values(definition).find((m) => m?.originalName === name);
}

/** A registry that passes every service's handlers through `wrap` before `server` gets them. */
export function wrappingRegistry(
  server: ServiceRegistry,
  wrap: (definition: MethodShapes, impl: UntypedServiceImplementation) => UntypedServiceImplementation,
): ServiceRegistry {
  return { addService: (definition, impl) => server.addService(definition, wrap(definition, impl)) };
}

/** The handlers, each refusing a call whose token `auth` does not accept (names in `only`, when given; every one otherwise). */
export function requireToken(
  definition: MethodShapes,
  impl: UntypedServiceImplementation,
  auth: CallerAuth,
  refused: OnRefused,
  only?: readonly string[],
): UntypedServiceImplementation {
  const gated: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(impl)) {
    const method = methodOf(definition, name);
    if (!method || (only && !only.includes(name))) {
      gated[name] = handler;
      continue;
    }
    const fn = handler as unknown as AnyHandler;
    gated[name] = ((call: GatedCall & { emit(event: "error", err: ServiceError): boolean }, callback?: (err: ServiceError | null) => void) => {
      const [header] = call.metadata.get("authorization");
      try {
        auth.authenticate(typeof header === "string" ? header : undefined);
      } catch (err) {
        refused(call, err);
        // emit, not destroy: grpc-js sends the status only for a stream that ends after "error".
        if (method.responseStream || method.requestStream) return void call.emit("error", toServiceError(err));
        return callback?.(toServiceError(err));
      }
      fn(call, callback);
    }) as unknown as typeof handler;
  }
  return gated;
}
