// The one place that turns a caller's path into a file the agent may touch. Every handler goes
// through it; none resolves paths on its own. A path is refused when it leaves the workspace
// lexically (`..`, an absolute path elsewhere), through a symbolic link (resolved component by
// component, dangling links included), or — for reads — through a hard link, which can share an
// inode with a file outside the workspace.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";

export interface ResolvedPath {
  /** Absolute path with every symbolic link resolved. */
  abs: string;
  /** Workspace-relative path, "." for the root. */
  rel: string;
}

export type PathPurpose = "read" | "write" | "list";

function within(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** realpath that also works when the tail of the path does not exist yet (or is a dangling link). */
function realpathLoose(p: string, depth = 0): string {
  if (depth > LIMITS.symlinkDepth) throw new AgentError("invalid_argument", "too many levels of symbolic links");
  try {
    return realpathSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
  }
  let st;
  try {
    st = lstatSync(p);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) return realpathLoose(resolve(dirname(p), readlinkSync(p)), depth + 1);
  const parent = dirname(p);
  if (parent === p) return p;
  return join(realpathLoose(parent, depth + 1), basename(p));
}

export class WorkspacePaths {
  readonly root: string;

  constructor(root: string) {
    this.root = realpathSync(root);
  }

  resolve(input: string, purpose: PathPurpose): ResolvedPath {
    if (typeof input !== "string") throw new AgentError("invalid_argument", "path must be a string");
    if (input.includes("\0")) throw new AgentError("invalid_argument", "path contains a NUL byte");
    if (input.length > 4096) throw new AgentError("invalid_argument", "path is longer than 4096 characters");
    const shown = input === "" ? "." : input;
    const lexical = isAbsolute(input) ? resolve(input) : resolve(this.root, input);
    if (!within(this.root, lexical)) {
      throw new AgentError(
        "outside_workspace",
        `\`${shown}\` is outside the workspace; give a path relative to the workspace root (${this.root})`,
      );
    }
    const real = realpathLoose(lexical);
    if (!within(this.root, real)) {
      throw new AgentError(
        "outside_workspace",
        `\`${shown}\` leads outside the workspace through a symbolic link (to ${real}); refused`,
      );
    }
    if (purpose === "read") {
      let st;
      try {
        st = lstatSync(real);
      } catch {
        st = undefined;
      }
      if (st?.isFile() && st.nlink > 1) {
        throw new AgentError(
          "outside_workspace",
          `\`${shown}\` is a hard link (${st.nlink} names for one file), which may be a file outside the workspace; refused`,
        );
      }
    }
    return { abs: real, rel: relative(this.root, real) || "." };
  }

  /** Workspace-relative form of an absolute path the agent found itself (a walk, an archive). */
  relative(abs: string): string {
    return relative(this.root, abs) || ".";
  }
}
