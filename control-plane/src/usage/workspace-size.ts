// A workspace's size on disk, measured cheaply and within bounds: a tenant's workspace may hold a
// million files, a tree thousands deep or links that loop, and none of that may make GetConversation
// slow or the control plane's memory grow. The walk never follows a symbolic link (a link counts as
// itself), stays on the workspace's file system, counts a hard-linked file once, and stops at the
// first of its bounds (entries, depth, time), saying which; a measure is kept for a while and shared
// by every caller meanwhile, so asking often costs one walk per interval. Each folder is opened without
// following a link and checked to be the very folder its parent listed, then read and its entries
// looked at through that open handle: a folder swapped for a link mid-walk (to another tenant's
// workspace) is never counted.
import { closeSync, constants, fstatSync, lstatSync, openSync, opendirSync, type Dir, type Stats, statfsSync } from "node:fs";
import { join } from "node:path";
import { atFd } from "../fs/fd-path.js";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { WorkspaceUsage } from "../model/usage.js";

export interface WalkBounds {
  /** Entries looked at, at most. */
  maxEntries: number;
  /** Folders deeper than this below the root are not entered. */
  maxDepth: number;
  /** Wall time the walk may take. */
  budgetMs: number;
}

export const WALK_BOUNDS: WalkBounds = { maxEntries: 200_000, maxDepth: 128, budgetMs: 1000 };

/** Entries handled between two yields to the event loop (the walk is synchronous in between). */
const CHUNK = 512;

/** Allocated bytes of a stat (what a sparse file does not hold is not counted). */
const allocated = (st: { blocks: number; size: number }): number => (st.blocks > 0 ? st.blocks * 512 : 0);

// As fd-path.ts opens folders: never through a link at the last step, never blocking on a FIFO.
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The folder at `path` opened, when it is still the one listed (same device and inode); undefined otherwise. */
function openListed(path: string, dev: number, ino: number): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, DIR_FLAGS);
  } catch {
    return undefined;
  }
  const st = fstatSync(fd);
  if (st.isDirectory() && st.dev === dev && st.ino === ino) return fd;
  closeSync(fd);
  return undefined;
}

export async function walkWorkspace(root: string, bounds: WalkBounds = WALK_BOUNDS, now: () => number = Date.now): Promise<WorkspaceUsage> {
  const started = now();
  const rootStat = lstatSync(root);
  if (!rootStat.isDirectory()) throw new Error("the workspace is not a folder");
  const seenLinks = new Set<string>();
  const stack: Array<{ path: string; depth: number; dev: number; ino: number }> = [{ path: root, depth: 0, dev: rootStat.dev, ino: rootStat.ino }];
  let bytes = allocated(rootStat);
  let entries = 0;
  let stop: "" | "entries" | "time" = "";
  let deepSkipped = 0;
  let otherFs = 0;
  let unreadable = 0;
  let sinceYield = 0;
  walk: while (stack.length > 0) {
    const { path, depth, dev, ino } = stack.pop() as { path: string; depth: number; dev: number; ino: number };
    const fd = openListed(path, dev, ino);
    if (fd === undefined) {
      unreadable++;
      continue;
    }
    let dir: Dir;
    try {
      dir = opendirSync(atFd(fd));
    } catch {
      closeSync(fd);
      unreadable++;
      continue;
    }
    try {
      for (let ent = dir.readSync(); ent !== null; ent = dir.readSync()) {
        if (entries >= bounds.maxEntries) {
          stop = "entries";
          break walk;
        }
        if (++sinceYield >= CHUNK) {
          sinceYield = 0;
          if (now() - started > bounds.budgetMs) {
            stop = "time";
            break walk;
          }
          await yieldToLoop();
        }
        entries++;
        let st: Stats;
        try {
          st = lstatSync(atFd(fd, ent.name));
        } catch {
          unreadable++;
          continue;
        }
        if (st.dev !== rootStat.dev) {
          otherFs++;
          continue;
        }
        if (st.isFile() && st.nlink > 1) {
          const key = `${st.dev}:${st.ino}`;
          if (seenLinks.has(key)) continue;
          seenLinks.add(key);
        }
        bytes += allocated(st);
        if (st.isDirectory()) {
          if (depth + 1 > bounds.maxDepth) deepSkipped++;
          else stack.push({ path: join(path, ent.name), depth: depth + 1, dev: st.dev, ino: st.ino });
        }
      }
    } finally {
      try {
        dir.closeSync();
      } catch {
        // Closed already.
      }
      closeSync(fd);
    }
  }
  const notes: string[] = [];
  if (stop === "entries") notes.push(`stopped after ${bounds.maxEntries} entries`);
  if (stop === "time") notes.push(`stopped after ${bounds.budgetMs} ms`);
  if (deepSkipped > 0) notes.push(`${deepSkipped} folder(s) deeper than ${bounds.maxDepth} levels not entered`);
  if (otherFs > 0) notes.push(`${otherFs} entr${otherFs === 1 ? "y" : "ies"} on another file system not counted`);
  if (unreadable > 0) notes.push(`${unreadable} entr${unreadable === 1 ? "y" : "ies"} unreadable`);
  return { source: "walk", bytes, entries, capped: stop !== "" || deepSkipped > 0, note: notes.join("; "), measuredAtMs: now() };
}

/** Used bytes of a mounted file system (copy mode's workspace volume, at its mount point). */
export function volumeUsage(mountPoint: string, now = Date.now()): WorkspaceUsage {
  const fs = statfsSync(mountPoint);
  return { source: "volume", bytes: (fs.blocks - fs.bfree) * fs.bsize, entries: 0, capped: false, note: "", measuredAtMs: now };
}

/** How long a measure is kept. */
export const WORKSPACE_MEASURE_TTL_MS = 15_000;
/** Walks under way at once, over every conversation: many hostile workspaces cost this many walks' time, no more. */
export const WORKSPACE_WALKS_AT_ONCE = 2;

/**
 * Measures kept per conversation for WORKSPACE_MEASURE_TTL_MS; callers meanwhile share the one kept,
 * or the one under way. The metrics take the last measure whatever its age and have a stale or
 * missing one redone in the background, one walk at a time, so a scrape never waits on a walk.
 * At most WORKSPACE_WALKS_AT_ONCE walks run at once; the others wait their turn.
 */
export class WorkspaceSizes {
  private readonly kept = new Map<string, { atMs: number; value: Promise<WorkspaceUsage>; settled?: WorkspaceUsage }>();
  private readonly queued = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly ttlMs = WORKSPACE_MEASURE_TTL_MS,
    private readonly atOnce = WORKSPACE_WALKS_AT_ONCE,
  ) {}

  private acquire(): Promise<void> {
    if (this.running < this.atOnce) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The slot goes straight to the next in line, if any. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  private async limited(how: () => Promise<WorkspaceUsage>): Promise<WorkspaceUsage> {
    await this.acquire();
    try {
      return await how();
    } finally {
      this.release();
    }
  }

  /** The last finished measure, whatever its age (while a new one waits its turn). */
  settled(key: string): WorkspaceUsage | undefined {
    return this.kept.get(key)?.settled;
  }

  measure(key: string, how: () => Promise<WorkspaceUsage>): Promise<WorkspaceUsage> {
    const k = this.kept.get(key);
    if (k && Date.now() - k.atMs < this.ttlMs) return k.value;
    const value = this.limited(how);
    const entry: { atMs: number; value: Promise<WorkspaceUsage>; settled?: WorkspaceUsage } = { atMs: Date.now(), value, settled: k?.settled };
    this.kept.set(key, entry);
    value.then(
      (v) => {
        entry.settled = v;
      },
      () => {
        // A failed measure is not kept: the next caller tries again.
        if (this.kept.get(key) === entry) this.kept.delete(key);
      },
    );
    return value;
  }

  /** The last finished measure (any age), and a new one queued when it is missing or stale. */
  latest(key: string, how: () => Promise<WorkspaceUsage>): WorkspaceUsage | undefined {
    const k = this.kept.get(key);
    if ((!k || Date.now() - k.atMs >= this.ttlMs) && !this.queued.has(key)) {
      this.queued.add(key);
      this.tail = this.tail.then(() =>
        this.measure(key, how).then(
          () => void this.queued.delete(key),
          () => void this.queued.delete(key),
        ),
      );
    }
    return k?.settled;
  }

  forgetExcept(keys: ReadonlySet<string>): void {
    for (const k of this.kept.keys()) if (!keys.has(k.split("\0")[0] ?? k)) this.kept.delete(k);
  }
}
