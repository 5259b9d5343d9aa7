// An open folder of the workspace, and every file operation the agent does, relative to it. Node has
// no openat(2); on Linux `/proc/self/fd/<fd>/<name>` is its equivalent: the kernel takes the folder
// from the already-open descriptor (a magic link, followed whatever now sits at the folder's old
// path) and looks up only `name` in it. Every open adds O_NOFOLLOW, and rename, unlink, mkdir,
// symlink and lstat never follow their last component, so no name handed to the kernel here can be
// redirected through a link swapped in after the agent checked it. Only WorkspacePaths makes these.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  promises as fsp,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  type Stats,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { join } from "node:path";
import { AgentError } from "../errors.js";

// No O_DIRECTORY: gVisor (runsc) follows a link despite O_NOFOLLOW when O_DIRECTORY is given, so
// folders are opened like files (O_NONBLOCK: a FIFO must not hang the open) and checked by fstat.
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
// O_NONBLOCK: opening a FIFO planted in the workspace must not hang the agent (no effect on files).
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NOCTTY;

export type PathPurpose = "read" | "write" | "list";

/** The name of a temporary file beside `name`, for a write that replaces it by rename. */
export function tempNameFor(name: string): string {
  return `.${name}.enclave-${randomBytes(6).toString("hex")}.tmp`;
}

/** An error carrying an errno code, like the ones node:fs throws. */
export function errnoError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

export function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A name as the kernel must see it here: one component, never `.`/`..` (which would leave the handle). */
function checkName(name: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new AgentError("internal", `bad path component ${JSON.stringify(name)}`);
  }
  return name;
}

/** A regular file opened for reading, with its status taken from the open descriptor. */
export interface OpenFile {
  handle: fsp.FileHandle;
  st: Stats;
  rel: string;
}

/** The refusals every read shares: not a regular file, or a hard link (which may be a file outside). */
export function checkReadable(st: Stats, shown: string, purpose: PathPurpose): void {
  if (st.isDirectory()) throw new AgentError("invalid_argument", `\`${shown}\` is a directory; list it instead`);
  if (!st.isFile()) throw new AgentError("invalid_argument", `\`${shown}\` is not a regular file`);
  if (purpose === "read" && st.nlink > 1) {
    throw new AgentError(
      "outside_workspace",
      `\`${shown}\` is a hard link (${st.nlink} names for one file), which may be a file outside the workspace; refused`,
    );
  }
}

/** A socket or a device without a driver cannot be opened at all (ENXIO, ENODEV): not a regular file. */
function notRegularIfUnopenable(err: unknown, shown: string): unknown {
  const code = errnoOf(err);
  return code === "ENXIO" || code === "ENODEV" ? new AgentError("invalid_argument", `\`${shown}\` is not a regular file`) : err;
}

export class WorkspaceDir {
  private closed = false;

  constructor(
    private readonly fd: number,
    /** Workspace-relative path of this folder when it was reached ("." for the root), for names and messages. */
    readonly rel: string,
    /** The root's descriptor lives as long as the agent; the others are closed by their user. */
    private readonly owned: boolean,
  ) {}

  /** Opens a folder by path (the workspace root, once). */
  static openRoot(path: string): WorkspaceDir {
    return new WorkspaceDir(openSync(path, constants.O_RDONLY | constants.O_DIRECTORY), ".", false);
  }

  /** The kernel path of `name` in this folder, or of the folder itself. */
  at(name?: string): string {
    if (this.closed) throw new AgentError("internal", `the handle of \`${this.rel}\` was used after it was closed`);
    return name === undefined ? `/proc/self/fd/${this.fd}` : `/proc/self/fd/${this.fd}/${checkName(name)}`;
  }

  /** Workspace-relative path of an entry of this folder. */
  relOf(name: string): string {
    return this.rel === "." ? name : `${this.rel}/${name}`;
  }

  close(): void {
    if (this.closed || !this.owned) return;
    this.closed = true;
    closeSync(this.fd);
  }

  stat(): Stats {
    return fstatSync(this.fd);
  }

  /** The folder's entries (names only, unsorted). */
  names(): string[] {
    return readdirSync(this.at());
  }

  entries(): Dirent[] {
    return readdirSync(this.at(), { withFileTypes: true });
  }

  /** The same, without blocking the agent on a large folder. */
  readNames(): Promise<string[]> {
    return fsp.readdir(this.at());
  }

  readEntries(): Promise<Dirent[]> {
    return fsp.readdir(this.at(), { withFileTypes: true });
  }

  lstat(name: string): Stats {
    return lstatSync(this.at(name));
  }

  lstatOrUndefined(name: string): Stats | undefined {
    try {
      return this.lstat(name);
    } catch {
      return undefined;
    }
  }

  lstatAsync(name: string): Promise<Stats | undefined> {
    return fsp.lstat(this.at(name)).catch(() => undefined);
  }

  readlink(name: string): string {
    return readlinkSync(this.at(name));
  }

  /** The sub-folder `name`; a link there fails (ELOOP) instead of being followed, anything else ENOTDIR. */
  openDir(name: string): WorkspaceDir {
    const fd = openSync(this.at(name), DIR_FLAGS);
    let isDir: boolean;
    try {
      isDir = fstatSync(fd).isDirectory();
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    if (!isDir) {
      closeSync(fd);
      throw errnoError("ENOTDIR", `not a directory, open '${this.relOf(name)}'`);
    }
    return new WorkspaceDir(fd, this.relOf(name), true);
  }

  /** Opens `name` for reading; a link there fails with ELOOP instead of being followed. */
  async openFile(name: string, purpose: PathPurpose): Promise<OpenFile> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.at(name), READ_FLAGS);
    } catch (err) {
      throw notRegularIfUnopenable(err, this.relOf(name));
    }
    try {
      const st = await handle.stat();
      checkReadable(st, this.relOf(name), purpose);
      return { handle, st, rel: this.relOf(name) };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** The same, synchronously: a descriptor the caller closes. */
  openFileSync(name: string, purpose: PathPurpose): { fd: number; st: Stats; rel: string } {
    let fd: number;
    try {
      fd = openSync(this.at(name), READ_FLAGS);
    } catch (err) {
      throw notRegularIfUnopenable(err, this.relOf(name));
    }
    try {
      const st = fstatSync(fd);
      checkReadable(st, this.relOf(name), purpose);
      return { fd, st, rel: this.relOf(name) };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  mkdir(name: string, mode = 0o777): void {
    mkdirSync(this.at(name), mode);
  }

  /** A new file that nothing else can have opened (O_EXCL; a link there fails). */
  createFile(name: string, mode: number): Promise<fsp.FileHandle> {
    return fsp.open(this.at(name), CREATE_FLAGS, mode);
  }

  /** rename(2) within this folder: replaces `to` itself, never what a link there points to. */
  rename(from: string, to: string): void {
    renameSync(this.at(from), this.at(to));
  }

  unlink(name: string): void {
    unlinkSync(this.at(name));
  }

  rmdir(name: string): void {
    rmdirSync(this.at(name));
  }

  symlink(target: string, name: string): void {
    symlinkSync(target, this.at(name));
  }

  /** Flushes the folder's entries (after renames); some filesystems refuse, where rename is still atomic. */
  async sync(): Promise<void> {
    try {
      const h = await fsp.open(this.at(), constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        await h.sync();
      } finally {
        await h.close();
      }
    } catch {
      // Not supported here.
    }
  }

  /** Absolute path for display and for other processes, given the workspace root. */
  absUnder(root: string): string {
    return this.rel === "." ? root : join(root, this.rel);
  }
}
