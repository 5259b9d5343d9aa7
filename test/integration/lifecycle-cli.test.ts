// The idle policy and a tenant's pause through the real `enclave` CLI against a real control plane
// with token tenants: a conversation's idle timeout and lifetime set and shown, a value past the
// tenant's maximum refused (exit 1), and `tenants pause|resume`, refused to a plain tenant's token.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Conversation, TenantPauseState } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

const exec = promisify(execFile);
const cli = join(repoRoot, "bin", "enclave");
let svc: TenantService<"acme" | "ops">;

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

async function enclave(token: string, args: string[]): Promise<Out> {
  try {
    const r = await exec(cli, [...args, "--address", svc.server.address, "--token", token], { timeout: 120_000 });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme"],
    operators: ["ops"],
    transport: "unix",
    prefix: "enclave-lifecycle-cli-",
    quotas: { acme: { maxIdleSeconds: 7200 } },
  });
});
afterAll(async () => svc?.close());

describe("enclave conversations and tenants, for the idle policy", () => {
  it("creates with an idle timeout and lifetime, shows them, changes them, and refuses one past the maximum", async () => {
    const acme = svc.tokens.acme;
    const created = await enclave(acme, ["conversations", "create", "cli-life", "--idle", "1800", "--lifetime", "3600", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout) as Conversation).toMatchObject({ lifecycleState: "active", idleTimeoutSeconds: 1800, maxLifetimeSeconds: 3600 });
    const shown = await enclave(acme, ["conversations", "show", "cli-life"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("active (idle 1800 s, lifetime 3600 s)");
    const changed = await enclave(acme, ["conversations", "lifecycle", "cli-life", "--idle", "600", "--json"]);
    expect(changed.code, changed.stderr).toBe(0);
    expect((JSON.parse(changed.stdout) as Conversation).idleTimeoutSeconds).toBe(600);
    const past = await enclave(acme, ["conversations", "lifecycle", "cli-life", "--idle", "7201"]);
    expect(past.code).toBe(1);
    expect(past.stderr).toContain("maxIdleSeconds");
    expect((await enclave(acme, ["conversations", "lifecycle", "cli-life", "--idle", "soon"])).code).toBe(2);
    await svc.cp.sleepConversation("acme.cli-life", "operator");
    // Nothing ran: the conversation had no placement to put to sleep, so it stays active.
    expect((await enclave(acme, ["conversations", "get", "cli-life"])).stdout).toContain("active");
  });

  it("pauses and resumes a tenant for an operator only", async () => {
    expect((await enclave(svc.tokens.acme, ["tenants", "pause", "acme"])).code).toBe(1);
    const paused = await enclave(svc.tokens.ops, ["tenants", "pause", "acme", "--reason", "maintenance", "--json"]);
    expect(paused.code, paused.stderr).toBe(0);
    expect(JSON.parse(paused.stdout) as TenantPauseState).toMatchObject({ tenant: "acme", paused: true, pausedBy: "ops", reason: "maintenance" });
    const refused = await enclave(svc.tokens.acme, ["conversations", "list"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("enclave tenants resume acme");
    const resumed = await enclave(svc.tokens.ops, ["tenants", "resume", "acme"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("not paused");
    expect((await enclave(svc.tokens.acme, ["conversations", "list"])).code).toBe(0);
  });
});
