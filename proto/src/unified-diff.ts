// Unified diffs, as `git diff` and `diff -u` write them, parsed and applied by jsdiff (`diff`): git's
// extended headers (renames, created and deleted files, quoted names), "\ No newline at end of
// file", and hunks that moved (as patch(1) allows) but never fuzz. This module adds what apply_patch
// needs around it: workspace paths without the a/ and b/ prefixes, errors that name the file and
// the hunk, and the refusals (no file headers, no hunks).
import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from "diff";

export type Hunk = StructuredPatchHunk;

export interface FilePatch {
  /** null for a file the patch creates. */
  oldPath: string | null;
  /** null for a file the patch deletes. */
  newPath: string | null;
  /** git's `rename from`/`rename to`: the old file goes away (`copy from`/`copy to` keeps it). */
  rename: boolean;
  copy: boolean;
  /** git's "Binary files … differ": no hunks carry the content. */
  binary: boolean;
  hunks: Hunk[];
}

export class PatchError extends Error {
  override name = "PatchError";
}

/** A hunk's header as the patch wrote it (jsdiff stores an empty side's start one higher). */
export function hunkHeader(h: Hunk): string {
  const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
  const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
  return `@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`;
}

function workspacePath(name: string | undefined, prefix: "a/" | "b/"): string | null {
  if (name === undefined || name === "/dev/null") return null;
  return name.startsWith(prefix) ? name.slice(2) : name;
}

export function parseUnifiedDiff(text: string): FilePatch[] {
  // Ours, not jsdiff's: a carriage return before a line break is content (a CRLF file's lines) unless
  // the whole patch was carried with CRLF breaks (its hunk headers end in one): then exactly one per
  // line is transport. jsdiff converts only when the target file's own breaks are all CRLF or all LF.
  let lines = text.split("\n");
  if (lines.some((l) => l.startsWith("@@ ") && l.endsWith("\r"))) lines = lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(lines.join("\n"));
  } catch (err) {
    throw new PatchError(`${(err as Error).message.trimEnd()}; each hunk's lines must match the counts in its @@ header`);
  }
  const files: FilePatch[] = [];
  for (const p of parsed) {
    if (p.oldFileName === undefined && p.newFileName === undefined) {
      // Text before or between the file sections (a commit message, prose) parses as an empty section.
      if (p.hunks.length === 0) continue;
      throw new PatchError(`a hunk (${hunkHeader(p.hunks[0] as Hunk)}) has no \`--- a/path\` and \`+++ b/path\` lines above it naming its file`);
    }
    const file: FilePatch = {
      oldPath: p.isCreate ? null : workspacePath(p.oldFileName, "a/"),
      newPath: p.isDelete ? null : workspacePath(p.newFileName, "b/"),
      rename: p.isRename === true,
      copy: p.isCopy === true,
      binary: p.isBinary === true,
      hunks: p.hunks,
    };
    const moves = file.rename || file.copy;
    if (file.hunks.length === 0 && !moves && !file.binary && file.oldPath !== null && file.newPath !== null) {
      throw new PatchError(`the patch for \`${file.newPath}\` has no hunks (apply_patch changes file content, not file modes)`);
    }
    files.push(file);
  }
  if (files.length === 0) {
    throw new PatchError("no file changes found: give a unified diff with `--- a/path`, `+++ b/path` and `@@` hunk headers");
  }
  return files;
}

function applyAll(text: string, hunks: readonly Hunk[]): string | false {
  return applyPatch(text, { oldFileName: undefined, newFileName: undefined, oldHeader: undefined, newHeader: undefined, hunks: [...hunks] });
}

/** Applies the hunks of one file to its text; throws PatchError naming the first hunk that fails. */
export function applyHunks(text: string, hunks: readonly Hunk[], path: string): string {
  let out = applyAll(text, hunks);
  // Hand-written patches often mark "\ No newline at end of file" on one side only; patch(1)
  // forgives that and so do we (jsdiff would refuse): the patch's new side decides the final newline.
  if (out === false && text !== "" && hunks[hunks.length - 1]?.lines.some((l) => l.startsWith("\\"))) {
    out = applyAll(text.endsWith("\n") ? text.slice(0, -1) : `${text}\n`, hunks);
  }
  if (out !== false) return out;
  // jsdiff says only that the patch failed: find the first hunk that does not apply after the ones
  // before it, by bisection (a prefix that fails keeps failing with more hunks), so a patch of many
  // hunks costs a few more applications, not one per hunk.
  let lo = 1;
  let hi = hunks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (applyAll(text, hunks.slice(0, mid)) === false) hi = mid;
    else lo = mid + 1;
  }
  const n = lo;
  const hunk = hunks[n - 1] as Hunk;
  throw new PatchError(
    `hunk ${n} (${hunkHeader(hunk)}) of \`${path}\` does not apply: its context and removed lines are not in the file ` +
      `(was the file changed since the diff was made? read it again and regenerate the patch)`,
  );
}
