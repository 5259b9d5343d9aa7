// A gRPC status message travels percent-encoded in the grpc-message trailer. One that quotes a long
// caller string (hundreds of KB, or far more once each non-ASCII character is encoded as up to 12
// bytes) makes a trailer no HTTP/2 peer takes: the status is never delivered, the call waits out its
// deadline and its connection stops answering. A lone surrogate cannot be percent-encoded at all.
// Every status either side sends goes through statusMessage first.
import { PROTOCOL_LIMITS } from "./limits.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The most bytes one UTF-16 unit can take percent-encoded (a 3-byte UTF-8 character, %XX each). */
const MAX_ENCODED_PER_UNIT = 9;

/** Percent-encoded size of one code point, at most (ASCII counted as escaped: an upper bound). */
function encodedBound(codePoint: number): number {
  if (codePoint < 0x80) return 3;
  if (codePoint < 0x800) return 6;
  if (codePoint < 0x10000) return 9;
  return 12;
}

/** The message as a status can carry it: well-formed UTF-16, cut (saying so) to at most maxBytes percent-encoded. */
export function statusMessage(text: string, maxBytes: number = PROTOCOL_LIMITS.statusMessageMaxBytes): string {
  const whole = text.replace(LONE_SURROGATE, "\uFFFD");
  if (whole.length * MAX_ENCODED_PER_UNIT <= maxBytes) return whole;
  // Room for the note that says how much was cut.
  const budget = maxBytes - 3 * 64;
  let used = 0;
  let end = 0;
  for (const ch of whole) {
    const size = encodedBound(ch.codePointAt(0) ?? 0);
    if (used + size > budget) break;
    used += size;
    end += ch.length;
  }
  if (end === whole.length) return whole;
  return `${whole.slice(0, end)}… (${whole.length - end} more characters cut)`;
}
