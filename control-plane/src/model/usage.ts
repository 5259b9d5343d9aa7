// What a conversation costs, as GetConversation, the console and the metrics show it: each part
// with where it came from and when it was read (see usage/ for how each is measured).

/** CPU and memory as a cgroup counts them since it was made; -1 where the kernel offers no such figure. */
export interface CgroupUsage {
  /** Which cgroup and which of its files, in words. */
  source: string;
  cpuUserSeconds: number;
  cpuSystemSeconds: number;
  memoryBytes: number;
  memoryPeakBytes: number;
  /** -1: unlimited. */
  memoryLimitBytes: number;
  pids: number;
  measuredAtMs: number;
}

/** One sample of the Docker engine's stats for an enclosure's container. */
export interface EngineUsage {
  engine: string;
  cpuTotalSeconds: number;
  /** Percent of one CPU since the engine's previous sample; -1 without one. */
  cpuPercent: number;
  memoryUsageBytes: number;
  memoryLimitBytes: number;
  pids: number;
  measuredAtMs: number;
}

export interface WorkspaceUsage {
  source: "walk" | "volume";
  /** Allocated on disk. */
  bytes: number;
  entries: number;
  /** Stopped at a bound: bytes is a lower bound. */
  capped: boolean;
  note: string;
  measuredAtMs: number;
}

/** A part that could not be measured is undefined, with why in its `…Unavailable` field. */
export interface ConversationUsage {
  measuredAtMs: number;
  cgroup?: CgroupUsage;
  cgroupUnavailable: string;
  engine?: EngineUsage;
  engineUnavailable: string;
  workspace?: WorkspaceUsage;
  workspaceUnavailable: string;
}
