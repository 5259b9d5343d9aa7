// How a tool result's text parts read as one text: the control plane and the Node client join them alike.

/** Pieces of text (a result's parts) each on lines of its own: one that already ends its line needs no newline after it. */
export function joinLines(pieces: readonly string[]): string {
  return pieces.reduce((all, t, i) => (i === 0 ? t : `${all}${all.endsWith("\n") ? "" : "\n"}${t}`), "");
}
