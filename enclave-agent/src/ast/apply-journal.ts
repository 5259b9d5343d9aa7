// Writes a set of files all-or-nothing, surviving a crash: every new content is staged in a temporary
// file beside its target and flushed, then a journal naming each (temp, target) pair is committed, and
// only then are the temps renamed over the targets. An agent that dies before the journal's commit
// leaves every file old (recovery deletes the temps); one that dies after it leaves the renames to
// recovery, which completes them: all new. Recovery runs when the agent starts.
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { dirname, join } from "node:path";
import { prepareChanges } from "../fs/atomic-write.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";

export interface JournalEntry {
  temp: string;
  target: string;
}

interface Journal {
  state: "prepare" | "commit";
  entries: JournalEntry[];
}

export interface ApplyFile {
  /** Workspace-relative path. */
  rel: string;
  content: Buffer;
}

/** Test hook: the agent kills itself after this many renames of an apply (crash-consistency tests). */
const crashAfterRenames = Number(process.env.ENCLAVE_TEST_CRASH_AFTER_RENAMES ?? "NaN");

export function journalDir(workspaceRoot: string): string {
  return join(workspaceRoot, ".enclave", "journal");
}

async function writeDurable(path: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const h = await fsp.open(path, "w", mode);
  try {
    await h.writeFile(data);
    await h.sync();
  } finally {
    await h.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const h = await fsp.open(dir, "r");
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    // Some filesystems refuse fsync on a directory; rename is still atomic there.
  }
}

async function writeJournal(path: string, j: Journal): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeDurable(tmp, JSON.stringify(j));
  await fsp.rename(tmp, path);
  await syncDir(dirname(path));
}

// The workspace files themselves are staged and renamed through the path resolver's held folders
// (prepareChanges), so the temps and renames land where each path was checked.
export async function applyAtomically(paths: WorkspacePaths, files: readonly ApplyFile[]): Promise<void> {
  const dir = journalDir(paths.root);
  await fsp.mkdir(dir, { recursive: true });
  const journalPath = join(dir, `apply-${Date.now()}-${randomBytes(4).toString("hex")}.json`);
  const staged = prepareChanges(
    paths,
    files.map((f) => ({ path: f.rel, rel: f.rel, content: f.content })),
  );
  const entries = staged.entries().map((e) => ({ temp: e.temp as string, target: e.target }));
  try {
    await writeJournal(journalPath, { state: "prepare", entries });
    await staged.write();
  } catch (err) {
    staged.discard();
    await fsp.rm(journalPath, { force: true });
    throw err;
  }
  // The commit point: from here on, recovery completes the change.
  await writeJournal(journalPath, { state: "commit", entries });
  await staged.commit({
    durable: true,
    afterEach: (renamed) => {
      if (renamed === crashAfterRenames) process.kill(process.pid, "SIGKILL");
    },
  });
  await fsp.rm(journalPath, { force: true });
  await removeIfEmpty(dir);
}

async function removeIfEmpty(dir: string): Promise<void> {
  for (const d of [dir, dirname(dir)]) {
    try {
      await fsp.rmdir(d);
    } catch {
      return;
    }
  }
}

/** Finishes or undoes applies a crash interrupted; returns what it did, for the agent's log. */
export async function recoverJournals(workspaceRoot: string): Promise<string[]> {
  const dir = journalDir(workspaceRoot);
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let j: Journal;
    try {
      j = JSON.parse(await fsp.readFile(path, "utf8")) as Journal;
    } catch {
      await fsp.rm(path, { force: true });
      continue;
    }
    if (j.state === "commit") {
      let n = 0;
      for (const e of j.entries) {
        try {
          await fsp.rename(e.temp, e.target);
          n++;
        } catch {
          // Already renamed before the crash.
        }
      }
      done.push(`completed an interrupted apply of ${j.entries.length} files (${n} renames were left)`);
    } else {
      await Promise.all(j.entries.map((e) => fsp.rm(e.temp, { force: true })));
      done.push(`rolled back an apply of ${j.entries.length} files interrupted before its commit`);
    }
    await fsp.rm(path, { force: true });
  }
  // A journal whose first write was cut short never reached its prepare state: nothing to undo.
  for (const n of await fsp.readdir(dir).catch(() => [] as string[])) if (n.endsWith(".json.tmp")) await fsp.rm(join(dir, n), { force: true });
  await removeIfEmpty(dir);
  return done;
}
