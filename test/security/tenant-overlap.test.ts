// Promise: two tenants share no writable object and no kernel identity. For two tenants' host
// sandboxes, and for two tenants' enclosures under each runtime (runc, runsc), everything each is
// made of is collected — from inside through the API (exec tool calls: uid and gids, namespaces,
// cgroups, writable mounts, /tmp) and, for enclosures, from outside (docker inspect's volumes and
// IPC mode, the host's /proc of the container's first process) — and the two sets must not overlap.
// A uid is an identity within its user namespace, and under runsc within its own kernel: there the
// inside views are the sandbox kernel's, and the container's first process on the host is gVisor's
// own sandbox, not tenant code, so only volumes, IPC mode, cgroups and /tmp are compared.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import type { EnclosureRuntime } from "@enclave/control-plane/model/enclosure.js";
import type { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { conversationKey } from "@enclave/control-plane/conversations/conversation-keys.js";
import { hostCgroups, type InsideView, insideView, type Namespace, outsideView, type OutsideView, shared } from "../helpers/sandbox-identity.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

const TENANTS = ["acme", "globex"] as const;
type TenantName = (typeof TENANTS)[number];
/** Namespaces whose objects are writable state (IPC objects, sockets, mounts, hostnames, processes). */
const PRIVATE_NS: Namespace[] = ["ipc", "net", "mnt", "uts", "pid"];

let svc: TenantService<TenantName>;
let cp: ControlPlane;
const clients = {} as Record<TenantName, ControlPlaneClient>;

beforeAll(async () => {
  svc = await startTenantService({ tenants: TENANTS, prefix: "enclave-overlap-" });
  cp = svc.cp;
  for (const t of TENANTS) clients[t] = svc.client(t);
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

const marker = (t: TenantName): string => `overlap-marker-${t}`;

/** Every overlap between two inside views, by item; empty when none. */
function insideOverlaps(a: InsideView, b: InsideView, sameKernel: boolean): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const add = (item: string, common: string[]): void => {
    if (common.length > 0) found[item] = common;
  };
  if (sameKernel) {
    add("uid (within its user namespace)", shared([`${a.ns.user} uid ${a.uid}`], [`${b.ns.user} uid ${b.uid}`]));
    add("gids (within the user namespace)", a.ns.user === b.ns.user ? shared(a.gids, b.gids) : []);
    for (const n of PRIVATE_NS) add(`${n} namespace`, shared([a.ns[n]], [b.ns[n]]));
    // A cgroup path read inside a cgroup namespace is relative to that namespace's root ("/" for
    // both): it names the same cgroup only when the two share the namespace. The host view decides.
    if (a.ns.cgroup === b.ns.cgroup) add("cgroups", shared(a.cgroups, b.cgroups));
    add("writable mounts (major:minor root)", shared(a.writableMounts, b.writableMounts));
    add("/tmp (device:inode)", shared([a.tmpId], [b.tmpId]));
  }
  add("/tmp entries of the other tenant", [...a.tmpEntries.filter((e) => e === marker("globex")), ...b.tmpEntries.filter((e) => e === marker("acme"))]);
  return found;
}

function outsideOverlaps(a: OutsideView, b: OutsideView, runtime: EnclosureRuntime): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const add = (item: string, common: string[]): void => {
    if (common.length > 0) found[item] = common;
  };
  add("writable volumes and binds", shared(a.writableVolumes, b.writableVolumes));
  if (runtime === "runc") for (const n of PRIVATE_NS) add(`${n} namespace (host view)`, shared([a.ns[n]], [b.ns[n]]));
  add("cgroups (host view)", shared(a.cgroups, b.cgroups));
  const sharing = [a.ipcMode, b.ipcMode].filter((m) => m === "host" || m === "shareable" || m.startsWith("container:"));
  add("IPC mode that shares", sharing);
  return found;
}

/** Probes each tenant's sandbox in turn, then the first again, so that each probe could see the other's /tmp marker. */
async function probeBoth(runs: Record<TenantName, string>): Promise<Record<TenantName, InsideView>> {
  await insideView(clients.acme, runs.acme, marker("acme"));
  const globex = await insideView(clients.globex, runs.globex, marker("globex"));
  const acme = await insideView(clients.acme, runs.acme, marker("acme"));
  return { acme, globex };
}

describe("two tenants' host sandboxes", () => {
  it("share no uid, namespace, cgroup, writable mount or /tmp", async () => {
    const runs = {} as Record<TenantName, string>;
    for (const t of TENANTS) {
      const conv = (await clients[t].createConversation("overlap-host")).id;
      runs[t] = (await clients[t].openRun(conv, { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    }
    const seen = await probeBoth(runs);
    // The probe read real values: a wrong parse would compare empty sets and pass.
    for (const v of Object.values(seen)) {
      expect(v.uid).toMatch(/^\d+$/);
      expect(v.ns.ipc).toMatch(/^ipc:\[\d+\]$/);
      expect(v.cgroups.length).toBeGreaterThan(0);
      expect(v.writableMounts.length).toBeGreaterThan(0);
      expect(v.tmpEntries).toContain(marker(v === seen.acme ? "acme" : "globex"));
    }
    expect(insideOverlaps(seen.acme, seen.globex, true)).toEqual({});
    // Each agent's cgroups as the host names them, in the hierarchies that bound a sandbox (the
    // others hold no limit and nothing a tenant can write): one of its own in each, none shared.
    const outside = {} as Record<TenantName, string[]>;
    for (const t of TENANTS) {
      const pid = cp.hostAgents.auditTarget(conversationKey(t, "overlap-host"))?.agentPid;
      expect(pid, `${t}'s host agent`).toBeTypeOf("number");
      outside[t] = ["pids", "memory", "cpu"].map((g) => hostCgroups(pid as number).find((c) => c.split(":")[0]?.split(",").includes(g)) ?? `${g}: none`);
      for (const c of outside[t]) expect(c).toMatch(/^[\w,]+:\/.+/);
    }
    expect(shared(outside.acme, outside.globex)).toEqual([]);
  }, 120_000);
});

describe.each(TEST_RUNTIMES)("two tenants' enclosures under %s", (runtime: EnclosureRuntime) => {
  it("share no uid, namespace, cgroup, writable mount, volume or /tmp", async () => {
    const runs = {} as Record<TenantName, string>;
    const outside = {} as Record<TenantName, OutsideView>;
    const convs = {} as Record<TenantName, string>;
    try {
      for (const t of TENANTS) {
        convs[t] = (await clients[t].createConversation(`overlap-${runtime}`)).id;
        const started = await clients[t].startEnclosure(convs[t], { runtime });
        expect(started.enclosure?.state).toBe("running");
        runs[t] = (await clients[t].openRun(convs[t], { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
        outside[t] = await outsideView(started.enclosure?.containerId ?? "");
      }
      const seen = await probeBoth(runs);
      for (const t of TENANTS) {
        expect(seen[t].tmpEntries).toContain(marker(t));
        expect(outside[t].writableVolumes.length).toBeGreaterThan(0);
        expect(outside[t].ns.ipc).toMatch(/^ipc:\[\d+\]$/);
      }
      expect({ inside: insideOverlaps(seen.acme, seen.globex, runtime === "runc"), outside: outsideOverlaps(outside.acme, outside.globex, runtime) }).toEqual({
        inside: {},
        outside: {},
      });
    } finally {
      for (const t of TENANTS) if (convs[t]) await clients[t].stopEnclosure(convs[t]).catch(() => undefined);
    }
  }, 240_000);
});
