// Unified diffs, as `git diff` and `diff -u` write them: parsing, and applying to text with the
// context checked line for line (a hunk may move, as patch(1) allows, but never fuzz).
export interface HunkLine {
  op: " " | "-" | "+";
  text: string;
}

export interface Hunk {
  header: string;
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: HunkLine[];
  /** "\ No newline at end of file" seen after the old side's last line. */
  oldNoEol: boolean;
  /** The same, after the new side's last line. */
  newNoEol: boolean;
}

export interface FilePatch {
  /** null for a file the patch creates. */
  oldPath: string | null;
  /** null for a file the patch deletes. */
  newPath: string | null;
  hunks: Hunk[];
}

export class PatchError extends Error {
  override name = "PatchError";
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function headerPath(line: string, prefix: "a/" | "b/"): string | null {
  let p = line.slice(4).replace(/\t.*$/, "").trim();
  if (p.startsWith('"') && p.endsWith('"')) p = JSON.parse(p) as string;
  if (p === "/dev/null") return null;
  return p.startsWith(prefix) ? p.slice(2) : p;
}

export function parseUnifiedDiff(text: string): FilePatch[] {
  // A carriage return before a line break is content (a CRLF file's lines) unless the whole patch
  // was carried with CRLF breaks (its hunk headers end in one): then exactly one per line is transport.
  let lines = text.split("\n");
  if (lines.some((l) => HUNK_RE.test(l) && l.endsWith("\r"))) lines = lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  const files: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (!(line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ "))) {
      i++;
      continue;
    }
    const file: FilePatch = { oldPath: headerPath(line, "a/"), newPath: headerPath(lines[i + 1] ?? "", "b/"), hunks: [] };
    i += 2;
    while (i < lines.length && HUNK_RE.test(lines[i] ?? "")) {
      const header = lines[i] ?? "";
      const m = HUNK_RE.exec(header);
      if (!m) break;
      const hunk: Hunk = {
        header: header.replace(/^(@@[^@]*@@).*$/, "$1"),
        oldStart: Number(m[1]),
        oldCount: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newCount: m[4] === undefined ? 1 : Number(m[4]),
        lines: [],
        oldNoEol: false,
        newNoEol: false,
      };
      i++;
      let oldSeen = 0;
      let newSeen = 0;
      while (i < lines.length && (oldSeen < hunk.oldCount || newSeen < hunk.newCount || (lines[i] ?? "").startsWith("\\"))) {
        const l = lines[i] ?? "";
        if (l.startsWith("\\")) {
          const last = hunk.lines[hunk.lines.length - 1];
          if (last?.op !== "+") hunk.oldNoEol = true;
          if (last?.op !== "-") hunk.newNoEol = true;
          i++;
          continue;
        }
        // Some editors strip the single space of an empty context line.
        const op = l === "" ? " " : l[0];
        if (op !== " " && op !== "-" && op !== "+") {
          throw new PatchError(`hunk ${hunk.header} of \`${file.newPath ?? file.oldPath}\` ends early: expected ${hunk.oldCount} old and ${hunk.newCount} new lines`);
        }
        hunk.lines.push({ op, text: l.slice(1) });
        if (op !== "+") oldSeen++;
        if (op !== "-") newSeen++;
        i++;
      }
      if (oldSeen !== hunk.oldCount || newSeen !== hunk.newCount) {
        throw new PatchError(`hunk ${hunk.header} of \`${file.newPath ?? file.oldPath}\` is truncated: its line counts do not match its header`);
      }
      file.hunks.push(hunk);
    }
    if (file.hunks.length === 0 && !(file.oldPath === null || file.newPath === null)) {
      throw new PatchError(`the patch for \`${file.newPath ?? file.oldPath}\` has no hunks`);
    }
    files.push(file);
  }
  if (files.length === 0) {
    throw new PatchError("no file changes found: give a unified diff with `--- a/path`, `+++ b/path` and `@@` hunk headers");
  }
  return files;
}

interface Lines {
  lines: string[];
  eol: boolean;
}

function splitLines(text: string): Lines {
  if (text === "") return { lines: [], eol: true };
  const eol = text.endsWith("\n");
  const lines = (eol ? text.slice(0, -1) : text).split("\n");
  return { lines, eol };
}

function matchesAt(lines: string[], at: number, expected: string[]): boolean {
  if (at < 0 || at + expected.length > lines.length) return false;
  return expected.every((l, k) => lines[at + k] === l);
}

/** Applies the hunks of one file to its text; throws PatchError naming the first hunk that fails. */
export function applyHunks(text: string, hunks: readonly Hunk[], path: string): string {
  const file = splitLines(text);
  const out = file.lines.slice();
  let eol = file.eol;
  let delta = 0;
  let floor = 0;
  for (const [n, hunk] of hunks.entries()) {
    const oldSide = hunk.lines.filter((l) => l.op !== "+").map((l) => l.text);
    const newSide = hunk.lines.filter((l) => l.op !== "-").map((l) => l.text);
    const expected = Math.max(0, hunk.oldStart - 1 + delta - (hunk.oldCount === 0 ? -1 : 0));
    let at = -1;
    for (let d = 0; d <= out.length; d++) {
      if (expected - d >= floor && matchesAt(out, expected - d, oldSide)) {
        at = expected - d;
        break;
      }
      if (matchesAt(out, expected + d, oldSide)) {
        at = expected + d;
        break;
      }
      if (expected - d < floor && expected + d > out.length) break;
    }
    if (at < 0) {
      throw new PatchError(
        `hunk ${n + 1} (${hunk.header}) of \`${path}\` does not apply: its context and removed lines are not in the file ` +
          `(was the file changed since the diff was made? read it again and regenerate the patch)`,
      );
    }
    const touchesEnd = at + oldSide.length === out.length;
    out.splice(at, oldSide.length, ...newSide);
    if (touchesEnd) eol = hunk.newNoEol ? false : hunk.oldNoEol ? true : eol;
    delta += newSide.length - oldSide.length;
    floor = at + newSide.length;
  }
  if (out.length === 0) return "";
  return out.join("\n") + (eol ? "\n" : "");
}
