// Where clangd's compilation database comes from, per root. clangd indexes a project (and so renames
// and finds references beyond the open files) only from a compile_commands.json; with just
// compile_flags.txt (or a Makefile) it sees the files open in it, and a rename changes 2 of 27 uses.
// Where the project has no compile_commands.json, the agent derives one — compile_flags.txt's
// arguments (or none: clangd's own default) for every C/C++ source under the root — and keeps it in
// its private state folder, never in the user's workspace; clangd is pointed at it with
// --compile-commands-dir (and keeps its index beside it). Where none can be derived, project-wide
// operations are refused with what to add.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { LIMITS } from "../limits.js";

export type CompileCommandsKind = "project" | "derived" | "open_files";

export interface CompileCommandsMode {
  kind: CompileCommandsKind;
  /** Arguments added to the server's command line. */
  args: string[];
  /** How the server sees the root, for status. */
  describe: string;
  /** Derived: the sources listed (absolute), to notice files added since. */
  sources: string[];
  /** open_files: why a project-wide operation is refused, and what to add. */
  refusal?: string;
}

const SOURCES = new Set([".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm"]);
const CXX = new Set([".cc", ".cpp", ".cxx", ".c++", ".mm"]);
const SKIP = new Set(["node_modules", "__pycache__", "target", "venv"]);
const WHAT_TO_ADD = "add a compile_commands.json at the root (`cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON`, or `bear -- make`), then call lsp with action reload";

/** The project's own database, where clangd looks for it (the root, or its build/ folder). */
function projectDatabase(root: string): string | undefined {
  for (const p of [join(root, "compile_commands.json"), join(root, "build", "compile_commands.json")]) if (existsSync(p)) return p;
  return undefined;
}

/** C/C++ sources under `root` (links not followed, hidden and vendored folders skipped), or undefined past the caps. */
function listSources(root: string): string[] | undefined {
  const out: string[] = [];
  const stack = [root];
  let seen = 0;
  while (stack.length) {
    const dir = stack.pop() as string;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > LIMITS.lspDerivedWalkEntriesMax) return undefined;
      if (e.name.startsWith(".")) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) stack.push(p);
      } else if (e.isFile() && SOURCES.has(extname(e.name).toLowerCase())) {
        out.push(p);
        if (out.length > LIMITS.lspDerivedSourcesMax) return undefined;
      }
    }
  }
  return out.sort();
}

/** compile_flags.txt's arguments: one per line, as clangd reads them. */
function flagsOf(root: string): string[] | undefined {
  const p = join(root, "compile_flags.txt");
  if (!existsSync(p)) return undefined;
  try {
    return readFileSync(p, "utf8")
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** The folder for one root's derived database under the state folder. */
export function derivedDatabaseDir(stateDir: string, root: string): string {
  return join(stateDir, "clangd", createHash("sha256").update(root).digest("hex").slice(0, 16));
}

/** Writes the file only when its content changes (clangd rereads a changed database), atomically. */
function writeIfChanged(file: string, content: string): void {
  try {
    if (readFileSync(file, "utf8") === content) return;
  } catch {
    // Not there yet.
  }
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * How clangd should see `root`. With `write`, a derived database is (re)written; without, only
 * described (status).
 */
export function compileCommandsFor(root: string, workspaceRoot: string, stateDir: string | undefined, write: boolean): CompileCommandsMode {
  const shown = relative(workspaceRoot, root) || ".";
  const own = projectDatabase(root);
  if (own) return { kind: "project", args: [], sources: [], describe: `\`${shown}\`: the project's ${relative(workspaceRoot, own)} (project-wide index)` };
  const sources = listSources(root);
  if (!stateDir || sources === undefined) {
    const why =
      sources === undefined
        ? `it has more than ${LIMITS.lspDerivedSourcesMax} C/C++ sources to list in a derived one`
        : "the agent has no state folder to derive one in";
    const refusal = `clangd sees only the files open in it for \`${shown}\`: there is no compile_commands.json and ${why}; ${WHAT_TO_ADD}`;
    return { kind: "open_files", args: [], sources: [], describe: `\`${shown}\`: open files only (${refusal})`, refusal };
  }
  const flags = flagsOf(root);
  const from =
    flags === undefined
      ? "with clangd's default flags (no compile_flags.txt; add one, or a compile_commands.json, for the project's flags)"
      : "from compile_flags.txt";
  const dir = derivedDatabaseDir(stateDir, root);
  if (write) {
    const entries = sources.map((file) => ({
      directory: root,
      file,
      arguments: [CXX.has(extname(file).toLowerCase()) ? "clang++" : "clang", ...(flags ?? []), "-c", file],
    }));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeIfChanged(join(dir, "compile_commands.json"), `${JSON.stringify(entries, null, 1)}\n`);
  }
  return {
    kind: "derived",
    args: [`--compile-commands-dir=${dir}`],
    sources,
    describe: `\`${shown}\`: a compile_commands.json derived ${from} for its ${sources.length} C/C++ source${sources.length === 1 ? "" : "s"}, kept in the agent's state folder (project-wide index)`,
  };
}

/** Whether the sources under a derived root changed since `mode` was made (a file added or removed). */
export function sourcesChanged(mode: CompileCommandsMode, root: string): boolean {
  if (mode.kind !== "derived") return false;
  const now = listSources(root);
  return now === undefined || now.length !== mode.sources.length || now.some((f, i) => f !== mode.sources[i]);
}
