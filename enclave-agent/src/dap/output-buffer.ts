// The debuggee's stdout/stderr for `output`: bounded, keeping the newest text. What was dropped is
// counted so the reader is told, not misled.
export class OutputBuffer {
  private chunks: string[] = [];
  private bytes = 0;
  private droppedBytes = 0;
  private totalBytes = 0;

  constructor(private readonly capBytes: number) {}

  append(text: string): void {
    if (!text) return;
    // Adapters that run the program on a pty (lldb) send CRLF line ends.
    const clean = text.replace(/\r\n/g, "\n");
    const size = Buffer.byteLength(clean);
    this.chunks.push(clean);
    this.bytes += size;
    this.totalBytes += size;
    while (this.bytes > this.capBytes && this.chunks.length > 0) {
      const first = this.chunks[0] ?? "";
      const over = this.bytes - this.capBytes;
      const firstSize = Buffer.byteLength(first);
      if (firstSize <= over) {
        this.chunks.shift();
        this.bytes -= firstSize;
        this.droppedBytes += firstSize;
      } else {
        const kept = Buffer.from(first).subarray(over).toString("utf8");
        this.chunks[0] = kept;
        const keptSize = Buffer.byteLength(kept);
        this.droppedBytes += firstSize - keptSize;
        this.bytes -= firstSize - keptSize;
      }
    }
  }

  snapshot(): { text: string; droppedBytes: number; totalBytes: number } {
    return { text: this.chunks.join(""), droppedBytes: this.droppedBytes, totalBytes: this.totalBytes };
  }
}
