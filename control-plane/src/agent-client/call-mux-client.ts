// The control plane's end of an agent's call mux: unary agent calls sent over one long-lived
// CallMux.Calls stream, each answered by id. The stream is opened on the first call and again after
// it breaks. What comes back is the agent's, so hostile: each call is answered at most once, so a
// reply for an id never sent or already answered closes the stream (every call in flight on it fails
// as on a lost connection); the one late reply of a call whose deadline passed is dropped; nothing in
// a reply is trusted beyond its own call.
import { type ClientDuplexStream, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { AgentErrorCode } from "@enclave/proto/gen/enclave/agent/v1/errors.js";
import type { CallMuxClient, MuxError, MuxReply, MuxRequest } from "@enclave/proto/gen/enclave/agent/v1/mux.js";
import { agentErrorTrailer } from "@enclave/proto/agent-error-trailer.js";
import { LIMITS } from "../limits.js";
import { type AgentCallSpan, startAgentCallSpan } from "../observability/trace-scope.js";

/** What the mux needs of a unary method: its path and how its messages are written and read. */
export interface MuxMethod<Req, Res> {
  path: string;
  requestSerialize(value: Req): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

interface Pending {
  resolve(bytes: Buffer): void;
  reject(err: ServiceError): void;
  timer: NodeJS.Timeout;
  /** The call's span when it is traced: ended with its answer, carrying the spans the agent sent. */
  traced?: AgentCallSpan;
}

/** A failure shaped as grpc-js reports a unary call's, so one translation serves both. */
function serviceError(code: status, details: string, agentCode = AgentErrorCode.AGENT_ERROR_CODE_UNSPECIFIED): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: agentErrorTrailer(agentCode) });
}

function fromMuxError(e: MuxError): ServiceError {
  const code = (status[e.grpcCode] === undefined ? status.UNKNOWN : e.grpcCode) as status;
  // A unary status message is bounded by the headers' size; the agent's text here is not.
  const message = e.message.length > LIMITS.muxErrorMessageChars ? `${e.message.slice(0, LIMITS.muxErrorMessageChars)}…` : e.message;
  return serviceError(code, message, e.errorCode);
}

/** A request too large to share the stream (it would hold every other call behind it): sent unary. */
export class NotForMux extends Error {}

export class CallMuxChannel {
  private stream?: ClientDuplexStream<MuxRequest, MuxReply>;
  private readonly pending = new Map<number, Pending>();
  /** Ids are never reused on a client: an id below this was sent, at or above it never was. */
  private nextId = 1;
  /** When each stream last answered anything. */
  private readonly answeredAt = new WeakMap<object, number>();
  /** Calls of this stream whose deadline passed unanswered: each may still get its one late reply. */
  private abandoned = new Set<number>();
  /** Set once the agent answered that it has no mux (an older agent): every call goes unary. */
  unsupported = false;
  private closed = false;

  constructor(private readonly client: CallMuxClient) {}

  /**
   * Calls `method` with `req` over the stream, failing with DEADLINE_EXCEEDED after timeoutMs. A
   * request over the message limit fails alone (RESOURCE_EXHAUSTED), as a unary call would; sent, it
   * would break the stream for every call on it.
   */
  call<Req, Res>(method: MuxMethod<Req, Res>, req: Req, timeoutMs: number): Promise<Res> {
    const request = method.requestSerialize(req);
    if (request.length > LIMITS.muxMaxRequestBytes) return Promise.reject(new NotForMux());
    if (this.closed) return Promise.reject(serviceError(status.UNAVAILABLE, "the agent client is closed"));
    const id = this.nextId++;
    const stream = this.open();
    const sentAt = performance.now();
    const traced = startAgentCallSpan(method.path);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        traced?.end(status.DEADLINE_EXCEEDED);
        // Nothing answered on the stream since this call was sent: the agent is not reading it (what
        // was sent stays queued here) or is stuck, so the stream is replaced and what it held freed.
        // So is one with too many calls past their deadline (their answers go with it).
        if ((this.answeredAt.get(stream) ?? -Infinity) < sentAt || this.abandoned.size >= LIMITS.muxAbandonedCallsMax) this.reset();
        else this.abandoned.add(id);
        reject(serviceError(status.DEADLINE_EXCEEDED, `no answer to ${method.path} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, traced ? { resolve, reject, timer, traced } : { resolve, reject, timer });
      stream.write({ id, method: method.path, request, traceparent: traced?.traceparent ?? "" });
    }).then((bytes) => {
      try {
        return method.responseDeserialize(bytes);
      } catch (err) {
        throw serviceError(status.INTERNAL, `the agent's answer to ${method.path} could not be decoded: ${(err as Error).message}`);
      }
    });
  }

  close(): void {
    this.closed = true;
    this.fail(serviceError(status.CANCELLED, "the agent client was closed during the call"));
    this.stream?.cancel();
    this.stream = undefined;
  }

  private open(): ClientDuplexStream<MuxRequest, MuxReply> {
    if (this.stream) return this.stream;
    const stream = this.client.calls(new Metadata());
    this.stream = stream;
    this.abandoned = new Set();
    stream.on("data", (reply: MuxReply) => {
      this.answeredAt.set(stream, performance.now());
      this.settle(stream, reply);
    });
    const broken = (err: ServiceError | undefined): void => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      // An agent without the mux refuses the stream before anything runs; one that answered on it has it.
      if (err?.code === status.UNIMPLEMENTED && !this.answeredAt.has(stream)) this.unsupported = true;
      // Whether the agent ran these calls is unknown: they fail as a lost connection fails a unary call.
      this.fail(err ?? serviceError(status.UNAVAILABLE, "the agent ended the call stream"));
    };
    stream.on("error", (err: ServiceError) => broken(err));
    stream.on("end", () => broken(undefined));
    return stream;
  }

  private settle(stream: ClientDuplexStream<MuxRequest, MuxReply>, reply: MuxReply): void {
    // A stream already given up on: nothing it says is read.
    if (this.stream !== stream) return;
    const id = reply.id;
    const p = this.pending.get(id);
    if (!p) {
      // The one late answer of a call whose deadline passed: dropped. Anything else (an id never sent,
      // a second answer): the agent is not speaking the protocol, and nothing more it says on this
      // stream is believed.
      if (this.abandoned.delete(id)) return;
      this.stream = undefined;
      stream.cancel();
      this.fail(serviceError(status.INTERNAL, `the agent answered a call it was not asked or had answered already (id ${String(id).slice(0, 20)})`));
      return;
    }
    this.pending.delete(id);
    clearTimeout(p.timer);
    const outcome = reply.outcome;
    p.traced?.end(outcome?.$case === "response" ? status.OK : outcome?.$case === "error" ? fromMuxError(outcome.value).code : status.INTERNAL, reply.spans);
    if (outcome?.$case === "response") p.resolve(outcome.value);
    else if (outcome?.$case === "error") p.reject(fromMuxError(outcome.value));
    else p.reject(serviceError(status.INTERNAL, "the agent's answer carried neither a response nor an error"));
  }

  /** Drops the stream: its calls in flight fail as on a lost connection, the next call opens another. */
  private reset(): void {
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
    this.fail(serviceError(status.UNAVAILABLE, "too many calls on the agent's call stream went unanswered; it was replaced"));
  }

  private fail(err: ServiceError): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) {
      clearTimeout(p.timer);
      p.traced?.end(err.code);
      p.reject(err);
    }
  }
}
