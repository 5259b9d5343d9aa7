// Serves CallMux.Calls: the agent's unary methods called over one long-lived stream, each request
// answered once by id with exactly what the unary method answers (its response, or its status,
// message and agent error code). One message each way on an open stream costs a fraction of a new
// unary call (stream set-up, headers, trailers), which is most of a small call's price.
import {
  type handleUnaryCall,
  Metadata,
  type Server,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServiceDefinition,
  status,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { EventEmitter } from "node:events";
import { AgentErrorCode } from "@enclave/proto/gen/enclave/agent/v1/errors.js";
import type { CallMuxServer, MuxError, MuxReply, MuxRequest } from "@enclave/proto/gen/enclave/agent/v1/mux.js";
import { LIMITS } from "../limits.js";
import { trailerErrorCode } from "@enclave/proto/agent-error-trailer.js";
import { TRACEPARENT_METADATA, trailerSpans } from "@enclave/proto/agent-trace.js";

interface UnaryMethod {
  deserialize(bytes: Buffer): unknown;
  serialize(value: unknown): Buffer;
  handler: handleUnaryCall<unknown, unknown>;
}

/** The unary methods of the services a server serves, by gRPC path, for the mux to call. */
export class UnaryMethods {
  private readonly byPath = new Map<string, UnaryMethod>();

  /** Adds the service to the server, and its unary methods to the table. */
  serve<Impl extends UntypedServiceImplementation>(server: Server, definition: ServiceDefinition<Impl>, impl: Impl): void {
    server.addService(definition, impl);
    for (const [name, m] of Object.entries(definition)) {
      if (m.requestStream || m.responseStream) continue;
      this.byPath.set(m.path, {
        deserialize: m.requestDeserialize as (b: Buffer) => unknown,
        serialize: m.responseSerialize as (v: unknown) => Buffer,
        handler: impl[name] as handleUnaryCall<unknown, unknown>,
      });
    }
  }

  get(path: string): UnaryMethod | undefined {
    return this.byPath.get(path);
  }
}

function muxError(grpcCode: status, message: string, errorCode = AgentErrorCode.AGENT_ERROR_CODE_UNSPECIFIED): MuxError {
  return { grpcCode, message, errorCode };
}

/**
 * The call object a unary handler gets. The agent's handlers read only the request (the unary
 * wrapper gives them nothing else), so this carries the request and inert rest.
 */
function unaryCall(request: unknown, traceparent: string): ServerUnaryCall<unknown, unknown> {
  const metadata = new Metadata();
  // A traced call's context, where a unary call carries it (the handler's wrapper reads it there).
  if (traceparent) metadata.set(TRACEPARENT_METADATA, traceparent);
  const call = Object.assign(new EventEmitter(), {
    request,
    metadata,
    cancelled: false,
    getPeer: () => "call-mux",
    getDeadline: () => Infinity,
    getPath: () => "",
    sendMetadata: () => undefined,
  });
  return call as unknown as ServerUnaryCall<unknown, unknown>;
}

/** Runs one request: resolves with its reply, never rejects. */
function invoke(methods: UnaryMethods, req: MuxRequest): Promise<MuxReply> {
  const reply = (outcome: MuxReply["outcome"], trailers?: Metadata | null): MuxReply => {
    const spans = trailers ? trailerSpans(trailers) : undefined;
    return spans ? { id: req.id, outcome, spans } : { id: req.id, outcome };
  };
  const method = methods.get(req.method);
  if (!method) {
    return Promise.resolve(
      reply({ $case: "error", value: muxError(status.UNIMPLEMENTED, `the agent has no unary method ${JSON.stringify(req.method.slice(0, 200))}`) }),
    );
  }
  let request: unknown;
  try {
    request = method.deserialize(req.request);
  } catch (err) {
    return Promise.resolve(
      reply({ $case: "error", value: muxError(status.INTERNAL, `the request of ${req.method} could not be decoded: ${(err as Error).message}`) }),
    );
  }
  return new Promise((resolve) => {
    method.handler(unaryCall(request, req.traceparent), (err, res, trailers) => {
      if (err) {
        const message = err.details ?? ("message" in err ? err.message : "");
        resolve(
          reply(
            {
              $case: "error",
              value: muxError(err.code ?? status.UNKNOWN, message, trailerErrorCode(err.metadata) ?? AgentErrorCode.AGENT_ERROR_CODE_UNSPECIFIED),
            },
            err.metadata,
          ),
        );
        return;
      }
      let bytes: Buffer;
      try {
        bytes = method.serialize(res);
      } catch (e) {
        resolve(reply({ $case: "error", value: muxError(status.INTERNAL, `the answer of ${req.method} could not be encoded: ${(e as Error).message}`) }));
        return;
      }
      // Over the limit the whole stream would fail: this call fails alone, as a unary call would.
      if (bytes.length > LIMITS.grpcMaxMessageBytes - LIMITS.muxFrameOverheadBytes) {
        resolve(
          reply({
            $case: "error",
            value: muxError(
              status.RESOURCE_EXHAUSTED,
              `the answer of ${req.method} (${bytes.length} bytes) is over the ${LIMITS.grpcMaxMessageBytes}-byte message limit`,
            ),
          }),
        );
        return;
      }
      resolve(reply({ $case: "response", value: bytes }, trailers));
    });
  });
}

export function callMuxService(methods: UnaryMethods): CallMuxServer {
  return {
    calls(stream: ServerDuplexStream<MuxRequest, MuxReply>): void {
      let inFlight = 0;
      let halfClosed = false;
      let gone = false;
      const finishIfDone = (): void => {
        if (halfClosed && inFlight === 0 && !gone) stream.end();
      };
      stream.on("data", (req: MuxRequest) => {
        inFlight++;
        void invoke(methods, req).then((reply) => {
          inFlight--;
          // The caller left: the answer has nowhere to go (a unary call's would be dropped too).
          if (!gone) stream.write(reply);
          finishIfDone();
        });
      });
      stream.on("end", () => {
        halfClosed = true;
        finishIfDone();
      });
      stream.on("error", () => {
        gone = true;
      });
      stream.on("cancelled", () => {
        gone = true;
      });
    },
  };
}
