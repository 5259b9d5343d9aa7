// The agent's private folder for what it keeps for itself: the write journal (with the staged copies
// recovery writes from) and the kernels' Python environments. Never in the workspace (anything there
// is written by the code the agent serves) and never at a predictable path in a shared /tmp (anyone
// could plant it first). Given with --state-dir when it must outlive the agent (the enclosure's
// supervisor makes one with mktemp -d and passes it to every restart, so a journal is replayed);
// else made here with an unpredictable name and removed when the agent stops.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { AgentError } from "../errors.js";

export interface StateFolder {
  root: string;
  /** Write journals and the staged contents they name. */
  journalDir: string;
  /** Kernel environments (a venv per base Python). */
  kernelsDir: string;
  /** What language servers need beside the workspace (clangd's derived compilation databases). */
  lspDir: string;
  /** Removes what this agent made: everything when it made the folder, else its kernel environments and lsp caches. */
  dispose(): void;
}

const STATE_MODE = 0o700;

function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** A folder that is a real directory (not a link to one), owned by this process's user, closed to others. */
function checkPrivate(dir: string, what: string): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch (err) {
    throw new AgentError("failed_precondition", `${what} ${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new AgentError(
      "failed_precondition",
      `${what} ${dir} is not a directory (a symbolic link or a file); give a folder the agent's user owns, mode 0700`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new AgentError(
      "failed_precondition",
      `${what} ${dir} is owned by uid ${st.uid}, not by the agent's user (uid ${uid}); give a folder the agent's user owns, mode 0700`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    throw new AgentError("failed_precondition", `${what} ${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}); make it mode 0700`);
  }
}

/** A subfolder made (or found) private; a link or a foreign folder planted in its place is refused. */
function privateSubfolder(root: string, name: string): string {
  const dir = join(root, name);
  try {
    mkdirSync(dir, { mode: STATE_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  checkPrivate(dir, "the agent's state subfolder");
  return dir;
}

/**
 * Opens the state folder: `given` (made with mode 0700 when it does not exist yet, refused when it is
 * not private to this user or overlaps the workspace), else a new one under the system's temporary
 * folder with an unpredictable name.
 */
export function openStateFolder(given: string | undefined, workspaceRoot: string): StateFolder {
  const ws = realpathSync(workspaceRoot);
  const refuseOverlap = (dir: string): void => {
    if (inside(ws, dir) || inside(dir, ws)) {
      throw new AgentError(
        "failed_precondition",
        `the state folder ${dir} overlaps the workspace ${ws}: the workspace is written by the code the agent serves, so the agent's own state must live elsewhere`,
      );
    }
  };
  let root: string;
  let made: boolean;
  if (given) {
    root = resolve(given);
    // Checked before anything is made, so a refused folder is never created in the workspace.
    refuseOverlap(existsSync(root) ? realpathSync(root) : join(realpathOrSelf(dirname(root)), basename(root)));
    try {
      mkdirSync(root, { mode: STATE_MODE });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new AgentError(
          "failed_precondition",
          `cannot make the state folder ${root} (${(err as NodeJS.ErrnoException).code ?? String(err)}); its parent must exist`,
        );
      }
    }
    checkPrivate(root, "the state folder");
    root = realpathSync(root);
    refuseOverlap(root);
    made = false;
  } else {
    root = realpathSync(mkdtempSync(join(tmpdir(), "enclave-agent-")));
    // mkdtemp already makes it 0700; say so explicitly in case a platform's default differs.
    chmodSync(root, STATE_MODE);
    made = true;
    try {
      refuseOverlap(root);
    } catch (err) {
      rmSync(root, { recursive: true, force: true });
      throw err;
    }
  }
  const journalDir = privateSubfolder(root, "journal");
  const kernelsDir = privateSubfolder(root, "kernels");
  const lspDir = privateSubfolder(root, "lsp");
  return {
    root,
    journalDir,
    kernelsDir,
    lspDir,
    dispose() {
      rmSync(made ? root : kernelsDir, { recursive: true, force: true });
      // Derived databases and clangd's index beside them are caches: rebuilt at the next start.
      if (!made) rmSync(lspDir, { recursive: true, force: true });
    },
  };
}
