// A streamed message's protobuf bytes, made once. A stream's write budget (write-budget.ts) counts a
// message by its encoded size, and grpc-js then serializes it to send it: without this every event
// of a tool call was encoded twice (and copied once more): about 4 % of the control plane's CPU
// per `read` call. The budget's size function encodes and keeps the bytes beside the message; the stream's
// serializer takes them (or encodes a message the budget never saw).

interface Encoder<T> {
  encode(message: T): { finish(): Uint8Array };
}

/** Bytes made by size() and not yet taken by the serializer: held no longer than the message. */
const made = new WeakMap<object, Buffer>();

function bytesOf<T>(codec: Encoder<T>, message: T): Buffer {
  const u8 = codec.encode(message).finish();
  return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}

/** The write budget's size function for messages of `codec`: encodes once and keeps the bytes for serialize(). */
export function encodedSize<T extends object>(codec: Encoder<T>): (message: T) => number {
  return (message) => {
    const bytes = bytesOf(codec, message);
    made.set(message, bytes);
    return bytes.length;
  };
}

/** A serializer for a stream of `codec`'s messages that sends the bytes encodedSize made, when it did. */
export function serializeOnce<T extends object>(codec: Encoder<T>): (message: T) => Buffer {
  return (message) => {
    const bytes = made.get(message);
    if (!bytes) return bytesOf(codec, message);
    made.delete(message);
    return bytes;
  };
}
