// A unified diff of a rewrite, built from the replacements themselves rather than by diffing the
// two texts: linear in the file's size and bounded in memory however many edits a large file gets.
// Lines touched by one replacement (or by neighbouring ones on shared lines) form a change block;
// blocks closer than two contexts share a hunk.
// Kept rather than jsdiff's createPatch: that diffs the two texts again (quadratic in the worst case
// on the 32 MiB files ast_edit accepts) to rediscover edits we already hold; jsdiff parses and
// applies what this writes (line-diff.test.ts).
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

const NO_EOL = "\\ No newline at end of file";

interface Block {
  /** First and last old line (0-based, inclusive). */
  a0: number;
  a1: number;
  newLines: string[];
  /** The new text reaches the end of the file without a final newline. */
  newNoEol: boolean;
}

function lineStartsOf(s: string): number[] {
  const starts = [0];
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function diffFromEdits(path: string, before: string, edits: readonly TextEdit[], context = 3): string {
  if (edits.length === 0) return "";
  const starts = lineStartsOf(before);
  const endsWithNewline = before.endsWith("\n");
  // The last "line" after a final newline is empty and not a line of the file.
  const lineCount = endsWithNewline ? starts.length - 1 : starts.length;
  const lineText = (i: number): string => before.slice(starts[i], (starts[i + 1] ?? before.length + 1) - 1);

  // Group edits by the old lines they touch. A block's region runs from its first line's start to
  // past its last line's newline; when the new text would not end in a newline, the next old line
  // joins the block (it is glued to the new text), possibly pulling in the next edits.
  const sorted = [...edits].sort((x, y) => x.start - y.start);
  const blocks: Block[] = [];
  let k = 0;
  while (k < sorted.length) {
    const first = sorted[k] as TextEdit;
    const a0 = lineOf(starts, first.start);
    let a1 = a0;
    const group: TextEdit[] = [];
    let text = "";
    for (;;) {
      while (k < sorted.length && lineOf(starts, (sorted[k] as TextEdit).start) <= a1) {
        const e = sorted[k] as TextEdit;
        group.push(e);
        a1 = Math.max(a1, e.end > e.start ? lineOf(starts, e.end - 1) : a1);
        k++;
      }
      const from = starts[a0] as number;
      const to = Math.max(starts[a1 + 1] ?? before.length, ...group.map((e) => e.end));
      text = "";
      let at = from;
      for (const e of group) {
        text += before.slice(at, e.start) + e.text;
        at = e.end;
      }
      text += before.slice(at, to);
      const glued = text !== "" && !text.endsWith("\n") && to < before.length;
      if (!glued) break;
      a1 = lineOf(starts, to);
    }
    const newLines = text === "" ? [] : text.split("\n");
    if (text.endsWith("\n")) newLines.pop();
    const reachesEnd = Math.max(starts[a1 + 1] ?? before.length, ...group.map((e) => e.end)) >= before.length;
    blocks.push({ a0, a1: Math.min(a1, lineCount - 1), newLines, newNoEol: reachesEnd && text !== "" && !text.endsWith("\n") });
  }

  const out = [`--- a/${path}`, `+++ b/${path}`];
  let delta = 0;
  for (let i = 0; i < blocks.length;) {
    let j = i;
    while (j + 1 < blocks.length && (blocks[j + 1] as Block).a0 - (blocks[j] as Block).a1 - 1 <= context * 2) j++;
    const first = blocks[i] as Block;
    const last = blocks[j] as Block;
    const h0 = Math.max(0, first.a0 - context);
    const h1 = Math.min(lineCount - 1, last.a1 + context);
    const body: string[] = [];
    let oldLen = 0;
    let newLen = 0;
    let line = h0;
    let hunkDelta = 0;
    for (let k = i; k <= j; k++) {
      const b = blocks[k] as Block;
      for (; line < b.a0; line++, oldLen++, newLen++) body.push(` ${lineText(line)}`);
      for (; line <= b.a1; line++, oldLen++) {
        body.push(`-${lineText(line)}`);
        if (line === lineCount - 1 && !endsWithNewline) body.push(NO_EOL);
      }
      for (const l of b.newLines) body.push(`+${l}`);
      if (b.newNoEol && b.newLines.length) body.push(NO_EOL);
      newLen += b.newLines.length;
      hunkDelta += b.newLines.length - (b.a1 - b.a0 + 1);
    }
    for (; line <= h1; line++, oldLen++, newLen++) {
      body.push(` ${lineText(line)}`);
      if (line === lineCount - 1 && !endsWithNewline) body.push(NO_EOL);
    }
    out.push(`@@ -${h0 + 1},${oldLen} +${h0 + 1 + delta},${newLen} @@`, ...body);
    delta += hunkDelta;
    i = j + 1;
  }
  return `${out.join("\n")}\n`;
}
