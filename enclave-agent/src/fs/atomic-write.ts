// Writes that never leave a file half-written: content goes to a temporary file in the same folder,
// is flushed, and replaces the target with rename(2). A set of changes is staged in full before the
// first rename, so a failure while staging (no space, no permission) changes nothing.
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { asAgentError } from "../errors.js";

export interface FileChange {
  abs: string;
  /** Workspace-relative path, for messages. */
  rel: string;
  /** New content, or null to delete the file. */
  content: Buffer | null;
}

function tempPathFor(abs: string): string {
  return join(dirname(abs), `.${basename(abs)}.enclave-${randomBytes(6).toString("hex")}.tmp`);
}

async function existingMode(abs: string): Promise<number | undefined> {
  try {
    return (await fsp.stat(abs)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

async function stage(change: FileChange): Promise<string | undefined> {
  if (change.content === null) return undefined;
  await fsp.mkdir(dirname(change.abs), { recursive: true });
  const temp = tempPathFor(change.abs);
  const handle = await fsp.open(temp, "wx", (await existingMode(change.abs)) ?? 0o644);
  try {
    await handle.writeFile(change.content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

export async function commitChanges(changes: readonly FileChange[]): Promise<void> {
  const temps: Array<string | undefined> = [];
  try {
    for (const change of changes) temps.push(await stage(change));
  } catch (err) {
    await Promise.all(temps.map((t) => (t ? fsp.rm(t, { force: true }) : undefined)));
    const failed = changes[temps.length];
    throw asAgentError(err, failed?.rel);
  }
  for (const [i, change] of changes.entries()) {
    const temp = temps[i];
    if (temp) await fsp.rename(temp, change.abs);
    else await fsp.rm(change.abs, { force: true });
  }
}

export function writeFileAtomic(abs: string, rel: string, content: Buffer): Promise<void> {
  return commitChanges([{ abs, rel, content }]);
}
