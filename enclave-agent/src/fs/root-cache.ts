// nearestRoot without looking for every marker in every folder up to the workspace root on every
// call: what a folder holds is remembered while a watch on that folder (one inotify watch per
// folder) reports nothing, and forgotten on any event in it. What the watch cannot see is looked at
// the slow way: a folder that could not be watched every time, and every folder now and then as a
// backstop against a lost event (the kernel drops events when its queue overflows, and libuv does
// not report that). Only where a project starts is remembered here, never a way into a file: every
// path is still resolved by WorkspacePaths on every call.
//
// A caller lets the event loop turn once (awaits I/O or a setImmediate) before asking, so that the
// events the kernel queued before its call arrived (a marker written by the call before) are read.
import { type FSWatcher, watch } from "node:fs";
import { basename, join } from "node:path";
import { foldersUp, markersIn } from "./project-roots.js";

interface Folder {
  watcher: FSWatcher | undefined;
  /** Whether the folder holds one of the markers, by the markers (joined). */
  has: Map<string, boolean>;
  /** When `has` was started afresh (the backstop looks again after sweepMs). */
  since: number;
}

/** At most this many folders are watched; past it a folder is looked at every time. */
const MAX_FOLDERS = 512;

export class RootCache {
  private readonly folders = new Map<string, Folder>();
  /** How many times a folder was looked at for markers (tests count what a call costs). */
  looks = 0;

  constructor(
    readonly sweepMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The nearest folder with a marker, from `start` up to (and including) the workspace root. */
  nearestRoot(markers: readonly string[], start: string, workspaceRoot: string): string | undefined {
    const key = markers.join("\0");
    return foldersUp(workspaceRoot, start).find((dir) => this.holdsMarker(dir, markers, key));
  }

  private holdsMarker(dir: string, markers: readonly string[], key: string): boolean {
    const f = this.folderOf(dir);
    let has = f?.has.get(key);
    if (has === undefined) {
      this.looks++;
      has = markersIn(dir, markers).length > 0;
      f?.has.set(key, has);
    }
    return has;
  }

  /** The watched folder (watched before it is looked at, so no change after the look is missed). */
  private folderOf(dir: string): Folder | undefined {
    const known = this.folders.get(dir);
    if (known) {
      if (this.now() - known.since >= this.sweepMs) {
        known.has.clear();
        known.since = this.now();
      }
      return known;
    }
    if (this.folders.size >= MAX_FOLDERS) return undefined;
    const folder: Folder = { watcher: undefined, has: new Map(), since: this.now() };
    try {
      // persistent: false — a watch never keeps the agent alive on its own.
      folder.watcher = watch(dir, { persistent: false });
    } catch {
      // Unwatchable (a limit, or not a folder now): looked at every time.
      return undefined;
    }
    folder.watcher.on("change", (_event, name) => {
      folder.has.clear();
      // An event on the folder itself (libuv names it by its own name) or without a name: the folder
      // may no longer be the one at this path; watch that path afresh. A sub-folder renamed, removed
      // or replaced: the one now at its path (and every one below it) is another folder.
      if (name === null || name === undefined || name === basename(dir)) this.drop(dir);
      else this.drop(join(dir, String(name)));
    });
    folder.watcher.on("error", () => this.drop(dir));
    this.folders.set(dir, folder);
    return folder;
  }

  /** Forgets a folder and every folder under it (their watches follow the old folders, wherever they went). */
  private drop(dir: string): void {
    const under = `${dir}/`;
    for (const [d, f] of this.folders) {
      if (d !== dir && !d.startsWith(under)) continue;
      this.folders.delete(d);
      f.has.clear();
      f.watcher?.close();
    }
  }

  close(): void {
    for (const dir of [...this.folders.keys()]) this.drop(dir);
  }
}
