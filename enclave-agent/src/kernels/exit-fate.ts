// Why a kernel process is gone, in words a user can act on. A SIGKILL Enclave did not send is
// checked against the memory cgroup's OOM-kill counter, so "out of memory" is said when it is known.
import { readFileSync } from "node:fs";
import { constants } from "node:os";

const OOM_EVENT_FILES = ["/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"];
const LIMIT_FILES = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"];

/** The memory cgroup's count of processes the OOM killer ended, when the kernel exposes it. */
export function oomKillCount(): number | undefined {
  for (const file of OOM_EVENT_FILES) {
    try {
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"));
      if (m) return Number(m[1]);
    } catch {
      // Not this cgroup layout.
    }
  }
  return undefined;
}

function memoryLimit(): string {
  for (const file of LIMIT_FILES) {
    try {
      const raw = readFileSync(file, "utf8").trim();
      const bytes = Number(raw);
      // cgroup v1 reports "no limit" as a huge number.
      if (Number.isFinite(bytes) && bytes > 0 && bytes < 2 ** 60) return ` (memory limit ${Math.round(bytes / 1024 ** 2)} MiB)`;
    } catch {
      // Not this cgroup layout.
    }
  }
  return "";
}

const SIGNAL_WORDS: Record<string, string> = {
  SIGSEGV: "a segmentation fault (a crash in native code)",
  SIGABRT: "an abort (a failed assertion in native code)",
  SIGBUS: "a bus error (a crash in native code)",
  SIGFPE: "an arithmetic fault in native code",
  SIGILL: "an illegal instruction in native code",
};

export interface ExitFacts {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when Enclave itself killed the kernel, saying why. */
  killedBy?: string;
  oomBefore: number | undefined;
}

export function describeExit(f: ExitFacts): string {
  if (f.killedBy) return f.killedBy;
  if (f.signal === "SIGKILL") {
    const after = oomKillCount();
    if (f.oomBefore !== undefined && after !== undefined && after > f.oomBefore) {
      return `it was killed by the out-of-memory killer: it used more memory than the placement allows${memoryLimit()}`;
    }
    return "it was killed by SIGKILL from outside Enclave (most often the out-of-memory killer)";
  }
  if (f.signal) {
    const words = SIGNAL_WORDS[f.signal];
    const num = constants.signals[f.signal];
    return words ? `it crashed with ${f.signal} (${words})` : `it was ended by ${f.signal}${num ? ` (signal ${num})` : ""}`;
  }
  return `it exited with code ${f.code ?? "?"} (for example os._exit() or process.exit() in a cell)`;
}
