// The host's pids cgroup of a container (cgroup v1 or v2), read from the container's first process:
// the kernel's own record of whether the pids limit refused a fork, which sampling `docker top`
// cannot prove.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";

export interface PidsCgroup {
  max: number;
  /** Forks the kernel refused because this cgroup was at its limit. */
  refused: number;
  /** Highest pids.current seen by the kernel, when the kernel keeps it. */
  peak: number | undefined;
}

export async function pidsCgroupDir(containerId: string): Promise<string> {
  const pid = (await new Docker().getContainer(containerId).inspect()).State.Pid;
  const lines = readFileSync(`/proc/${pid}/cgroup`, "utf8").split("\n");
  const v1 = lines.find((l) => /^\d+:([^:]*,)?pids(,[^:]*)?:/.test(l));
  if (v1) return join("/sys/fs/cgroup/pids", v1.split(":")[2] ?? "");
  const v2 = lines.find((l) => l.startsWith("0::"));
  return join("/sys/fs/cgroup", v2?.slice(3) ?? "");
}

export function readPidsCgroup(dir: string): PidsCgroup {
  const max = Number(readFileSync(join(dir, "pids.max"), "utf8").trim());
  const events = readFileSync(join(dir, "pids.events"), "utf8");
  const refused = Number(/^max (\d+)$/m.exec(events)?.[1] ?? "0");
  const peakFile = join(dir, "pids.peak");
  const peak = existsSync(peakFile) ? Number(readFileSync(peakFile, "utf8").trim()) : undefined;
  return { max, refused, peak };
}
