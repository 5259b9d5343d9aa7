// The shape of a JSON text a tenant sent (tool arguments, a harness tool's schema), checked in one
// pass over its characters with a counter, never a recursive walk, before anything parses or walks
// it: nesting past LIMITS.argumentsMaxDepth would let later recursive code (canonical digests,
// schema validation, rendering) overflow the stack, and a flood of tiny keys costs the event loop
// far more than its bytes suggest. The text need not be valid JSON here; JSON.parse says so later.
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

export interface ShapeLimits {
  maxDepth: number;
  /** Object members plus array elements plus containers, counted together. */
  maxItems: number;
}

export const ARGUMENT_SHAPE: ShapeLimits = { maxDepth: LIMITS.argumentsMaxDepth, maxItems: LIMITS.argumentsMaxItems };

/** Throws invalid_arguments naming `what` when the text nests deeper or holds more items than allowed. Stops at the first excess. */
export function checkJsonShape(what: string, json: string, limits: ShapeLimits = ARGUMENT_SHAPE): void {
  let depth = 0;
  let items = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      items++;
      if (depth > limits.maxDepth) throw new EnclaveError("invalid_arguments", `${what} nest deeper than ${limits.maxDepth} levels of objects and arrays`);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
    else if (c === COMMA) items++;
    if (items > limits.maxItems) throw new EnclaveError("invalid_arguments", `${what} hold more than ${limits.maxItems} keys and elements in all`);
  }
}
