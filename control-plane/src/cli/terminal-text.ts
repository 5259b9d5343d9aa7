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
