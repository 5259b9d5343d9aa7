// Protobuf strings must be UTF-8, but the generated decoder quietly replaces bad bytes with U+FFFD,
// which would turn a malformed call into a different, valid-looking one. CallTool requests are
// decoded strictly instead: bad bytes are still decoded leniently (so the call can be answered and
// audited) but the request is marked, and the dispatcher refuses it as invalid arguments.
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { CallToolRequest, ControlPlaneService } from "../../../proto/gen/enclave/control/v1/control.js";

export interface DecodedCallToolRequest extends CallToolRequest {
  /** Set when any string field carried bytes that are not UTF-8. */
  notUtf8?: true;
}

const fatal = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

export function decodeCallToolStrictly(buf: Buffer): DecodedCallToolRequest {
  let notUtf8 = false;
  const reader = new BinaryReader(buf, (bytes) => {
    try {
      return fatal.decode(bytes);
    } catch {
      notUtf8 = true;
      return lenient.decode(bytes);
    }
  });
  const req: DecodedCallToolRequest = CallToolRequest.decode(reader);
  if (notUtf8) req.notUtf8 = true;
  return req;
}

/** The generated service definition with CallTool's request decoded strictly. */
export const StrictControlPlaneService = {
  ...ControlPlaneService,
  callTool: { ...ControlPlaneService.callTool, requestDeserialize: decodeCallToolStrictly },
} as typeof ControlPlaneService;
