// `enclave config` shows every value loadConfig resolves: a value added to the configuration without
// a row here (and where it comes from) fails this test.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { CONFIG_SOURCES } from "./config-sources.js";

/** The dotted paths of every leaf of a configuration object (arrays count as leaves). */
function leaves(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}

describe("config sources", () => {
  it("covers every leaf of the loaded configuration, each once", () => {
    const rows = CONFIG_SOURCES.map((s) => s.path);
    expect(new Set(rows).size).toBe(rows.length);
    const uncovered = leaves(loadConfig()).filter((leaf) => !rows.some((r) => leaf === r || leaf.startsWith(`${r}.`)));
    expect(uncovered).toEqual([]);
  });
});
