// Protobuf strings must be UTF-8, but the generated decoder quietly replaces bad bytes with U+FFFD,
// which would turn a malformed call into a different, valid-looking one. CallTool requests and
// CallTools frames are decoded strictly instead: bad bytes are still decoded leniently (so the call
// can be answered and audited) but the request is marked, and the dispatcher refuses it as invalid
// arguments.
//
// A request the generated decoder cannot decode at all (an int64 past 2^53, which a JavaScript number
// cannot hold exactly; cut or garbled bytes) would make grpc-js answer INTERNAL with no error code, or
// end a whole stream. Every request is decoded here instead, and one that does not decode comes back
// as an Undecodable mark, which the service refuses as invalid_arguments (refuseUndecodable).
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { CallToolRequest, ControlPlaneService, ToolCallEvent, ToolCallFrame, ToolEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { serializeOnce } from "../streams/encoded-once.js";

export interface DecodedCallToolRequest extends CallToolRequest {
  /** Set when any string field carried bytes that are not UTF-8. */
  notUtf8?: true;
}

export interface DecodedToolCallFrame extends ToolCallFrame {
  /** Set when any string field carried bytes that are not UTF-8. */
  notUtf8?: true;
  /** Set when the frame is not a ToolCallFrame at all (its call_id is kept when it could be read). */
  malformed?: string;
}

const fatal = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/** Decodes with a reader that marks bad UTF-8 instead of hiding it. */
function decodeStrictly<T>(buf: Uint8Array, decode: (reader: BinaryReader) => T): { value: T; notUtf8: boolean } {
  let notUtf8 = false;
  const reader = new BinaryReader(buf, (bytes) => {
    try {
      return fatal.decode(bytes);
    } catch {
      notUtf8 = true;
      return lenient.decode(bytes);
    }
  });
  const value = decode(reader);
  return { value, notUtf8 };
}

export function decodeCallToolStrictly(buf: Buffer): DecodedCallToolRequest {
  const { value, notUtf8 } = decodeStrictly(buf, (r) => CallToolRequest.decode(r));
  const req: DecodedCallToolRequest = value;
  if (notUtf8) req.notUtf8 = true;
  return req;
}

/** A frame's call_id read field by field, as far as the bytes allow (0 when there is none to read). */
function salvageCallId(buf: Uint8Array): number {
  try {
    const reader = new BinaryReader(buf);
    while (reader.pos < reader.len) {
      const [no, wireType] = reader.tag();
      if (no === 1 && wireType === WireType.Varint) return reader.uint32();
      reader.skip(wireType, no);
    }
  } catch {
    // Cut or garbled past this point: no id.
  }
  return 0;
}

/**
 * A CallTools frame. It never throws: grpc-js would end the whole session over one undecodable
 * frame, so such a frame comes back marked `malformed` and only its call is refused.
 */
export function decodeToolCallFrameStrictly(buf: Buffer): DecodedToolCallFrame {
  try {
    const { value, notUtf8 } = decodeStrictly(buf, (r) => ToolCallFrame.decode(r));
    const frame: DecodedToolCallFrame = value;
    if (notUtf8) frame.notUtf8 = true;
    return frame;
  } catch (err) {
    return { callId: salvageCallId(buf), frame: undefined, malformed: err instanceof Error ? err.message : String(err) };
  }
}

const UNDECODABLE = Symbol("undecodable");

/** What a request that did not decode is handed to its handler as. */
export interface Undecodable {
  [UNDECODABLE]: string;
}

/** Why the request (or stream message) did not decode, or undefined when it did. */
export function undecodableReason(request: unknown): string | undefined {
  return typeof request === "object" && request !== null && UNDECODABLE in request ? (request as Undecodable)[UNDECODABLE] : undefined;
}

/** A decoder that never throws: what it cannot decode comes back marked with the reason. */
function orUndecodable<T>(typeName: string, decode: (buf: Buffer) => T): (buf: Buffer) => T {
  return (buf) => {
    try {
      return decode(buf);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      // A mark, not a request: refuseUndecodable (control-plane-service.ts) and the host streams look for it first.
      return {
        [UNDECODABLE]: `the request is not a valid ${typeName} (${why}): its bytes are cut or garbled, or an int64 field is past 2^53 - 1, which no field of this API takes`,
      } as unknown as T;
    }
  };
}

type Definition = typeof ControlPlaneService;
const strictDecoders: Partial<Record<keyof Definition, (buf: Buffer) => unknown>> = {
  callTool: decodeCallToolStrictly,
  callTools: decodeToolCallFrameStrictly,
};

/** The tool streams' events are sent as their write budget encoded them (see encoded-once.ts). */
const onceEncoders: Partial<Record<keyof Definition, (message: never) => Buffer>> = {
  callTool: serializeOnce(ToolEvent),
  callTools: serializeOnce(ToolCallEvent),
};

/**
 * The generated service definition with every request decoded by a decoder that never throws, and
 * CallTool's request and CallTools' frames decoded strictly.
 */
export const StrictControlPlaneService = Object.fromEntries(
  Object.entries(ControlPlaneService).map(([name, def]) => {
    const decode = strictDecoders[name as keyof Definition] ?? (def.requestDeserialize as (buf: Buffer) => unknown);
    const typeName = name.charAt(0).toUpperCase() + name.slice(1);
    const serialize = onceEncoders[name as keyof Definition] ?? def.responseSerialize;
    return [name, { ...def, requestDeserialize: orUndecodable(`${typeName} request`, decode), responseSerialize: serialize }];
  }),
) as unknown as Definition;
