// The server name (SNI) a TLS ClientHello asks for, read without terminating TLS: the egress proxy
// checks it against the policy beside the CONNECT host. Undefined when the bytes are not a whole
// ClientHello record or carry no server name.

function u16(b: Buffer, at: number): number {
  return at + 2 <= b.length ? b.readUInt16BE(at) : -1;
}

export function tlsServerName(b: Buffer): string | undefined {
  // Record: type 22 (handshake), version, length; handshake: type 1 (ClientHello), 3-byte length.
  if (b.length < 9 || b[0] !== 22 || b[5] !== 1) return undefined;
  let at = 9 + 2 + 32; // client version, random
  if (at >= b.length) return undefined;
  at += 1 + (b[at] ?? 0); // session id
  const suites = u16(b, at);
  if (suites < 0) return undefined;
  at += 2 + suites;
  if (at >= b.length) return undefined;
  at += 1 + (b[at] ?? 0); // compression methods
  const extLen = u16(b, at);
  if (extLen < 0) return undefined;
  at += 2;
  const end = Math.min(b.length, at + extLen);
  while (at + 4 <= end) {
    const type = u16(b, at);
    const len = u16(b, at + 2);
    at += 4;
    if (type === 0) {
      // server_name list: 2-byte list length, then entries of type (1), 2-byte length, name.
      let p = at + 2;
      while (p + 3 <= at + len) {
        const nameType = b[p];
        const nameLen = u16(b, p + 1);
        if (nameLen < 0 || p + 3 + nameLen > b.length) return undefined;
        if (nameType === 0)
          return b
            .subarray(p + 3, p + 3 + nameLen)
            .toString("latin1")
            .toLowerCase()
            .replace(/\.$/, "");
        p += 3 + nameLen;
      }
      return undefined;
    }
    at += len;
  }
  return undefined;
}

/**
 * A tunnel's first bytes as one ClientHello record, for tlsServerName: "partial" while a TLS
 * handshake has begun but its ClientHello has not all arrived (a client may split it over many records
 * and segments, and must not slip a server name past the check that way), "malformed" when another
 * record comes before it is whole, undefined when the bytes do not begin a TLS handshake.
 */
export function clientHelloRecord(b: Buffer): Buffer | "partial" | "malformed" | undefined {
  if (b.length === 0 || b[0] !== 22) return undefined;
  const fragments: Buffer[] = [];
  let at = 0;
  for (;;) {
    const hs = Buffer.concat(fragments);
    if (hs.length >= 4) {
      const want = 4 + hs.readUIntBE(1, 3);
      if (hs.length >= want) return Buffer.concat([Buffer.from([22, b[1] ?? 3, b[2] ?? 1, (want >> 8) & 255, want & 255]), hs.subarray(0, want)]);
    }
    if (at >= b.length) return "partial";
    if (b[at] !== 22) return "malformed";
    if (at + 5 > b.length) return "partial";
    const len = b.readUInt16BE(at + 3);
    if (at + 5 + len > b.length) return "partial";
    fragments.push(b.subarray(at + 5, at + 5 + len));
    at += 5 + len;
  }
}
