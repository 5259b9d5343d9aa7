// The workspace half of the journalled writer (write-journal.ts), which is its only user: content
// goes to a temporary file created in the target's own folder, is flushed, and replaces the target
// with rename(2) inside that folder, so no file is ever half-written. The folder is held open from
// the first step to the last, so the temp and the rename land where the path was checked even if the
// path is re-pointed meanwhile. A set of changes is staged in full before the first rename, so a
// failure while staging (no space, no permission) changes nothing; the journal is what makes the
// renames themselves all-or-nothing across a crash.
import { AgentError, asAgentError } from "../errors.js";
import { errnoOf, tempNameFor } from "./workspace-dir.js";
import type { Location, WorkspacePaths } from "./workspace-paths.js";

export interface FileChange {
  /** The workspace path as the caller has it; resolved again here, through handles. */
  path: string;
  /** Workspace-relative path, for messages. */
  rel: string;
  /** New content, or null to delete the file. An existing file keeps its mode; a new one gets 0o644. */
  content: Buffer | null;
}

interface StagedChange {
  change: FileChange;
  loc: Location & { name: string };
  /** The temp's name in loc.dir; undefined for a deletion. */
  temp?: string;
}

/**
 * A set of changes on its way: every target's folder located and held open and every temp named
 * (prepareChanges), then the temps written and flushed (write), then renamed over the targets
 * (commit) — or discarded. Nothing visible changes before commit.
 */
export class StagedChanges {
  private written = false;

  constructor(private readonly items: StagedChange[]) {}

  /** Each change's temp name (in its target's folder), undefined for a deletion, for the journal. */
  temps(): Array<string | undefined> {
    return this.items.map((s) => s.temp);
  }

  /** Writes and flushes every temp, each created afresh (O_EXCL) in its target's held folder. */
  async write(): Promise<void> {
    let done = 0;
    try {
      for (const s of this.items) {
        if (s.temp !== undefined) await writeTemp(s, s.temp);
        done++;
      }
      this.written = true;
    } catch (err) {
      this.discard();
      throw asAgentError(err, this.items[done]?.change.rel);
    }
  }

  /**
   * Renames every temp over its target (in its held folder), or deletes the target. `durable`
   * also flushes the folders' entries; `afterEach` is told after each rename.
   */
  async commit(opts: { durable?: boolean; afterEach?: (done: number) => void } = {}): Promise<void> {
    if (!this.written) throw new AgentError("internal", "changes committed before they were written");
    try {
      for (const [i, s] of this.items.entries()) {
        if (s.temp !== undefined) {
          try {
            s.loc.dir.rename(s.temp, s.loc.name);
          } catch (err) {
            if (errnoOf(err) === "ENOENT") {
              throw new AgentError("not_found", `the folder of \`${s.change.rel}\` was removed while it was being written; it was not written`);
            }
            throw asAgentError(err, s.change.rel);
          }
        } else {
          try {
            s.loc.dir.unlink(s.loc.name);
          } catch (err) {
            if (errnoOf(err) !== "ENOENT") throw asAgentError(err, s.change.rel);
          }
        }
        opts.afterEach?.(i + 1);
      }
      if (opts.durable) await Promise.all([...new Set(this.items.map((s) => s.loc.dir))].map((d) => d.sync()));
    } finally {
      this.release();
    }
  }

  /** Removes the temps; the targets stay as they were. */
  discard(): void {
    for (const s of this.items) {
      if (s.temp === undefined) continue;
      try {
        s.loc.dir.unlink(s.temp);
      } catch {
        // Never written, or already gone.
      }
    }
    this.release();
  }

  private release(): void {
    for (const s of this.items) s.loc.close();
  }
}

function locate(paths: WorkspacePaths, change: FileChange): StagedChange {
  const loc = paths.locate(change.path, { create: change.content !== null });
  const name = loc.name;
  if (name === null || loc.dir.lstatOrUndefined(name)?.isDirectory()) {
    loc.close();
    throw new AgentError("invalid_argument", `\`${loc.rel}\` is a directory`);
  }
  return { change, loc: { ...loc, name }, temp: change.content === null ? undefined : tempNameFor(name) };
}

async function writeTemp(s: StagedChange, temp: string): Promise<void> {
  const content = s.change.content as Buffer;
  const existing = s.loc.dir.lstatOrUndefined(s.loc.name);
  const mode = existing?.isFile() ? existing.mode & 0o7777 : 0o644;
  const handle = await s.loc.dir.createFile(temp, mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Locates every change's folder (making missing ones for new files) and names its temp. */
export function prepareChanges(paths: WorkspacePaths, changes: readonly FileChange[]): StagedChanges {
  const items: StagedChange[] = [];
  try {
    for (const change of changes) items.push(locate(paths, change));
  } catch (err) {
    for (const s of items) s.loc.close();
    throw asAgentError(err, changes[items.length]?.rel);
  }
  return new StagedChanges(items);
}
