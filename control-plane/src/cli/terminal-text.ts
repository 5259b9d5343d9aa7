// Text for a terminal: what an agent wrote (tool output, card text, file names, audit details,
// error messages) may carry escape sequences that move the cursor, rewrite earlier lines, retitle
// the window or hide text from the person reading it. Every C0 control except newline and tab,
// DEL, every C1 control, and the bidirectional overrides that reorder what is shown are printed
// as visible escapes instead (ESC as \x1b, CR as \x0d, CSI as \u009b, RLO as \u202e).
// The one place the CLI's output passes through; nothing prints around it.

// C0 except \t (09) and \n (0a); DEL; C1; bidi embeddings, overrides and isolates.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

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
