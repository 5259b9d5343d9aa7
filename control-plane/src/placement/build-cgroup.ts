// A dev container build's cgroup parent (cgroup v1, the engine's cgroupfs driver): each build's RUN
// steps run in containers below a folder of ours whose pids.max and memory limit bound them all,
// which the classic builder's own options (memory only) do not. Made before the build, removed after.
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";

const ROOT = "/sys/fs/cgroup";
const PARENT = "enclave-builds";

export interface BuildCgroup {
  /** What the engine's `cgroupparent` build option takes. */
  parent: string;
  remove(): Promise<void>;
}

export async function makeBuildCgroup(memoryBytes: number): Promise<BuildCgroup> {
  const name = `${PARENT}/${randomBytes(6).toString("hex")}`;
  const dirs = ["pids", "memory"].map((c) => join(ROOT, c, name));
  try {
    for (const d of dirs) await fsp.mkdir(d, { recursive: true });
    await fsp.writeFile(join(ROOT, "pids", name, "pids.max"), String(LIMITS.devcontainerBuildPids));
    await fsp.writeFile(join(ROOT, "memory", name, "memory.limit_in_bytes"), String(memoryBytes));
  } catch (err) {
    await Promise.all(dirs.map((d) => fsp.rmdir(d).catch(() => undefined)));
    throw new EnclaveError(
      "placement_unavailable",
      `a dev container build runs in a cgroup of its own (cgroup v1 pids and memory under ${ROOT}), which could not be made: ${(err as Error).message}`,
    );
  }
  return {
    parent: `/${name}`,
    // The engine removes its containers' cgroups below first; an rmdir it races is tried once more.
    remove: async () => {
      for (const d of dirs) await fsp.rmdir(d).catch(() => fsp.rmdir(d).catch(() => undefined));
    },
  };
}
