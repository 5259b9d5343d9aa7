// Writes a set of files all-or-nothing, surviving a crash. Every new content is first kept, flushed, in
// the agent's private journal folder (in its state folder, never in the workspace), and a journal naming
// each (staged copy, workspace target, temporary sibling) is written; then a temporary file beside each
// target is staged and flushed; the journal is marked committed, and only then are the temps renamed
// over the targets. An agent that dies before the commit leaves every file old (recovery deletes the
// temps); one that dies after it leaves the rest to recovery, which writes every target again from its
// staged copy: all new. Recovery runs when the agent starts. The workspace side (temps, renames) goes
// through the path resolver's held folders, so it lands where each path was checked.
//
// Recovery acts on nothing it has not checked: a journal is a regular file of bounded size in the
// journal folder, its staged copies are plain names in that folder, its targets resolve inside the
// workspace through the one path resolver, and its temps are siblings of their targets named the way
// an apply names them. A journal that fails any check is refused whole, logged and removed — inside an
// enclosure, code running as the agent's own user can write the state folder.
import { randomBytes } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { asAgentError } from "../errors.js";
import { prepareChanges, writeFileAtomic } from "../fs/atomic-write.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { LIMITS } from "../limits.js";

export interface JournalEntry {
  /** Name of the staged copy of the new content, in the journal folder. */
  staged: string;
  /** Workspace-relative path of the file written. */
  target: string;
  /** Name of the temporary file beside the target that is renamed over it. */
  temp: string;
}

interface Journal {
  state: "prepare" | "commit";
  entries: JournalEntry[];
}

export interface ApplyFile {
  rel: string;
  content: Buffer;
}

/** Test hook: the agent kills itself after this many renames of an apply (crash-consistency tests). */
const crashAfterRenames = Number(process.env.ENCLAVE_TEST_CRASH_AFTER_RENAMES ?? "NaN");

const STAGED_NAME = /^apply-\d+-[0-9a-f]{8}\.\d+\.staged$/;
const TEMP_TAG = /^\.enclave-[0-9a-f]{12}\.tmp$/;

async function writeDurable(path: string, data: string | Buffer, mode = 0o644): Promise<void> {
  // Exclusive create: a name that exists already (planted, or a link) is never written through.
  const h = await fsp.open(path, "wx", mode);
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
  await fsp.rm(tmp, { force: true });
  await writeDurable(tmp, JSON.stringify(j), 0o600);
  await fsp.rename(tmp, path);
  await syncDir(dirname(path));
}

export async function applyAtomically(paths: WorkspacePaths, journalDir: string, files: readonly ApplyFile[]): Promise<void> {
  const id = `apply-${Date.now()}-${randomBytes(4).toString("hex")}`;
  const journalPath = join(journalDir, `${id}.json`);
  const changes = prepareChanges(
    paths,
    files.map((f) => ({ path: f.rel, rel: f.rel, content: f.content })),
  );
  const entries: JournalEntry[] = changes.entries().map((e, i) => ({
    staged: `${id}.${i}.staged`,
    target: (files[i] as ApplyFile).rel,
    temp: basename(e.temp ?? ""),
  }));
  const removeStaged = (): Promise<unknown> => Promise.all(entries.map((e) => fsp.rm(join(journalDir, e.staged), { force: true })));

  // What recovery will write from, kept where only the agent writes.
  try {
    for (const [i, f] of files.entries()) await writeDurable(join(journalDir, (entries[i] as JournalEntry).staged), f.content, 0o600);
    await syncDir(journalDir);
    await writeJournal(journalPath, { state: "prepare", entries });
  } catch (err) {
    changes.discard();
    await removeStaged();
    await fsp.rm(journalPath, { force: true });
    throw asAgentError(err, "the agent's state folder");
  }
  try {
    await changes.write();
  } catch (err) {
    await fsp.rm(journalPath, { force: true });
    await removeStaged();
    throw err;
  }

  // The commit point: from here on, recovery completes the change.
  await writeJournal(journalPath, { state: "commit", entries });
  await changes.commit({
    durable: true,
    afterEach: (renamed) => {
      if (renamed === crashAfterRenames) process.kill(process.pid, "SIGKILL");
    },
  });
  await fsp.rm(journalPath, { force: true });
  await removeStaged();
}

interface CheckedEntry {
  staged: string;
  abs: string;
  rel: string;
  temp: string;
}

class Refused extends Error {}

function checkJournal(raw: unknown): Journal {
  const j = raw as Partial<Journal> | null;
  if (typeof j !== "object" || j === null || (j.state !== "prepare" && j.state !== "commit") || !Array.isArray(j.entries)) {
    throw new Refused("it is not a journal this agent writes (a state and a list of entries)");
  }
  return j as Journal;
}

/** Checks one entry; never touches anything but lstat of the staged copy and the path resolver. */
async function checkEntry(paths: WorkspacePaths, journalDir: string, e: unknown, i: number, state: Journal["state"]): Promise<CheckedEntry> {
  const entry = e as Partial<Record<keyof JournalEntry, unknown>> | null;
  if (typeof entry !== "object" || entry === null) throw new Refused(`entry ${i} is not an object`);
  const { staged, target, temp } = entry;
  if (typeof staged !== "string" || !STAGED_NAME.test(staged)) {
    throw new Refused(`entry ${i} names its staged copy \`${String(staged)}\`, which is not a file of the journal folder`);
  }
  if (typeof target !== "string") throw new Refused(`entry ${i} has no target path`);
  let abs: string;
  let rel: string;
  try {
    ({ abs, rel } = paths.resolve(target, "write"));
  } catch (err) {
    throw new Refused(`entry ${i}: ${(err as Error).message}`);
  }
  if (rel === ".") throw new Refused(`entry ${i} targets the workspace root itself`);
  const prefix = `.${basename(abs)}`;
  if (typeof temp !== "string" || !temp.startsWith(prefix) || !TEMP_TAG.test(temp.slice(prefix.length))) {
    throw new Refused(`entry ${i} names its temporary file \`${String(temp)}\`, which is not one an apply of \`${rel}\` makes`);
  }
  if (state === "commit") {
    const st = await fsp.lstat(join(journalDir, staged)).catch(() => undefined);
    if (!st?.isFile() || st.size > LIMITS.writeMaxBytes) throw new Refused(`entry ${i}: its staged copy is missing or not a regular file`);
  }
  return { staged, abs, rel, temp };
}

/** A regular file of the journal folder, at most maxBytes; never what a link put in its place points to. */
async function readOwnFile(path: string, maxBytes: number): Promise<Buffer> {
  let h;
  try {
    h = await fsp.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw new Refused(`it cannot be opened as a plain file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const st = await h.stat();
    if (!st.isFile()) throw new Refused("it is not a regular file");
    if (st.size > maxBytes) throw new Refused(`it is larger than ${maxBytes} bytes`);
    return await h.readFile();
  } finally {
    await h.close();
  }
}

async function readJournal(path: string): Promise<unknown> {
  const text = (await readOwnFile(path, LIMITS.journalMaxBytes)).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    // A journal whose write was cut short never reached its prepare state: nothing to undo.
    throw new Refused("it is not valid JSON");
  }
}

/**
 * Finishes or undoes the applies a crash interrupted, from the journal folder only (never the
 * workspace); returns what it did and what it refused, for the agent's log. Leaves the folder empty:
 * it runs before the agent serves, so anything else there is a leftover.
 */
export async function recoverJournals(paths: WorkspacePaths, journalDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(journalDir)).filter((n) => n.endsWith(".json")).sort();
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const name of names) {
    const path = join(journalDir, name);
    let j: Journal;
    let entries: CheckedEntry[];
    try {
      j = checkJournal(await readJournal(path));
      entries = [];
      for (const [i, e] of j.entries.entries()) entries.push(await checkEntry(paths, journalDir, e, i, j.state));
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      done.push(`refused the apply journal ${name}: ${err.message}; nothing in it was acted on`);
      await fsp.rm(path, { force: true });
      continue;
    }
    // Through the target's held folder; a temp whose name was taken by a folder meanwhile is left alone.
    const removeTemps = async (): Promise<void> => {
      for (const e of entries) {
        try {
          const loc = paths.locate(e.rel, { create: false });
          try {
            loc.dir.unlink(e.temp);
          } finally {
            loc.close();
          }
        } catch {
          // Its folder is gone, or the temp was never made.
        }
      }
    };
    if (j.state === "commit") {
      let failed = 0;
      for (const e of entries) {
        try {
          await writeFileAtomic(paths, e.rel, e.rel, await readOwnFile(join(journalDir, e.staged), LIMITS.writeMaxBytes));
        } catch (err) {
          failed++;
          done.push(`could not finish writing \`${e.rel}\` from an interrupted apply: ${(err as Error).message}`);
        }
      }
      await removeTemps();
      done.push(`completed an interrupted apply of ${entries.length} files${failed ? ` (${failed} could not be written)` : ""}`);
    } else {
      await removeTemps();
      done.push(`rolled back an apply of ${entries.length} files interrupted before its commit`);
    }
    await fsp.rm(path, { force: true });
  }
  for (const n of await fsp.readdir(journalDir).catch(() => [] as string[])) await fsp.rm(join(journalDir, n), { recursive: true, force: true });
  return done;
}
