// Per-tenant sums for the metrics: tenants are the only label, and a bounded one.
import { describe, expect, it } from "vitest";
import type { ConversationUsage } from "../model/usage.js";
import { OTHER_TENANT, sumPerTenant } from "./tenant-usage.js";

const usage = (cpu: number, mem: number, disk: number): ConversationUsage => ({
  measuredAtMs: 0,
  cgroup: { source: "", cpuUserSeconds: cpu, cpuSystemSeconds: -1, memoryBytes: mem, memoryPeakBytes: mem, memoryLimitBytes: -1, pids: 1, measuredAtMs: 0 },
  cgroupUnavailable: "",
  engineUnavailable: "",
  workspace: { source: "walk", bytes: disk, entries: 1, capped: false, note: "", measuredAtMs: 0 },
  workspaceUnavailable: "",
});

describe("per-tenant usage", () => {
  it("sums each tenant's conversations, -1 (not offered) counting as nothing", () => {
    const sums = sumPerTenant([
      { tenant: "acme", placement: "host", usage: usage(1.5, 100, 10) },
      { tenant: "acme", placement: "enclosure", usage: usage(2, 50, 5) },
      { tenant: "local", placement: "host", usage: { measuredAtMs: 0, cgroupUnavailable: "none", engineUnavailable: "none", workspaceUnavailable: "none" } },
    ]);
    expect(sums.find((s) => s.tenant === "acme")).toEqual({
      tenant: "acme",
      conversations: { host: 1, enclosure: 1 },
      cpuSeconds: 3.5,
      memoryBytes: 150,
      workspaceBytes: 15,
    });
    expect(sums.find((s) => s.tenant === "local")?.conversations).toEqual({ host: 1, enclosure: 0 });
  });

  it("names at most the bound's tenants and sums the rest, and any odd name, under one label no tenant can have", () => {
    const figures = ["a", "b", "c", "Not A Tenant"].map((tenant) => ({ tenant, placement: "host" as const, usage: usage(1, 1, 1) }));
    const sums = sumPerTenant(figures, 2);
    expect(sums.map((s) => s.tenant).sort()).toEqual([OTHER_TENANT, "a", "b"].sort());
    expect(sums.find((s) => s.tenant === OTHER_TENANT)?.conversations.host).toBe(2);
  });
});
