// The CLI's output, made safe for a terminal (text/terminal-safe.ts says what that means): the one
// place the CLI's output passes through; nothing prints around it.
import { terminalSafe } from "../text/terminal-safe.js";

export { terminalSafe };

/** Prints a line to standard output, made safe. */
export function say(text: string): void {
  process.stdout.write(`${terminalSafe(text)}\n`);
}

/** Prints a line to standard error, made safe. */
export function sayError(text: string): void {
  process.stderr.write(`${terminalSafe(text)}\n`);
}

/**
 * Streamed bytes (a command's output as it comes), decoded as UTF-8 across chunk boundaries and
 * made safe before they reach the terminal.
 */
export class SafeStream {
  private readonly decoder = new TextDecoder("utf-8");

  constructor(private readonly to: NodeJS.WritableStream) {}

  write(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (text) this.to.write(terminalSafe(text));
  }

  end(): void {
    const rest = this.decoder.decode();
    if (rest) this.to.write(terminalSafe(rest));
  }
}

/**
 * Prints a value as one line of JSON on standard output (--json). JSON.stringify already escapes
 * C0 controls; DEL and the C1 controls are escaped too, so the line is safe and still the same JSON.
 */
export function sayJson(value: unknown): void {
  const line = JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  process.stdout.write(`${line}\n`);
}
