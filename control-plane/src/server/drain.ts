// Draining for a graceful stop (SIGTERM): from the moment it starts, every new call is refused with
// UNAVAILABLE and the stable code `draining`, while the calls already in flight run to their end,
// bounded by LIMITS.drainMaxMs. Subscriptions and host streams are not waited for (they last as long
// as their client wants); they end when the server closes. A CallTools session counts each of its
// calls in flight and ends itself once they are answered (it listens with onDraining).
import type { ServiceDefinition, ServiceError, UntypedServiceImplementation } from "@grpc/grpc-js";
import { within } from "@enclave/proto/wait.js";
import { EnclaveError } from "../errors.js";
import { toServiceError } from "./service-error.js";

type AnyHandler = (...args: unknown[]) => void;

interface CallLike {
  once(event: string, listener: () => void): unknown;
  emit(event: string, ...args: unknown[]): boolean;
}

function drainingError(): ServiceError {
  return toServiceError(
    new EnclaveError(
      "draining",
      "the control plane is shutting down and takes no new calls; retry once it is back (conversations, runs and enclosures are kept)",
    ),
  );
}

export class Drain {
  private draining = false;
  private inFlight = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly drainingListeners = new Set<() => void>();

  get isDraining(): boolean {
    return this.draining;
  }

  get callsInFlight(): number {
    return this.inFlight;
  }

  /** Runs listener once draining starts (at once when it has); returns the function that stops listening. */
  onDraining(listener: () => void): () => void {
    if (this.draining) {
      listener();
      return () => undefined;
    }
    this.drainingListeners.add(listener);
    return () => this.drainingListeners.delete(listener);
  }

  /** Stops taking calls from now on (what drain and a plain close both start with). */
  stopTaking(): void {
    if (this.draining) return;
    this.draining = true;
    const listeners = [...this.drainingListeners];
    this.drainingListeners.clear();
    for (const l of listeners) l();
  }

  /** Stops taking calls; resolves true once none is in flight, or false when maxMs passed first. */
  async drain(maxMs: number): Promise<boolean> {
    this.stopTaking();
    if (this.inFlight === 0) return true;
    return within(new Promise<true>((resolve) => this.waiters.push(() => resolve(true))), maxMs, false);
  }

  /** Counts a call in; the returned function counts it out (once, however often it is called). */
  enter(): () => void {
    this.inFlight++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight--;
      if (this.inFlight === 0) for (const w of this.waiters.splice(0)) w();
    };
  }

  /**
   * The service's handlers, each refusing new calls while draining. Unary calls and server streams
   * (CallTool) are counted in flight until they answer; client and bidirectional streams are not.
   */
  wrap<S extends UntypedServiceImplementation>(definition: ServiceDefinition, impl: S): S {
    const wrapped: UntypedServiceImplementation = {};
    for (const [name, handler] of Object.entries(impl)) {
      const method = definition[name];
      const fn = handler as unknown as AnyHandler;
      if (!method) {
        wrapped[name] = handler;
      } else if (!method.requestStream && !method.responseStream) {
        wrapped[name] = ((call: unknown, callback: (err: ServiceError | null, res?: unknown) => void) => {
          if (this.draining) return callback(drainingError(), null);
          const leave = this.enter();
          fn(call, (err: ServiceError | null, res?: unknown) => {
            leave();
            callback(err, res);
          });
        }) as unknown as typeof handler;
      } else {
        const counted = !method.requestStream;
        wrapped[name] = ((call: CallLike, ...rest: unknown[]) => {
          // emit, not destroy: grpc-js sends the status only for a stream that ends after "error".
          if (this.draining) return void call.emit("error", drainingError());
          if (counted) {
            const leave = this.enter();
            for (const event of ["finish", "close", "cancelled", "error"]) call.once(event, leave);
          }
          fn(call, ...rest);
        }) as unknown as typeof handler;
      }
    }
    return wrapped as S;
  }
}
