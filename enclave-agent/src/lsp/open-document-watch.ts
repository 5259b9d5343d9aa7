// Which of a server's open documents may have changed on disk since they were last synced, without
// looking at every one of them per query: the folders that hold open documents are watched (one
// inotify watch per folder, not per file), and an event for a name marks that document. A query then
// re-checks only the marked ones, so its cost does not grow with the number of open documents.
//
// What the watch cannot see is checked the slow way: documents in a folder that could not be watched
// (a watch limit reached) every time, and every document when something happened to the folder
// itself (moved, deleted, replaced), or now and then as a backstop against a lost event (the kernel
// drops events when its queue overflows, and libuv does not report that).
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { LIMITS } from "../limits.js";

/**
 * One turn of the event loop: by its end the folder events the kernel queued before it began (a write
 * by the call before this one) have been read. A query waits for it once, before it asks any watch
 * (changed, isChanged) or the root lookup.
 */
export function queuedEventsRead(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

interface FolderWatch {
  watcher: FSWatcher | undefined;
  /** Open documents of this folder: file name → uri. */
  byName: Map<string, string>;
}

export class OpenDocumentWatch {
  private readonly folders = new Map<string, FolderWatch>();
  private readonly dirty = new Set<string>();
  private lastSweep = Date.now();
  /** How many folder watches were set up (one per folder, not per document). */
  watchesMade = 0;
  /** The backstop: every open document is checked at most this often (tests turn it off). */
  sweepMs: number = LIMITS.lspOpenDocumentSweepMs;

  constructor(private readonly now: () => number = Date.now) {}

  /** A document was just synced from disk: clean until its folder reports its name. */
  track(uri: string, abs: string): void {
    this.dirty.delete(uri);
    const dir = dirname(abs);
    let f = this.folders.get(dir);
    if (!f) {
      f = { watcher: undefined, byName: new Map() };
      this.folders.set(dir, f);
    }
    f.byName.set(basename(abs), uri);
    if (!f.watcher) f.watcher = this.watchFolder(dir, f);
  }

  /** A document was closed. */
  untrack(uri: string, abs: string): void {
    this.dirty.delete(uri);
    const dir = dirname(abs);
    const f = this.folders.get(dir);
    if (!f) return;
    f.byName.delete(basename(abs));
    if (f.byName.size === 0) {
      f.watcher?.close();
      this.folders.delete(dir);
    }
  }

  private watchFolder(dir: string, f: FolderWatch): FSWatcher | undefined {
    let w: FSWatcher;
    try {
      // persistent: false — a watch never keeps the agent alive on its own.
      w = watch(dir, { persistent: false });
    } catch {
      // Unwatchable (a limit, or the folder is gone): its documents are checked on every query.
      return undefined;
    }
    this.watchesMade++;
    const lost = (): void => {
      for (const uri of f.byName.values()) this.dirty.add(uri);
      if (f.watcher === w) f.watcher = undefined;
      w.close();
    };
    w.on("change", (_event, name) => {
      const uri = typeof name === "string" ? f.byName.get(name) : undefined;
      // An event on the folder itself (libuv names it by the folder's own name) or one without a
      // name: the folder may no longer be the one at this path. Check all, and watch afresh.
      if (name === null || name === undefined || name === basename(dir)) lost();
      else if (uri) this.dirty.add(uri);
    });
    w.on("error", lost);
    return w;
  }

  /** The open documents that may differ from the disk (the caller awaited queuedEventsRead()). */
  changed(open: readonly string[]): string[] {
    if (this.now() - this.lastSweep >= this.sweepMs) {
      this.lastSweep = this.now();
      return [...open];
    }
    const out = new Set(this.dirty);
    for (const f of this.folders.values()) {
      if (f.watcher) continue;
      for (const uri of f.byName.values()) out.add(uri);
    }
    const isOpen = new Set(open);
    return [...out].filter((u) => isOpen.has(u));
  }

  /** Whether one open document may differ from the disk (as changed(), without using up a sweep). */
  isChanged(uri: string, abs: string): boolean {
    if (this.dirty.has(uri) || this.now() - this.lastSweep >= this.sweepMs) return true;
    const f = this.folders.get(dirname(abs));
    return !f?.watcher || !f.byName.has(basename(abs));
  }

  close(): void {
    for (const f of this.folders.values()) f.watcher?.close();
    this.folders.clear();
    this.dirty.clear();
  }
}
