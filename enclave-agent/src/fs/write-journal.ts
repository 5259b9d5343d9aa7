// Writes a set of workspace files all-or-nothing, surviving a crash: the one way the agent changes
// files (write, edit, patch, rename, structural apply; see workspace-writer.ts for the lock around
// it). Every new content is first kept, flushed, in the agent's private journal folder (in its state
// folder, never in the workspace), and a journal naming each change (staged copy, workspace target,
// temporary sibling; or a deletion) is written; then a temporary file beside each target is staged
// and flushed; the journal is marked committed, and only then are the temps renamed over the targets
// and the deleted files removed. An agent that dies before the commit leaves every file old (recovery
// deletes the temps); one that dies after it leaves the rest to recovery, which writes every target
// again from its staged copy and removes every deleted file: all new. Recovery runs when the agent
// starts, before it serves. The workspace side (temps, renames) goes through the path resolver's held
// folders, so it lands where each path was checked.
//
// Recovery acts on nothing it has not checked: a journal is a regular file of bounded size in the
// journal folder, its staged copies are plain names in that folder, its targets resolve inside the
// workspace through the one path resolver, and its temps are siblings of their targets named the way
// a write names them. A journal that fails any check is refused whole, logged and removed — inside an
// enclosure, code running as the agent's own user can write the state folder.
import { randomBytes } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { AgentError, asAgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { type FileChange, prepareChanges } from "./staged-changes.js";
import { errnoOf } from "./workspace-dir.js";
import type { WorkspacePaths } from "./workspace-paths.js";

/** A file written: its new content is the staged copy, renamed into place from the temp. */
interface WriteEntry {
  /** Name of the staged copy of the new content, in the journal folder. */
  staged: string;
  /** Workspace-relative path of the file written. */
  target: string;
  /** Name of the temporary file beside the target that is renamed over it. */
  temp: string;
}

/** A file deleted at the commit. */
interface DeleteEntry {
  target: string;
  delete: true;
}

export type JournalEntry = WriteEntry | DeleteEntry;

interface Journal {
  state: "prepare" | "commit";
  entries: JournalEntry[];
}

/**
 * Test hook: the agent kills itself after this many renames (or deletions) of one commit, so a test
 * can see what a crash mid-commit leaves. Unset in production.
 */
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

/** Writes (or deletes) every file of `changes`, all or none, even across a crash of the agent. */
export async function commitJournalled(paths: WorkspacePaths, journalDir: string, changes: readonly FileChange[]): Promise<void> {
  if (changes.length === 0) return;
  const seen = new Set<string>();
  for (const c of changes) {
    if (seen.has(c.rel)) throw new AgentError("invalid_argument", `\`${c.rel}\` is changed twice in one set; nothing was changed`);
    seen.add(c.rel);
  }
  const id = `apply-${Date.now()}-${randomBytes(4).toString("hex")}`;
  const journalPath = join(journalDir, `${id}.json`);
  const staged = prepareChanges(paths, changes);
  const temps = staged.temps();
  const entries: JournalEntry[] = changes.map((c, i) => {
    const temp = temps[i];
    return temp === undefined ? { target: c.rel, delete: true } : { staged: `${id}.${i}.staged`, target: c.rel, temp };
  });
  const stagedCopies = entries.flatMap((e) => ("staged" in e ? [e.staged] : []));
  const removeStaged = (): Promise<unknown> => Promise.all(stagedCopies.map((n) => fsp.rm(join(journalDir, n), { force: true })));

  // What recovery will write from, kept where only the agent writes.
  try {
    for (const [i, c] of changes.entries()) {
      const e = entries[i] as JournalEntry;
      if ("staged" in e) await writeDurable(join(journalDir, e.staged), c.content as Buffer, 0o600);
    }
    await syncDir(journalDir);
    await writeJournal(journalPath, { state: "prepare", entries });
  } catch (err) {
    staged.discard();
    await removeStaged();
    await fsp.rm(journalPath, { force: true });
    throw asAgentError(err, "the agent's state folder");
  }
  try {
    await staged.write();
  } catch (err) {
    await fsp.rm(journalPath, { force: true });
    await removeStaged();
    throw err;
  }

  // The commit point: from here on, recovery completes the change.
  try {
    await writeJournal(journalPath, { state: "commit", entries });
  } catch (err) {
    staged.discard();
    await fsp.rm(journalPath, { force: true });
    await removeStaged();
    throw asAgentError(err, "the agent's state folder");
  }
  try {
    await staged.commit({
      durable: true,
      afterEach: (renamed) => {
        if (renamed === crashAfterRenames) process.kill(process.pid, "SIGKILL");
      },
    });
  } catch (err) {
    // Committed but cut short while the agent lives (a folder removed meanwhile): finish the rest now,
    // as recovery would, rather than leave the set half-applied until a restart.
    const first = asAgentError(err);
    let problems: string[];
    try {
      problems = (await finish(paths, journalDir, await checkAll(paths, journalDir, { state: "commit", entries }))).lines;
    } catch (why) {
      // A target that now leads somewhere a write may not go: nothing more is written.
      problems = [`the rest was not written: ${(why as Error).message}`];
      removeTemps(
        paths,
        entries.flatMap((e) => ("staged" in e ? [{ rel: e.target, temp: e.temp }] : [])),
      );
    }
    await fsp.rm(journalPath, { force: true });
    await removeStaged();
    if (problems.length) throw new AgentError(first.code, `${first.message}; ${problems.join("; ")}`);
  }
  await fsp.rm(journalPath, { force: true });
  await removeStaged();
}

type CheckedEntry = { abs: string; rel: string } & ({ kind: "write"; staged: string; temp: string } | { kind: "delete" });

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
  const entry = e as Partial<Record<"staged" | "target" | "temp" | "delete", unknown>> | null;
  if (typeof entry !== "object" || entry === null) throw new Refused(`entry ${i} is not an object`);
  const { staged, target, temp } = entry;
  const isDelete = entry.delete === true;
  if (isDelete && (staged !== undefined || temp !== undefined)) throw new Refused(`entry ${i} both deletes its target and writes it`);
  if (!isDelete && (typeof staged !== "string" || !STAGED_NAME.test(staged))) {
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
  if (isDelete) return { kind: "delete", abs, rel };
  const prefix = `.${basename(abs)}`;
  if (typeof temp !== "string" || !temp.startsWith(prefix) || !TEMP_TAG.test(temp.slice(prefix.length))) {
    throw new Refused(`entry ${i} names its temporary file \`${String(temp)}\`, which is not one a write of \`${rel}\` makes`);
  }
  if (state === "commit") {
    const st = await fsp.lstat(join(journalDir, staged as string)).catch(() => undefined);
    if (!st?.isFile() || st.size > LIMITS.writeMaxBytes) throw new Refused(`entry ${i}: its staged copy is missing or not a regular file`);
  }
  return { kind: "write", staged: staged as string, abs, rel, temp };
}

async function checkAll(paths: WorkspacePaths, journalDir: string, j: Journal): Promise<CheckedEntry[]> {
  const out: CheckedEntry[] = [];
  for (const [i, e] of j.entries.entries()) out.push(await checkEntry(paths, journalDir, e, i, j.state));
  return out;
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

/** Removes the temps beside the targets, through each target's held folder; a temp whose name was taken by a folder meanwhile is left alone. */
function removeTemps(paths: WorkspacePaths, entries: ReadonlyArray<{ rel: string; temp: string }>): void {
  for (const e of entries) {
    try {
      const loc = paths.locate(e.rel, { create: false });
      try {
        loc.dir.unlink(e.temp);
      } finally {
        loc.close();
      }
    } catch {
      // Its folder is gone, or the temp was never made (or was renamed into place).
    }
  }
}

function writesOf(entries: readonly CheckedEntry[]): Array<{ rel: string; temp: string }> {
  return entries.flatMap((e) => (e.kind === "write" ? [{ rel: e.rel, temp: e.temp }] : []));
}

/** Deletes a committed deletion's target (the name itself, in its held folder; never a folder). */
function deleteTarget(paths: WorkspacePaths, rel: string): void {
  const loc = paths.locate(rel, { create: false });
  try {
    if (loc.name === null) return;
    if (loc.dir.lstatOrUndefined(loc.name)?.isDirectory()) throw new AgentError("failed_precondition", `\`${rel}\` is now a directory; it was left alone`);
    try {
      loc.dir.unlink(loc.name);
    } catch (err) {
      if (errnoOf(err) !== "ENOENT") throw err;
    }
  } finally {
    loc.close();
  }
}

/** Completes a committed change: every target written again from its staged copy, every deletion done. */
async function finish(paths: WorkspacePaths, journalDir: string, entries: readonly CheckedEntry[]): Promise<{ lines: string[]; failed: number }> {
  const lines: string[] = [];
  let failed = 0;
  for (const e of entries) {
    try {
      if (e.kind === "delete") {
        deleteTarget(paths, e.rel);
      } else {
        const content = await readOwnFile(join(journalDir, e.staged), LIMITS.writeMaxBytes);
        const one = prepareChanges(paths, [{ path: e.rel, rel: e.rel, content }]);
        await one.write();
        await one.commit({ durable: true });
      }
    } catch (err) {
      failed++;
      lines.push(`could not finish ${e.kind === "delete" ? "deleting" : "writing"} \`${e.rel}\` from an interrupted change: ${(err as Error).message}`);
    }
  }
  removeTemps(paths, writesOf(entries));
  return { lines, failed };
}

/**
 * Finishes or undoes the changes a crash interrupted, from the journal folder only (never the
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
      entries = await checkAll(paths, journalDir, j);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      done.push(`refused the apply journal ${name}: ${err.message}; nothing in it was acted on`);
      await fsp.rm(path, { force: true });
      continue;
    }
    if (j.state === "commit") {
      const { lines, failed } = await finish(paths, journalDir, entries);
      done.push(...lines, `completed an interrupted apply of ${entries.length} files${failed ? ` (${failed} could not be written)` : ""}`);
    } else {
      removeTemps(paths, writesOf(entries));
      done.push(`rolled back an apply of ${entries.length} files interrupted before its commit`);
    }
    await fsp.rm(path, { force: true });
  }
  for (const n of await fsp.readdir(journalDir).catch(() => [] as string[])) await fsp.rm(join(journalDir, n), { recursive: true, force: true });
  return done;
}
