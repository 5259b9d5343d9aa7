// Each host sandbox in a cgroup of its own (cgroup v1: the pids, memory and cpu controllers), below
// the control plane's own cgroup, with the operator's limits: past them a fork fails with EAGAIN and
// the memory-hungry process is killed by the kernel's OOM killer inside the sandbox, while every other
// sandbox and the control plane go on. The cgroup's name is random: it says nothing of the tenant.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseMountinfo } from "../procfs/proc-tables.js";
import { EnclaveError } from "../errors.js";
import { SANDBOX_CONTROLLERS, type SandboxController, type SandboxLimits } from "../model/host-sandbox.js";

/** The folder sandboxes' cgroups are made in, below the control plane's own in each controller. */
const PARENT = "enclave-host";

let parents: Map<SandboxController, string> | undefined;
/** cpuacct's parent folder: undefined when it is not mounted, or mounted with cpu (whose folder then holds its files). */
let accountingParent: { folder?: string } | undefined;

function unavailable(why: string): never {
  throw new EnclaveError(
    "placement_unavailable",
    `host sandboxes cannot be bounded: ${why}. Host placement needs root and cgroup v1's pids, memory and cpu controllers; ENCLAVE_HOST_CGROUPS=off runs sandboxes unbounded (a relaxation the audit lists)`,
  );
}

/** Where each controller's sandbox cgroups go on this host (found once). */
function parentFolders(): Map<SandboxController, string> {
  if (parents) return parents;
  const own = new Map<string, string>();
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (m) for (const c of (m[1] ?? "").split(",")) own.set(c, m[2] ?? "");
  }
  const found = new Map<SandboxController, string>();
  const mounts = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8"));
  for (const c of SANDBOX_CONTROLLERS) {
    const mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes(c));
    const path = own.get(c);
    if (!mount || path === undefined) unavailable(`no cgroup v1 ${c} controller is mounted here`);
    const below =
      mount.root === "/"
        ? path
        : path.startsWith(mount.root)
          ? path.slice(mount.root.length)
          : unavailable(`this process's ${c} cgroup is outside the mounted hierarchy`);
    found.set(c, join(mount.mountPoint, below, PARENT));
  }
  parents = found;
  return found;
}

/**
 * Where a sandbox's CPU time is counted: cgroup v1's cpuacct controller, which bounds nothing and
 * is optional (without it the sandbox has no CPU figure, and says so). Co-mounted with cpu, the cpu
 * folder has its files and no folder of its own is made.
 */
function accountingFolder(): string | undefined {
  if (accountingParent) return accountingParent.folder;
  accountingParent = {};
  try {
    const mounts = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8"));
    const mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes("cpuacct"));
    const line = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .map((l) => /^\d+:([^:]*):(.*)$/.exec(l.trim()))
      .find((m) => !!m && (m[1] ?? "").split(",").includes("cpuacct"));
    if (!mount || !line || mount.superOptions.includes("cpu")) return undefined;
    const path = line[2] ?? "";
    const below = mount.root === "/" ? path : path.startsWith(mount.root) ? path.slice(mount.root.length) : undefined;
    if (below !== undefined) accountingParent.folder = join(mount.mountPoint, below, PARENT);
  } catch {
    // No cgroup files at all: no accounting.
  }
  return accountingParent.folder;
}

/** An empty sandbox cgroup of another control plane this old was abandoned. */
const ABANDONED_AFTER_MS = 60_000;

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

export class SandboxCgroup {
  /** cpuacct's folder when it has one of its own (see accountingFolder); the cpu folder's files otherwise. */
  private accounting: string | undefined;

  private constructor(
    /** Controller → the cgroup's folder. */
    readonly folders: ReadonlyMap<SandboxController, string>,
    readonly limits: SandboxLimits,
  ) {}

  /** The folders its CPU, memory and pids figures are read from (see usage/cgroup-usage.ts). */
  usageFolders(): { version: "v1"; cpuacct?: string; memory?: string; pids?: string } {
    const cpu = this.folders.get("cpu");
    const cpuHasAccounting = cpu !== undefined && existsSync(join(cpu, "cpuacct.usage"));
    return {
      version: "v1",
      cpuacct: this.accounting ?? (cpuHasAccounting ? cpu : undefined),
      memory: this.folders.get("memory"),
      pids: this.folders.get("pids"),
    };
  }

  /**
   * Makes a new cgroup with the limits, in the folder of `group` (one per control plane, so that
   * `sweep` touches no other's); nothing is in it yet.
   */
  static create(limits: SandboxLimits, group: string): SandboxCgroup {
    const name = randomBytes(8).toString("hex");
    const folders = new Map<SandboxController, string>();
    const made = new SandboxCgroup(folders, limits);
    try {
      for (const [c, parent] of parentFolders()) {
        const folder = join(parent, group, name);
        mkdirSync(folder, { recursive: true });
        folders.set(c, folder);
      }
      const write = (c: SandboxController, file: string, value: number): void => writeFileSync(join(folders.get(c) ?? "", file), String(value));
      write("pids", "pids.max", limits.pidsMax);
      write("memory", "memory.limit_in_bytes", limits.memoryBytes);
      // Swap counts too, where the kernel accounts it: the bound is on memory the sandbox holds.
      if (existsSync(join(folders.get("memory") ?? "", "memory.memsw.limit_in_bytes"))) write("memory", "memory.memsw.limit_in_bytes", limits.memoryBytes);
      write("cpu", "cpu.shares", limits.cpuShares);
    } catch (err) {
      made.removeNow();
      if (err instanceof EnclaveError) throw err;
      unavailable((err as Error).message);
    }
    const accounting = accountingFolder();
    if (accounting) {
      try {
        const folder = join(accounting, group, name);
        mkdirSync(folder, { recursive: true });
        made.accounting = folder;
      } catch {
        // Accounting only: the sandbox runs bounded all the same, with no CPU figure.
      }
    }
    return made;
  }

  /**
   * Removes the empty sandbox cgroups left by control planes that died (they could not remove
   * them): every one of `group`'s (this control plane's, before it starts any), and another
   * group's once a minute old (a new one is joined by its sandbox within milliseconds of being
   * made). One holding a process is never removed: the kernel refuses.
   */
  static sweep(group: string, now = Date.now()): void {
    const accounting = accountingFolder();
    for (const parent of [...parentFolders().values(), ...(accounting ? [accounting] : [])]) {
      for (const owner of subfolders(parent)) {
        for (const name of subfolders(join(parent, owner))) {
          const folder = join(parent, owner, name);
          try {
            if (owner === group || now - statSync(folder).mtimeMs > ABANDONED_AFTER_MS) rmdirSync(folder);
          } catch {
            // In use, or gone already: left alone.
          }
        }
      }
    }
  }

  /**
   * The files a process writes `0` to, to move itself (its one thread) into every controller. A
   * single-thread move of the writer skips the kernel's global threadgroup lock, whose RCU sync made
   * each `cgroup.procs` write wait 20–50 ms here; a process that has not started threads yet (the
   * shell before it becomes bubblewrap) is whole after it.
   */
  selfJoinFiles(): string[] {
    return this.allFolders().map((f) => join(f, "tasks"));
  }

  /** The bounding controllers' folders and the accounting one. */
  private allFolders(): string[] {
    return [...this.folders.values(), ...(this.accounting ? [this.accounting] : [])];
  }

  /** The files a process's pid is written to, to move it (all its threads) into every controller. */
  procsFiles(): string[] {
    return this.allFolders().map((f) => join(f, "cgroup.procs"));
  }

  /** Host pids in the cgroup (the pids controller's list). */
  members(controller: SandboxController = "pids"): number[] {
    const folder = this.folders.get(controller);
    if (!folder) return [];
    return readFileSync(join(folder, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  }

  /** The limits the kernel holds now. */
  current(): SandboxLimits {
    const num = (c: SandboxController, file: string): number => Number(readFileSync(join(this.folders.get(c) ?? "", file), "utf8").trim());
    return { pidsMax: num("pids", "pids.max"), memoryBytes: num("memory", "memory.limit_in_bytes"), cpuShares: num("cpu", "cpu.shares") };
  }

  private removeNow(): boolean {
    let all = true;
    for (const folder of this.allFolders()) {
      try {
        rmdirSync(folder);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") all = false;
      }
    }
    return all;
  }

  private removing: Promise<void> | undefined;

  /** Removes the cgroup once its last process is gone (the kernel reaps a killed sandbox in a moment). */
  remove(): Promise<void> {
    this.removing ??= (async () => {
      for (let attempt = 0; attempt < 40; attempt++) {
        if (this.removeNow()) return;
        await sleep(50);
      }
    })();
    return this.removing;
  }
}
