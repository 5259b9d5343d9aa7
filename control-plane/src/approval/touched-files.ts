// Which workspace files a call would touch, read from its arguments, for its permission card: a
// person must see every file before allowing. Where the arguments cannot tell (a command can change
// anything; a rename's other files are known only to the language server), the note says so rather
// than show a list that looks complete.
// apply_patch's files come from the agent's own diff parser, so the card names exactly the files
// the agent would patch, never a second reading of the same text.
import { PatchError, parseUnifiedDiff } from "@enclave/proto/unified-diff.js";
import type { PendingAction } from "../pending/pending-action-store.js";

/**
 * A path as a person should read it in a list: quoted (JSON) when it holds anything that could make
 * it pass for more than one name or for text around it (control characters, a line break, quotes, a
 * comma, leading or trailing space).
 */
export function displayPath(p: string): string {
  return /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069"\\,]|^\s|\s$|^$/.test(p) ? JSON.stringify(p) : p;
}

export interface TouchedFiles {
  files: string[];
  /** What the list cannot say; empty when it is complete. */
  note: string;
}

/** The pending action a resolve would take (edit_id, else the most recent). */
export type PendingLookup = (editId: string | undefined) => PendingAction | undefined;

type Args = Record<string, unknown>;

const ANY_FILE = "it can read and change any file of the workspace, so no list is complete";

function str(a: Args, name: string): string | undefined {
  const v = a[name];
  return typeof v === "string" ? v : undefined;
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** String arguments that name files, for tools this module does not know. */
function namedPaths(a: Args): string[] {
  const out: string[] = [];
  for (const name of ["path", "file", "paths", "files", "program"]) {
    const v = a[name];
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === "string") out.push(x);
  }
  return unique(out);
}

function patchFiles(patch: string): TouchedFiles {
  try {
    const files: string[] = [];
    for (const p of parseUnifiedDiff(patch)) {
      for (const side of [p.oldPath, p.newPath]) if (side !== null) files.push(side);
    }
    return { files: unique(files), note: "" };
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    return { files: [], note: `the patch does not parse (${err.message}); the agent will refuse it and change nothing` };
  }
}

function resolveFiles(a: Args, pending: PendingLookup | undefined): TouchedFiles {
  const editId = str(a, "edit_id");
  const action = pending?.(editId);
  if (!action) return { files: [], note: `no pending action ${editId ? `\`${editId}\`` : "to resolve"}: the call will fail and change nothing` };
  if (str(a, "action") === "discard") return { files: [], note: `discards ${action.id} (${action.label}); writes nothing` };
  if (!action.files) return { files: [], note: `${action.id} (${action.label}) from \`${action.sourceToolName}\` names no files; ${ANY_FILE}` };
  return { files: unique(action.files), note: "" };
}

export function touchedFiles(tool: string, args: unknown, pending?: PendingLookup): TouchedFiles {
  const a: Args = args && typeof args === "object" && !Array.isArray(args) ? (args as Args) : {};
  switch (tool) {
    case "write":
    case "edit":
    case "read":
      return { files: namedPaths(a), note: "" };
    case "list":
      return { files: [str(a, "path") || "."], note: "a folder: it is listed, not changed" };
    case "apply_patch":
      return patchFiles(str(a, "patch") ?? "");
    case "lsp_rename": {
      const symbol = str(a, "symbol") ?? "the symbol";
      return {
        files: namedPaths(a),
        note: `and every other file where the language server finds \`${symbol}\`: known only when it computes the rename (\`lsp\` references lists them now)`,
      };
    }
    case "resolve":
      return resolveFiles(a, pending);
    case "ast_edit":
      return {
        files: [],
        note: `stages a change only and writes nothing (within \`${str(a, "path") || "the whole workspace"}\`); the \`resolve\` that applies it lists its files on its own card`,
      };
    case "ast_grep":
    case "lsp":
      return { files: namedPaths(a), note: "" };
    case "exec":
      return { files: [], note: `runs a shell command${str(a, "cwd") ? ` in \`${str(a, "cwd")}\`` : ""}: ${ANY_FILE}` };
    case "eval":
      return { files: [], note: `runs code in a kernel: ${ANY_FILE}` };
    case "debug":
      return { files: namedPaths(a), note: `a debug session runs the program: ${ANY_FILE}` };
    case "vibe_spawn":
    case "vibe_send":
      return { files: [], note: `a vibe worker works in the conversation's workspace: ${ANY_FILE}` };
    case "ask_user":
    case "vibe_list":
    case "vibe_wait":
    case "vibe_kill":
      return { files: [], note: "" };
    default:
      return {
        files: namedPaths(a),
        note: `\`${tool}\` is not a built-in tool: files are taken from its path/file arguments, and it may touch others`,
      };
  }
}
