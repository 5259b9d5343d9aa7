// One RPC of the control-plane API called raw, by the generated service definition: every field of
// the request is the caller's and nothing is checked or filled in on this side (unlike the client
// library). The answer is what a caller branches on: the gRPC status, the control plane's error code
// (its trailer) and the codes carried inside the answer (tool results, CallTools errors).
import { Client, credentials, Metadata, status, type StatusObject } from "@grpc/grpc-js";
import { ERROR_CODE_TRAILER } from "@enclave/control-plane/errors.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { ControlPlaneService } from "@enclave/proto/gen/enclave/control/v1/control.js";

export type Rpc = keyof typeof ControlPlaneService;
type Def<K extends Rpc> = (typeof ControlPlaneService)[K];
export type RequestOf<K extends Rpc> = Parameters<Def<K>["requestSerialize"]>[0];
/** What one call sends: its request, or a stream's messages in order. */
export type Sent<K extends Rpc> = Def<K>["requestStream"] extends true ? RequestOf<K>[] : RequestOf<K>;

interface AnyDef {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(value: Buffer): unknown;
}

export interface Answer {
  grpcCode: status;
  /** The control plane's code from the trailer; "" when none came (a success, or gRPC itself answered). */
  code: string;
  /** A stream that was still open (serving) when the caller stopped listening. */
  open: boolean;
  /** Error codes carried inside the answer's messages: tool results' and CallTools call errors'. */
  inner: string[];
  message: string;
}

export interface CallLimits {
  /** The call's gRPC deadline: an answer later than this is DEADLINE_EXCEEDED with no code. */
  deadlineMs: number;
  /** For streams that follow (audit, cards, hosts): stop listening after this long with no end. */
  followMs?: number;
}

/** Codes inside one answer message (ToolEvent, ToolCallEvent): a result's error_code, an error's code. */
function innerCodes(message: unknown): string[] {
  const event = (message as { event?: { $case: string; value: { errorCode?: string; isError?: boolean; code?: string } } }).event;
  if (event?.$case === "result" && event.value.isError) return [event.value.errorCode ?? ""];
  if (event?.$case === "error") return [event.value.code ?? ""];
  return [];
}

function trailerCode(metadata: Metadata | undefined): string {
  const [raw] = metadata?.get(ERROR_CODE_TRAILER) ?? [];
  return typeof raw === "string" ? raw : "";
}

export class RawApi {
  private readonly client: Client;

  constructor(
    address: string,
    ca: Buffer,
    private readonly token: string,
  ) {
    this.client = new Client(address, credentials.createSsl(ca), {
      "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
      "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
    });
  }

  close(): void {
    this.client.close();
  }

  /**
   * Calls the RPC with exactly what `sent` holds. Throws only when the request cannot be encoded at
   * all (a fault of the caller's generator, never an answer of the server).
   */
  call<K extends Rpc>(rpc: K, sent: Sent<K>, limits: CallLimits): Promise<Answer> {
    const def = ControlPlaneService[rpc] as unknown as AnyDef;
    const messages: unknown[] = def.requestStream ? (sent as unknown[]) : [sent];
    // Encoded here first so that an encoding fault is ours, not mistaken for the server's answer.
    for (const m of messages) def.requestSerialize(m);
    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${this.token}`);
    const options = { deadline: Date.now() + limits.deadlineMs };
    const serialize = (v: unknown): Buffer => def.requestSerialize(v);
    const deserialize = (b: Buffer): unknown => def.responseDeserialize(b);
    const inner: string[] = [];
    if (!def.responseStream) {
      return new Promise((resolve) => {
        this.client.makeUnaryRequest(def.path, serialize, deserialize, messages[0], metadata, options, (err, res) => {
          if (err) resolve({ grpcCode: err.code, code: trailerCode(err.metadata), open: false, inner, message: err.details });
          else resolve({ grpcCode: status.OK, code: "", open: false, inner: innerCodes(res), message: "" });
        });
      });
    }
    const duplex = def.requestStream ? this.client.makeBidiStreamRequest(def.path, serialize, deserialize, metadata, options) : undefined;
    const stream = duplex ?? this.client.makeServerStreamRequest(def.path, serialize, deserialize, messages[0], metadata, options);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (a: Answer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(follow);
        resolve(a);
      };
      stream.on("data", (m: unknown) => inner.push(...innerCodes(m)));
      // The status carries the outcome; the error event repeats it.
      stream.on("error", () => undefined);
      stream.on("status", (s: StatusObject) => settle({ grpcCode: s.code, code: trailerCode(s.metadata), open: false, inner, message: s.details }));
      const follow =
        limits.followMs === undefined
          ? undefined
          : setTimeout(() => {
              settle({ grpcCode: status.OK, code: "", open: true, inner, message: "" });
              stream.cancel();
            }, limits.followMs);
      if (duplex) {
        for (const m of messages) duplex.write(m);
        duplex.end();
      }
    });
  }
}
