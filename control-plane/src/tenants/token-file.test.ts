import { expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { parseTokenFile } from "./token-file.js";

function parsed(quotas: Record<string, unknown>): string {
  try {
    parseTokenFile("t.json", JSON.stringify({ version: 1, tenants: { acme: { quotas } }, tokens: [] }));
    return "ok";
  } catch (err) {
    return err instanceof EnclaveError ? err.code : String(err);
  }
}

it("takes the maxima, hostAgents and devcontainerBuilds in a tenant's quotas, each checked for its kind of value", () => {
  expect(parsed({ maxMemoryBytes: 1024 ** 3, maxPids: 64, maxCpus: 0.5, maxDiskBytes: 64 * 1024 ** 2, hostAgents: 2, devcontainerBuilds: 1 })).toBe("ok");
  for (const bad of [
    { maxMemoryBytes: 1.5 },
    { maxPids: -1 },
    { maxCpus: 0.001 },
    { maxCpus: "2" },
    { devcontainerBuilds: 2 },
    { hostAgents: 0.5 },
    { maxDisk: 1 },
  ]) {
    expect(parsed(bad), JSON.stringify(bad)).toBe("invalid_arguments");
  }
});
