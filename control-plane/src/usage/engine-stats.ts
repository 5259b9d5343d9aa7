// The Docker engine's stats for a container, as one EngineUsage: CPU time in seconds (the engine
// counts nanoseconds), memory charged and its limit, and the container's tasks. The engine's
// memory figure is reported as it gives it (with cgroup v1, page cache included).
import type Docker from "dockerode";
import type { EngineUsage } from "../model/usage.js";

export function engineUsageOf(stats: Docker.ContainerStats, engine: string, now = Date.now()): EngineUsage {
  const total = stats.cpu_stats?.cpu_usage?.total_usage ?? 0;
  const before = stats.precpu_stats?.cpu_usage?.total_usage ?? 0;
  const beforeAt = Date.parse(stats.preread ?? "");
  const at = Date.parse(stats.read ?? "");
  // A one-shot sample has no previous one (its preread is the zero time).
  const span = at - beforeAt;
  const percent = before > 0 && Number.isFinite(span) && span > 0 ? ((total - before) / 1e6 / span) * 100 : -1;
  return {
    engine,
    cpuTotalSeconds: total / 1e9,
    cpuPercent: percent,
    memoryUsageBytes: stats.memory_stats?.usage ?? -1,
    memoryLimitBytes: stats.memory_stats?.limit ?? -1,
    pids: stats.pids_stats?.current ?? -1,
    measuredAtMs: now,
  };
}
