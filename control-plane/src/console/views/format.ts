// Small display formats shared by the console's views.
import { formatDuration } from "../../vibe/worker.js";

export { formatDuration };

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2) return `${Math.round(n / 1024 ** 2)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}

/** UTC, to the second: the same text for every viewer and in the export. */
export function formatTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

export function shortId(id: string, n = 12): string {
  return id.length <= n ? id : id.slice(0, n);
}
