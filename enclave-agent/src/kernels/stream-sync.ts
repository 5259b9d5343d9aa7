// Puts a kernel's frames in order with its raw output. Before every frame on fd 3 the kernel writes
// a sync marker (NUL "ENCLAVE-SYNC:" token ":" seq NUL) to fds 1 and 2; a frame is released only
// once both streams have shown its marker, so everything printed before it (by the kernel or a child
// sharing its fds) comes first. Markers are stripped; everything else passes through untouched.
const EMPTY = Buffer.alloc(0);
/** Longest run of digits a marker's sequence number may have. */
const MAX_SEQ_DIGITS = 16;

/** How many bytes at the end of buf could be the start of prefix (0 when none). */
function partialPrefix(buf: Buffer, prefix: Buffer): number {
  const from = Math.max(0, buf.length - prefix.length + 1);
  for (let at = buf.indexOf(prefix[0] ?? 0, from); at >= 0 && at < buf.length; at = buf.indexOf(prefix[0] ?? 0, at + 1)) {
    const tail = buf.subarray(at);
    if (prefix.subarray(0, tail.length).equals(tail)) return tail.length;
  }
  return 0;
}

export class SyncScanner {
  /** Highest marker seen on this stream; Infinity once the stream has ended. */
  reached = 0;
  private held: Buffer = EMPTY;

  constructor(
    private readonly prefix: Buffer,
    private readonly onData: (data: Buffer) => void,
    private readonly onMarker: (seq: number) => void = () => undefined,
  ) {}

  static prefixFor(token: string): Buffer {
    return Buffer.from(`\0ENCLAVE-SYNC:${token}:`, "latin1");
  }

  feed(chunk: Buffer): void {
    let buf = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = EMPTY;
    for (;;) {
      const at = buf.indexOf(this.prefix);
      if (at < 0) {
        const keep = partialPrefix(buf, this.prefix);
        if (buf.length > keep) this.onData(buf.subarray(0, buf.length - keep));
        this.held = keep ? Buffer.from(buf.subarray(buf.length - keep)) : EMPTY;
        return;
      }
      if (at > 0) this.onData(buf.subarray(0, at));
      const digitsFrom = at + this.prefix.length;
      const end = buf.indexOf(0, digitsFrom);
      if (end < 0) {
        if (buf.length - digitsFrom > MAX_SEQ_DIGITS) {
          // Not one of ours after all: pass the prefix through as data.
          this.onData(buf.subarray(at, digitsFrom));
          buf = buf.subarray(digitsFrom);
          continue;
        }
        this.held = Buffer.from(buf.subarray(at));
        return;
      }
      const digits = buf.subarray(digitsFrom, end).toString("latin1");
      if (/^\d{1,16}$/.test(digits)) {
        this.reached = Math.max(this.reached, Number(digits));
        this.onMarker(Number(digits));
      } else {
        this.onData(buf.subarray(at, end + 1));
      }
      buf = buf.subarray(end + 1);
    }
  }

  /** The stream ended: whatever was held back is data, and every marker counts as reached. */
  end(): void {
    if (this.held.length) this.onData(this.held);
    this.held = EMPTY;
    this.reached = Number.POSITIVE_INFINITY;
  }
}

/**
 * Splits a byte stream into newline-terminated JSON frames. A line longer than maxLineBytes is not
 * buffered: the reader reports it once and takes nothing more (the writer broke the protocol).
 */
export class FrameReader<T> {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private broken = false;

  constructor(
    private readonly onFrame: (frame: T, lineBytes: number) => void,
    private readonly onBadFrame: (line: string) => void,
    private readonly maxLineBytes = Number.POSITIVE_INFINITY,
    private readonly onOverlong: (bytes: number) => void = () => undefined,
  ) {}

  feed(chunk: Buffer): void {
    if (this.broken) return;
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
      if (this.overlong(nl - from)) return;
      this.parts.push(chunk.subarray(from, nl));
      const bytes = this.partBytes + nl - from;
      const line = Buffer.concat(this.parts).toString("utf8");
      this.parts = [];
      this.partBytes = 0;
      from = nl + 1;
      if (!line.trim()) continue;
      let frame: T;
      try {
        frame = JSON.parse(line) as T;
      } catch {
        this.onBadFrame(line);
        continue;
      }
      this.onFrame(frame, bytes);
    }
    if (from < chunk.length) {
      if (this.overlong(chunk.length - from)) return;
      this.parts.push(Buffer.from(chunk.subarray(from)));
      this.partBytes += chunk.length - from;
    }
  }

  /** Whether adding more bytes to the line being read takes it past the limit (then drops it). */
  private overlong(more: number): boolean {
    if (this.partBytes + more <= this.maxLineBytes) return false;
    this.broken = true;
    const bytes = this.partBytes + more;
    this.parts = [];
    this.partBytes = 0;
    this.onOverlong(bytes);
    return true;
  }
}
