// What write, edit and apply_patch report as data: the files they changed, each with the same
// `path` and `change`, so a harness reads every write tool's files the same way. Paths in details are
// workspace-relative in the agent's form, whatever spelling the call used.
import { posix } from "node:path";
import { z } from "zod";

export const FILE_CHANGES = ["added", "modified", "deleted"] as const;

/** The fields every changed file has; each tool adds its own (bytes, replacements, hunks). */
export const changedFile = {
  path: z.string().describe("workspace-relative"),
  change: z.enum(FILE_CHANGES).describe("added: the file is new; deleted: it is gone"),
};

/** A workspace-relative path as the call gave it, in the agent's form (`./a/../b/` is `b`; the root is ""). */
export function workspacePath(path: string): string {
  const p = posix.normalize(path).replace(/^\.\//, "").replace(/\/$/, "");
  return p === "." ? "" : p;
}
