// Each conversation's enclosure runs as a host uid of its own, from the range reserved for
// enclosures, through the real API over TLS with two token tenants: the uids differ per
// conversation, are never the image's 1000, stay the same for a running enclosure across a restart
// of the control plane (and stay held: a new enclosure after the restart gets another), and are
// freed with their conversation. Under runc the kernel keeps inotify instances per uid: one
// tenant's enclosure holding all of its own leaves the other tenant's its own.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import type { ControlPlaneConfig } from "@enclave/control-plane/config.js";
import type { EnclosureRuntime } from "@enclave/control-plane/model/enclosure.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { holdAllInotify } from "../helpers/exhaust-inotify.js";

const TENANTS = ["acme", "globex"] as const;
type TenantName = (typeof TENANTS)[number];

let svc: TenantService<TenantName>;
let config: ControlPlaneConfig;
let clients = {} as Record<TenantName, ControlPlaneClient>;
/** Every conversation made, by tenant, deleted at the end (which removes its enclosure). */
const made: Array<[TenantName, string]> = [];

function connectAll(): void {
  clients = Object.fromEntries(TENANTS.map((t) => [t, svc.client(t)])) as Record<TenantName, ControlPlaneClient>;
}

beforeAll(async () => {
  svc = await startTenantService({ tenants: TENANTS, prefix: "enclave-enc-uids-" });
  config = svc.config;
  connectAll();
}, 120_000);

afterAll(async () => {
  if (svc) for (const [t, id] of made) await clients[t].deleteConversation(id).catch(() => undefined);
  await svc?.close();
});

/** A conversation of the tenant with a running enclosure, and a run to call tools in it. */
async function enclosed(t: TenantName, name: string, runtime: EnclosureRuntime): Promise<{ conv: string; run: string }> {
  const conv = (await clients[t].createConversation(name)).id;
  made.push([t, conv]);
  const started = await clients[t].startEnclosure(conv, { runtime });
  expect(started.enclosure?.state).toBe("running");
  return { conv, run: await openRun(t, conv) };
}

async function openRun(t: TenantName, conv: string): Promise<string> {
  return (await clients[t].openRun(conv, { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
}

async function sh(t: TenantName, run: string, command: string): Promise<string> {
  const r = await clients[t].callTool(run, "exec", { command });
  expect(r.isError, resultText(r)).toBe(false);
  // The result's last line is the tool's own (exit code and time).
  return resultText(r)
    .replace(/\n?\[exit code [^\n]*\]\s*$/, "")
    .trim();
}

/** The uid and gid the enclosure's processes run as, read inside. */
async function idsInside(t: TenantName, run: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = (await sh(t, run, "echo $(id -u) $(id -g)")).split(" ").map(Number);
  return { uid: uid ?? -1, gid: gid ?? -1 };
}

function expectReserved(uid: number): void {
  const { base, count } = config.enclosure.uids;
  expect(uid).toBeGreaterThanOrEqual(base);
  expect(uid).toBeLessThan(base + count);
}

describe.each(TEST_RUNTIMES)("enclosures' own uids under %s", (runtime: EnclosureRuntime) => {
  it("differ per conversation, stay with a running enclosure across a restart, and are freed with its conversation", async () => {
    const a = await enclosed("acme", `uids-a-${runtime}`, runtime);
    const b = await enclosed("globex", `uids-b-${runtime}`, runtime);
    const idsA = await idsInside("acme", a.run);
    const idsB = await idsInside("globex", b.run);
    for (const ids of [idsA, idsB]) {
      expectReserved(ids.uid);
      expect(ids.gid).toBe(ids.uid);
    }
    expect(idsA.uid).not.toBe(idsB.uid);
    // The workspace was given to that uid: the enclosure can write it. (Python's stat: gVisor refuses coreutils' statx.)
    expect(await sh("acme", a.run, `touch /workspace/mine && python3 -c 'import os; print(os.stat("/workspace/mine").st_uid)'`)).toBe(String(idsA.uid));

    // A restart: enclosures keep running.
    await svc.restart({ deleteConversations: false });
    connectAll();
    const after = await clients.acme.getConversation(a.conv);
    expect(after.enclosure?.state).toBe("running");
    expect(await idsInside("acme", await openRun("acme", a.conv))).toEqual(idsA);
    // Both uids are still held: a new enclosure gets a third.
    const c = await enclosed("acme", `uids-c-${runtime}`, runtime);
    const idsC = await idsInside("acme", c.run);
    expectReserved(idsC.uid);
    expect([idsA.uid, idsB.uid]).not.toContain(idsC.uid);

    const held = (uid: number): boolean => existsSync(join(config.dataDir, "enclosure-uids", String(uid)));
    expect(held(idsC.uid)).toBe(true);
    await clients.acme.deleteConversation(c.conv);
    expect(held(idsC.uid)).toBe(false);
    expect(held(idsA.uid) && held(idsB.uid)).toBe(true);
  }, 240_000);
});

describe.runIf(TEST_RUNTIMES.includes("runc"))("inotify under runc", () => {
  it("one tenant's enclosure holding all of its inotify instances leaves the other tenant's its own", async () => {
    const a = await enclosed("acme", "inotify-a", "runc");
    const b = await enclosed("globex", "inotify-b", "runc");
    const heldCount = await sh("acme", a.run, holdAllInotify(120));
    expect(Number(heldCount)).toBeGreaterThan(0);
    const probe = (who: string) => `python3 -c 'import ctypes; print("${who}", ctypes.CDLL(None).inotify_init() >= 0)'`;
    // The positive control: acme's are all held.
    expect(await sh("acme", a.run, probe("acme"))).toBe("acme False");
    expect(await sh("globex", b.run, probe("globex"))).toBe("globex True");
  }, 240_000);
});
