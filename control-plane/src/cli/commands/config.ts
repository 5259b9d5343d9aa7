// enclave config: the configuration `enclave serve` would run with here, and where each value came from.
import { configRows } from "../config-sources.js";
import type { CliOptions } from "../options.js";
import { loadServeConfig } from "../serve-config.js";
import { say, sayJson } from "../terminal-text.js";

function shown(value: unknown): string {
  return typeof value === "string" ? (value === "" ? '""' : value) : JSON.stringify(value);
}

export function configCommand({ opts }: { opts: CliOptions }): void {
  const rows = configRows(loadServeConfig(opts), opts);
  if (opts.json) return sayJson(rows);
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) say(`${r.name.padEnd(width)}  ${shown(r.value)}  (${r.source})`);
}
