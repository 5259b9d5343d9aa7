// Recorded transcripts: what a tool or the CLI answered, compared whole against a file kept beside the
// suite, instead of regexes over our own wording. Rewording a message is then a deliberate
// re-record (`npx vitest run <file> -u`: the file first, or vitest takes it as -u's value and runs everything), reviewed as a diff, never a silent pass or a hunt through
// assertions. What differs from run to run (ids, durations, ports, temp folders) is masked first.
import { expect } from "vitest";

/** A replacement applied before comparing: what varies between runs becomes a fixed token. */
export type Mask = readonly [RegExp, string | ((match: string) => string)];

/** Masks every transcript gets; a suite adds its own (a workspace path, a port) after these. */
export const COMMON_MASKS: readonly Mask[] = [
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g, "<time>"],
  [/\b[0-9a-f]{64}\b/g, "<sha256>"],
  [/\b\d+(?:\.\d+)? ?(?:ms|s)\b/g, "<duration>"],
  // Conversation, run and debug-session ids.
  [/\b([crs])-[0-9a-f]{6,}\b/g, (m) => `${m[0]}-<id>`],
  [/\/tmp\/[^\s"'`:)]+/g, "<tmp>"],
  [/\b(?:127\.0\.0\.1|localhost):\d{2,5}\b/g, "<loopback>"],
];

/** The text with every mask applied, common ones first. */
export function masked(text: string, extra: readonly Mask[] = []): string {
  let out = text;
  for (const [re, to] of [...COMMON_MASKS, ...extra]) out = typeof to === "string" ? out.replace(re, to) : out.replace(re, to);
  return out;
}

/**
 * Compares `text` (masked) with the recorded transcript at `file`, a path relative to the calling
 * test file (by convention `transcripts/<suite>/<name>.txt`). A missing file is written on a local
 * run and fails under CI, like every vitest snapshot; `vitest run <file> -u` re-records on purpose.
 */
export async function expectTranscript(text: string, file: string, extra: readonly Mask[] = []): Promise<void> {
  await expect(masked(text, extra)).toMatchFileSnapshot(file);
}
