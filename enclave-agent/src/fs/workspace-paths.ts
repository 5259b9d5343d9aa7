// The one place that turns a caller's path into a file the agent may touch. Every handler goes
// through it; none opens a workspace path by name. A path is walked one component at a time from an
// open handle on the workspace root, each folder opened with O_NOFOLLOW through the handle of the one
// before (see WorkspaceDir), so checking a path and using it are the same act: swapping a folder for
// a link between the two cannot send the operation anywhere else. The kernel never follows a link
// here; a link met on the way is read and its target walked the same way, from the handles already
// held, and refused when it leaves the workspace. Reads also refuse hard links, which can share an
// inode with a file outside the workspace; that check is made on the open descriptor.
import { closeSync, read, readSync, realpathSync, type Stats, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { AgentError, asAgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { checkReadable, errnoError, errnoOf, type OpenFile, type PathPurpose, WorkspaceDir } from "./workspace-dir.js";

export type { OpenFile, PathPurpose } from "./workspace-dir.js";
export { WorkspaceDir } from "./workspace-dir.js";

export interface ResolvedPath {
  /** Absolute path with every symbolic link resolved. */
  abs: string;
  /** Workspace-relative path, "." for the root. */
  rel: string;
}

/**
 * Where a path leads: the open folder that holds it and its name there, or (name null) the folder
 * itself. The holder closes it with `close()`.
 */
export interface Location {
  dir: WorkspaceDir;
  name: string | null;
  rel: string;
  close(): void;
}

interface WalkOptions {
  /** "parent": stop before the last component (then name it); "dir": open it as a folder too. */
  until: "parent" | "dir";
  /** Follow a link in the last place (always done in the middle). */
  followFinal: boolean;
  /** Make missing folders on the way (writes). */
  create: boolean;
  /** Past a missing folder, finish the path lexically instead of failing (naming only). */
  loose: boolean;
}

/** Where a walk ended (see Location), and the last name's lstat when the walk took it (`followFinal`). */
interface Walked {
  dir: WorkspaceDir;
  name: string | null;
  rel: string;
  st?: Stats | undefined;
}

/** Retries when the tree changes under a walk (a folder swapped for a link and back): bounded. */
const RACE_RETRIES = 8;

function within(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

function components(path: string): string[] {
  return path.split("/").filter((c) => c !== "" && c !== ".");
}

/** The answer when the tree keeps changing under a walk for longer than its retries. */
function keptChanging(rel: string): AgentError {
  return new AgentError(
    "failed_precondition",
    `\`${rel}\` kept changing while the agent walked it (replaced by a link or removed, again and again); nothing was done, try again`,
  );
}

class Escape extends Error {
  constructor(readonly target: string) {
    super(target);
  }
}

export class WorkspacePaths {
  readonly root: string;
  private readonly rootParts: string[];
  private rootDir: WorkspaceDir;

  constructor(root: string) {
    this.root = realpathSync(root);
    this.rootParts = components(this.root);
    this.rootDir = WorkspaceDir.openRoot(this.root);
    // Everything below goes through /proc/self/fd: without it no file could be reached safely.
    let viaProc: Stats | undefined;
    try {
      viaProc = statSync(this.rootDir.at());
    } catch {
      viaProc = undefined;
    }
    const direct = statSync(this.root);
    if (!viaProc || viaProc.ino !== direct.ino || viaProc.dev !== direct.dev) {
      throw new Error(`the agent needs /proc mounted (it opens workspace files through /proc/self/fd), and ${this.rootDir.at()} is not ${this.root}`);
    }
  }

  /**
   * Opens the root again by its path: a warm-pool enclosure's workspace is mounted over the (empty)
   * folder the agent opened at start, and the old handle would keep showing the empty folder. Only
   * called when the agent is told its conversation, before any call of the conversation's.
   */
  reopenRoot(): void {
    if (realpathSync(this.root) !== this.root)
      throw new AgentError("failed_precondition", `the workspace root ${this.root} now resolves elsewhere; refusing to follow it`);
    const fresh = WorkspaceDir.openRoot(this.root);
    const old = this.rootDir;
    this.rootDir = fresh;
    old.close();
  }

  /** The input's components relative to the root, after the lexical checks every path gets. */
  private lexical(input: string): { parts: string[]; shown: string } {
    if (typeof input !== "string") throw new AgentError("invalid_argument", "path must be a string");
    if (input.includes("\0")) throw new AgentError("invalid_argument", "path contains a NUL byte");
    if (input.length > 4096) throw new AgentError("invalid_argument", "path is longer than 4096 characters");
    const shown = input === "" ? "." : input;
    // A plain relative path (no empty, `.` or `..` component: the common case) is already its own
    // components below the root; resolving it would give back the same.
    if (input !== "" && !isAbsolute(input)) {
      const parts = input.split("/");
      if (parts.every((c) => c !== "" && c !== "." && c !== "..")) return { parts, shown };
    }
    const lexical = isAbsolute(input) ? resolve(input) : resolve(this.root, input);
    if (!within(this.root, lexical)) {
      throw new AgentError("outside_workspace", `\`${shown}\` is outside the workspace; give a path relative to the workspace root (${this.root})`);
    }
    return { parts: components(relative(this.root, lexical)), shown };
  }

  private escaped(shown: string, target: string): AgentError {
    return new AgentError("outside_workspace", `\`${shown}\` leads outside the workspace through a symbolic link (to ${target}); refused`);
  }

  /**
   * Walks `parts` from the root handle. Returns the open folder reached and the last name (unopened
   * when `until` is "parent"); every other handle it opened is closed.
   */
  private walk(parts: string[], opts: WalkOptions): Walked {
    const stack: WorkspaceDir[] = [this.rootDir];
    const top = (): WorkspaceDir => stack[stack.length - 1] as WorkspaceDir;
    const queue = [...parts];
    let links = 0;
    let retries = 0;
    // Where the last link followed points, for the message if its `..` climbs out of the root.
    let lastTarget = "";
    /** Follows the link `name`; false when it is no longer a link (changed meanwhile: look again). */
    const follow = (name: string): boolean => {
      if (++links > LIMITS.symlinkDepth) throw new AgentError("invalid_argument", "too many levels of symbolic links");
      let target: string;
      try {
        target = top().readlink(name);
      } catch (err) {
        const code = errnoOf(err);
        if (code === "EINVAL" || code === "ENOENT") {
          if (retries++ >= RACE_RETRIES) throw keptChanging(top().relOf(name));
          links--;
          return false;
        }
        throw err;
      }
      lastTarget = resolve(top().absUnder(this.root), target);
      const comps = components(target);
      if (isAbsolute(target)) {
        if (!this.rootParts.every((c, i) => comps[i] === c)) throw new Escape(lastTarget);
        while (stack.length > 1) stack.pop()?.close();
        queue.unshift(...comps.slice(this.rootParts.length));
      } else {
        queue.unshift(...comps);
      }
      return true;
    };
    const finish = (name: string | null, rel: string, st?: Stats): Walked => {
      const dir = stack.pop() as WorkspaceDir;
      for (const d of stack) d.close();
      return { dir, name, rel, st };
    };
    try {
      while (queue.length > 0) {
        const name = queue.shift() as string;
        if (name === "..") {
          // Only a link's target can hold `..` here: the input was normalized.
          if (stack.length === 1) throw new Escape(lastTarget || resolve(this.root, ".."));
          stack.pop()?.close();
          continue;
        }
        const last = queue.length === 0;
        if (last && opts.until === "parent") {
          const st = opts.followFinal ? top().lstatOrUndefined(name) : undefined;
          if (st?.isSymbolicLink()) {
            if (!follow(name)) queue.unshift(name);
            continue;
          }
          return finish(name, top().relOf(name), st);
        }
        try {
          stack.push(top().openDir(name));
        } catch (err) {
          const st = top().lstatOrUndefined(name);
          // A file there that the open could not take (no read permission, a socket) is simply
          // not a folder.
          const code = st && !st.isDirectory() && !st.isSymbolicLink() ? "ENOTDIR" : errnoOf(err);
          if ((code === "ENOTDIR" || code === "ELOOP") && st?.isSymbolicLink()) {
            if (!follow(name)) queue.unshift(name);
            continue;
          }
          // What the open met is not what is there now (a folder swapped for a link and back, or
          // gone): look again, a bounded number of times.
          const changed = code === "ENOENT" ? st?.isDirectory() || st?.isSymbolicLink() : (code === "ENOTDIR" || code === "ELOOP") && (!st || st.isDirectory());
          if (changed) {
            if (retries++ < RACE_RETRIES) {
              queue.unshift(name);
              continue;
            }
            throw keptChanging(top().relOf(name));
          }
          if (code === "ENOENT" && !st && opts.create && retries++ < RACE_RETRIES) {
            try {
              top().mkdir(name);
            } catch (e) {
              if (errnoOf(e) !== "EEXIST") throw e;
            }
            queue.unshift(name);
            continue;
          }
          if (code === "ENOENT" && !st && opts.loose) {
            // Nothing exists past here to follow: the rest of the path is only a name.
            const rest = [name, ...queue];
            const rel = relative(this.root, resolve(top().absUnder(this.root), ...rest)) || ".";
            if (!within(this.root, join(this.root, rel))) throw new Escape(join(this.root, rel));
            return finish(null, rel);
          }
          if (code === "ENOTDIR" && last && opts.until === "dir") {
            throw new AgentError("invalid_argument", `\`${top().relOf(name)}\` is not a directory`);
          }
          if (code === "ENOTDIR") throw errnoError("ENOTDIR", `not a directory: '${top().relOf(name)}'`);
          throw err;
        }
      }
      return finish(null, top().rel);
    } catch (err) {
      for (const d of stack) d.close();
      throw err;
    }
  }

  private run<T>(input: string, fn: (parts: string[], shown: string) => T): T {
    const { parts, shown } = this.lexical(input);
    try {
      return fn(parts, shown);
    } catch (err) {
      if (err instanceof Escape) throw this.escaped(shown, err.target);
      throw asAgentError(err, shown);
    }
  }

  /**
   * Names the file a path leads to, links inside the workspace resolved — for what cannot take a
   * handle (another process: a language server, a debugger, a command's folder) and for messages
   * and keys. Never open the returned path: use the methods below.
   */
  resolve(input: string, purpose: PathPurpose): ResolvedPath {
    return this.run(input, (parts) => {
      const w = this.walk(parts, { until: "parent", followFinal: true, create: false, loose: true });
      try {
        // The walk's own lstat of the last name (it looked to see whether that is a link): the
        // name is only named here, and whatever opens it later checks its descriptor again.
        if (purpose === "read" && w.name !== null) {
          const st = w.st;
          if (st?.isFile() && st.nlink > 1) checkReadable(st, w.rel, "read");
        }
      } finally {
        w.dir.close();
      }
      return { abs: w.rel === "." ? this.root : join(this.root, w.rel), rel: w.rel };
    });
  }

  /** The folder holding what a path leads to (links on the way and at the end followed), held open. */
  locate(input: string, opts: { create?: boolean; followFinal?: boolean } = {}): Location {
    return this.run(input, (parts) => {
      const w = this.walk(parts, { until: "parent", followFinal: opts.followFinal ?? true, create: opts.create ?? false, loose: false });
      return { dir: w.dir, name: w.name, rel: w.rel, close: () => w.dir.close() };
    });
  }

  /** An open folder of the workspace (the path's links followed; `create`: mkdir -p); the caller closes it. */
  openDir(input: string, opts: { create?: boolean } = {}): WorkspaceDir {
    return this.run(input, (parts) => {
      const w = this.walk(parts, { until: "dir", followFinal: true, create: opts.create ?? false, loose: false });
      return w.dir;
    });
  }

  /** Status of what a path leads to (links followed, inside the workspace only). */
  stat(input: string, purpose: PathPurpose): { st: Stats; rel: string } {
    return this.run(input, (parts) => {
      for (let attempt = 0; ; attempt++) {
        const w = this.walk(parts, { until: "parent", followFinal: true, create: false, loose: false });
        try {
          if (w.name === null) return { st: w.dir.stat(), rel: w.rel };
          const st = w.dir.lstat(w.name);
          // A link put there after the walk looked: walk again.
          if (!st.isSymbolicLink() || attempt >= RACE_RETRIES) {
            if (purpose === "read" && st.isFile() && st.nlink > 1) checkReadable(st, w.rel, "read");
            return { st, rel: w.rel };
          }
        } finally {
          w.dir.close();
        }
      }
    });
  }

  /** Like stat, but undefined when nothing is there (other refusals still throw). */
  statIfExists(input: string, purpose: PathPurpose): { st: Stats; rel: string } | undefined {
    try {
      return this.stat(input, purpose);
    } catch (err) {
      if (err instanceof AgentError && err.code === "not_found") return undefined;
      throw err;
    }
  }

  /** A regular file opened for reading (directories, devices and — for reads — hard links refused). */
  async openFile(input: string, purpose: PathPurpose): Promise<OpenFile> {
    const { parts, shown } = this.lexical(input);
    // The first try opens the last name as it is (O_NOFOLLOW); only when it is a link (ELOOP) does
    // the next walk follow it — so the common case costs no extra look at it.
    for (let attempt = 0; ; attempt++) {
      let w;
      try {
        w = this.walk(parts, { until: "parent", followFinal: attempt > 0, create: false, loose: false });
      } catch (err) {
        if (err instanceof Escape) throw this.escaped(shown, err.target);
        throw asAgentError(err, shown);
      }
      try {
        if (w.name === null) {
          checkReadable(w.dir.stat(), w.rel, purpose);
          throw new AgentError("invalid_argument", `\`${w.rel}\` is not a regular file`);
        }
        return await w.dir.openFile(w.name, purpose);
      } catch (err) {
        // ELOOP: a link there; walk again, following it (it will be followed or refused).
        if (errnoOf(err) !== "ELOOP") throw asAgentError(err, w.rel);
        if (attempt >= RACE_RETRIES) throw keptChanging(w.rel);
      } finally {
        w.dir.close();
      }
    }
  }

  /** A whole regular file's content (see openFile for what is refused). */
  async readFile(input: string, purpose: PathPurpose): Promise<{ content: Buffer; st: Stats; rel: string }> {
    const f = await this.openFile(input, purpose);
    try {
      return { content: await f.handle.readFile(), st: f.st, rel: f.rel };
    } finally {
      await f.handle.close();
    }
  }

  /**
   * Up to `cap` bytes from the start of a regular file (what openFile refuses, refused alike), with
   * its size. The open, its status and a read of up to LIMITS.syncReadMaxBytes are made on this
   * thread: for a small file in the page cache each is a few microseconds, where a round trip through
   * libuv's thread pool costs more than the work and four of them a read. A larger read goes to the
   * pool so that it never holds every other call. Opens are O_NONBLOCK, so a FIFO cannot hang one.
   */
  async readHead(input: string, purpose: PathPurpose, cap: number): Promise<{ content: Buffer; size: number; rel: string }> {
    const f = this.run(input, (parts) => this.openRegularSync(parts, purpose));
    try {
      const length = Math.min(f.st.size, cap);
      const content = length <= LIMITS.syncReadMaxBytes ? readAllSync(f.fd, length) : await readAll(f.fd, length);
      return { content, size: f.st.size, rel: f.rel };
    } finally {
      closeSync(f.fd);
    }
  }

  /** The same, synchronously (for callers that cannot wait). */
  readFileSync(input: string, purpose: PathPurpose, maxBytes = Infinity): Buffer {
    return this.run(input, (parts) => {
      const f = this.openRegularSync(parts, purpose);
      try {
        return readAllSync(f.fd, Math.min(f.st.size, maxBytes));
      } finally {
        closeSync(f.fd);
      }
    });
  }

  /** Opens a regular file on this thread, a link at its place walked again and followed (or refused). */
  private openRegularSync(parts: string[], purpose: PathPurpose): { fd: number; st: Stats; rel: string } {
    for (let attempt = 0; ; attempt++) {
      const w = this.walk(parts, { until: "parent", followFinal: attempt > 0, create: false, loose: false });
      try {
        if (w.name === null) {
          checkReadable(w.dir.stat(), w.rel, purpose);
          throw new AgentError("invalid_argument", `\`${w.rel}\` is not a regular file`);
        }
        return w.dir.openFileSync(w.name, purpose);
      } catch (err) {
        // ELOOP: a link there; walk again, following it (it will be followed or refused).
        if (errnoOf(err) !== "ELOOP") throw asAgentError(err, w.rel);
        if (attempt >= RACE_RETRIES) throw keptChanging(w.rel);
      } finally {
        w.dir.close();
      }
    }
  }

  /** Workspace-relative form of an absolute path the agent found itself (a walk, an archive). */
  relative(abs: string): string {
    return relative(this.root, abs) || ".";
  }
}

/** Up to `limit` bytes from the start of an open file, read in the thread pool. */
async function readAll(fd: number, limit: number): Promise<Buffer> {
  const buf = Buffer.alloc(limit);
  let total = 0;
  while (total < limit) {
    const n = await new Promise<number>((resolve, reject) => read(fd, buf, total, limit - total, total, (err, got) => (err ? reject(err) : resolve(got))));
    if (n === 0) break;
    total += n;
  }
  return buf.subarray(0, total);
}

/** Up to `limit` bytes from the start of an open file. */
function readAllSync(fd: number, limit: number): Buffer {
  const buf = Buffer.alloc(limit);
  let total = 0;
  while (total < limit) {
    const n = readSync(fd, buf, total, limit - total, total);
    if (n === 0) break;
    total += n;
  }
  return buf.subarray(0, total);
}
