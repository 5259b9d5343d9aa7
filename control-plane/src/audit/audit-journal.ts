// The audit log's journal: an append-only file of events (one JSON line each) beside the database.
// An event is in the log once its line is written — one write(2), before a tool call's result goes
// out — and reaches the database in a group commit after. A write survives the process crashing, as
// the database's own WAL does with synchronous=NORMAL; lines the database did not take are replayed
// at the next start. The file is the control plane's own (its data folder), never an enclosure's.
import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";

export class AuditJournal {
  private readonly fd: number;

  constructor(readonly file: string) {
    this.fd = openSync(file, "a", 0o600);
  }

  /** Appends lines (each one event's JSON, no newline inside); throws when the write failed (a full disk). */
  append(lines: string): void {
    const buf = Buffer.from(lines, "utf8");
    let off = 0;
    // A regular file takes the whole write unless the disk fills: a short write is followed by an error.
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
  }

  get bytes(): number {
    return fstatSync(this.fd).size;
  }

  /** Forgets every line: called only when the database holds all of them. */
  clear(): void {
    ftruncateSync(this.fd, 0);
  }

  /** The events' JSON lines left in the file, in order; a line cut by a crash is skipped. */
  lines(): unknown[] {
    const out: unknown[] = [];
    for (const line of readFileSync(this.file, "utf8").split("\n")) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        // Cut by a crash mid-write: the call it recorded never got its result.
      }
    }
    return out;
  }

  close(): void {
    closeSync(this.fd);
  }
}
