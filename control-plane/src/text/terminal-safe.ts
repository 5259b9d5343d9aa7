// Text for a terminal: what an agent wrote (tool output, card text, file names, audit details,
// error messages, log lines) may carry escape sequences that move the cursor, rewrite earlier lines,
// retitle the window or hide text from the person reading it. Every C0 control except newline and
// tab, DEL, every C1 control, and the bidirectional overrides that reorder what is shown are printed
// as visible escapes instead (ESC as \x1b, CR as \x0d, CSI as \u009b, RLO as \u202e).

// C0 except \t (09) and \n (0a); DEL; C1; bidi embeddings, overrides and isolates.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}
