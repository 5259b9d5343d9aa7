// Bind mode for warm-pool enclosures: the container starts with an empty host folder of the control
// plane's (its "slot", under the data folder) bound at /workspace with slave propagation; the slot is
// itself a shared mount, so the conversation's workspace, bind-mounted onto the slot at claim time,
// appears at /workspace inside the running container. Mounting needs root (CAP_SYS_ADMIN) in the
// engine's mount namespace; where the control plane has neither, bind-mode profiles are not kept
// warm and bind-mode starts are cold. Nothing from the workspace or the enclosure is ever a mount
// source or target here except the conversation's own folder, given by the harness.
import { execFile } from "node:child_process";
import { promises as fsp, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { promisify } from "node:util";
import { EnclaveError } from "../errors.js";

const execFileAsync = promisify(execFile);
const ENV = { PATH: "/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin", LC_ALL: "C" };

async function mountTool(args: string[]): Promise<void> {
  try {
    await execFileAsync("mount", args, { env: ENV, timeout: 30_000 });
  } catch (err) {
    throw new EnclaveError(
      "placement_unavailable",
      `mount ${args.join(" ")} failed: ${String((err as { stderr?: string }).stderr ?? (err as Error).message).trim()}`,
    );
  }
}

async function umount(path: string): Promise<boolean> {
  try {
    await execFileAsync("umount", [path], { env: ENV, timeout: 30_000 });
    return true;
  } catch {
    // Busy (a process still inside): detach it lazily so the folder can go.
    return execFileAsync("umount", ["-l", path], { env: ENV, timeout: 30_000 }).then(
      () => true,
      () => false,
    );
  }
}

/** Whether this process may make mounts the engine sees (root; the engine on this machine shares our mount namespace). */
export function canMountSlots(): boolean {
  return process.getuid?.() === 0;
}

/** Makes the empty slot folder and turns it into a shared mount of itself. */
export async function makeSlot(root: string, name: string): Promise<string> {
  await fsp.mkdir(root, { recursive: true, mode: 0o700 });
  const slot = join(root, name);
  await fsp.mkdir(slot, { mode: 0o755 });
  try {
    await mountTool(["--bind", slot, slot]);
    await mountTool(["--make-shared", slot]);
  } catch (err) {
    await releaseSlot(slot);
    throw err;
  }
  return slot;
}

/** Mounts the conversation's workspace onto the slot; the enclosure sees it at /workspace from now on. */
export async function attachWorkspace(slot: string, workspace: string): Promise<void> {
  await mountTool(["--bind", workspace, slot]);
}

/** The mount points at or below dir, deepest first. */
function mountsUnder(dir: string): string[] {
  const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
  const out: string[] = [];
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const target = line.split(" ")[4];
    if (!target) continue;
    const path = unescape(target);
    if (path === dir || path.startsWith(dir + sep)) out.push(path);
  }
  return out.reverse();
}

/** Unmounts whatever is mounted on the slot (the workspace, then the slot's own mount) and removes it. */
export async function releaseSlot(slot: string): Promise<void> {
  for (let i = 0; i < 8 && mountsUnder(slot).length; i++) {
    for (const m of mountsUnder(slot)) await umount(m);
  }
  await fsp.rmdir(slot).catch(() => undefined);
}

/** Start-up: releases every slot a previous run of this data folder left, except those still in use. */
export async function sweepSlots(root: string, inUse: ReadonlySet<string>): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(root);
  } catch {
    return [];
  }
  const swept: string[] = [];
  for (const name of names) {
    const slot = join(root, name);
    if (inUse.has(slot)) continue;
    await releaseSlot(slot);
    swept.push(slot);
  }
  return swept;
}
