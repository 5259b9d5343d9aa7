// One tenant's flood of cheap calls cannot erase another tenant's audit trail: retention keeps a
// budget per tenant and, when the whole log is over its size, prunes the tenant holding the most.
// The pruning is itself recorded, per tenant, where an operator (and that tenant) can read it.
// A real control plane with a token file, two plain tenants and an operator, through the real API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

const FLOOD = 3000;
const KEPT_CALLS = 20;

let svc: TenantService<"acme" | "globex" | "ops">;
let cp: ControlPlane;
const clients: Record<"acme" | "globex" | "ops", ControlPlaneClient | undefined> = { acme: undefined, globex: undefined, ops: undefined };

function history(c: ControlPlaneClient): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  return c.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => events.push(e)).done.then(() => events);
}

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    transport: "unix",
    // Small limits, so a few thousand calls reach them; pruning runs when the test says (as the hourly one would).
    config: (c) => void (c.auditRetention = { maxAgeMs: 0, maxBytes: 1024 * 1024, maxBytesPerTenant: 256 * 1024, pruneIntervalMs: 3_600_000 }),
    prefix: "enclave-audit-budget-",
  });
  cp = svc.cp;
  for (const t of ["acme", "globex", "ops"] as const) clients[t] = svc.client(t);
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe("audit retention per tenant", () => {
  it("a tenant's flood prunes its own oldest events only, and the pruning is recorded for it", async () => {
    const acme = clients.acme as ControlPlaneClient;
    const globex = clients.globex as ControlPlaneClient;
    const ops = clients.ops as ControlPlaneClient;
    const gConv = (await globex.createConversation()).id;
    const gRun = (await globex.openRun(gConv, { approvalPolicy: "never" })).id;
    // Refused calls (an unknown field) are audited like any call and need no placement: cheap.
    for (let i = 0; i < KEPT_CALLS; i++) expect((await globex.callTool(gRun, "read", { path: "a.txt", nope: i })).errorCode).toBe("invalid_arguments");

    const aConv = (await acme.createConversation()).id;
    const aRun = (await acme.openRun(aConv, { approvalPolicy: "never" })).id;
    const filler = "f".repeat(200);
    for (let sent = 0; sent < FLOOD; sent += 16) {
      await Promise.all(Array.from({ length: 16 }, (_, i) => acme.callTool(aRun, "read", { path: "a.txt", [`nope_${filler}`]: sent + i })));
    }
    cp.audit.prune();

    const globexCalls = (await history(globex)).filter((e) => e.kind === "tool_call");
    expect(globexCalls).toHaveLength(KEPT_CALLS);
    const acmeCalls = (await history(acme)).filter((e) => e.kind === "tool_call");
    expect(acmeCalls.length).toBeGreaterThan(0);
    expect(acmeCalls.length).toBeLessThan(FLOOD);
    // The newest of acme's calls are the ones kept.
    expect(acmeCalls.at(-1)?.seq).toBe(Math.max(...acmeCalls.map((e) => e.seq)));
    // An operator sees what was pruned for whom; the tenant sees its own; the other tenant sees nothing of it.
    const pruned = (await history(ops)).filter((e) => e.kind === "audit_pruned");
    expect(pruned.map((e) => e.tenant)).toEqual(["acme"]);
    expect((await history(acme)).filter((e) => e.kind === "audit_pruned")).toHaveLength(1);
    expect((await history(globex)).filter((e) => e.kind === "audit_pruned")).toHaveLength(0);
  }, 180_000);
});
