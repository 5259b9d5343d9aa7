// A tenant's tool-call arguments cannot stall or crash the shared control plane: arguments nested
// 10,000 deep are refused as invalid_arguments and audited like any refusal (they used to overflow
// the stack: gRPC UNKNOWN, no audit, the in-flight gauge stuck), and two loops of 15.8 MB /
// 1.3 million-key arguments leave another tenant's `read` calls fast (they used to block the event
// loop for seconds per call). A real control plane in its own process, host placement, its
// Prometheus endpoint scraped.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneCallError, ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { addToken } from "@enclave/control-plane/tenants/token-file.js";
import type { AuditEvent, ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { freePort } from "../helpers/free-port.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";

/** Another tenant's worst-case `read` under the attack, at the 99th percentile. */
const P99_BOUND_MS = 1_000;
const VICTIM_READS = 150;
/** The attack stops after this long even when the victim has not made its reads (as before the bound: seconds per read). */
const ATTACK_MAX_MS = 60_000;

let dir: string;
let proc: ControlPlaneProcess;
let metricsPort: number;
let acme: ControlPlaneClient;
let globex: ControlPlaneClient;

/** A call's error code, from its result or its status ("ok" when it succeeded). */
function codeOf(p: Promise<ToolResult>): Promise<string> {
  return p.then(
    (r) => (r.isError ? r.errorCode : "ok"),
    (err: unknown) => (err instanceof ControlPlaneCallError ? `status:${err.code ?? err.grpcCode}` : "thrown"),
  );
}

async function inFlight(): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^enclave_tool_calls_in_flight\{tool="([^"]*)"\} (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-argument-bounds-"));
  const tokensFile = join(dir, "tokens.json");
  const acmeToken = addToken(tokensFile, "acme").token;
  const globexToken = addToken(tokensFile, "globex").token;
  metricsPort = await freePort();
  proc = await startControlPlaneProcess(join(dir, "data"), { ENCLAVE_TOKENS_FILE: tokensFile, ENCLAVE_METRICS_LISTEN: `127.0.0.1:${metricsPort}` });
  acme = new ControlPlaneClient(proc.client.address, { token: acmeToken });
  globex = new ControlPlaneClient(proc.client.address, { token: globexToken });
}, 90_000);

afterAll(async () => {
  acme?.close();
  globex?.close();
  if (proc) await stopControlPlaneProcess(proc, "SIGTERM").catch(() => stopControlPlaneProcess(proc, "SIGKILL"));
  rmSync(dir, { recursive: true, force: true });
});

describe("tool-call arguments a tenant sends", () => {
  it("nested 10,000 deep: refused as invalid_arguments, audited, and the in-flight gauge returns to zero", async () => {
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    // Arguments go as JSON text (the client passes a string as it is).
    const deep = `{"path":"x.txt","deep":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const calls = 50;
    const codes = await Promise.all(Array.from({ length: calls }, () => codeOf(acme.callTool(run, "read", deep))));
    expect(new Set(codes)).toEqual(new Set(["invalid_arguments"]));
    const history: AuditEvent[] = [];
    await acme.subscribeAudit({ conversationId: conv, includeHistory: true, historyOnly: true }, (e) => history.push(e)).done;
    expect(history.filter((e) => e.kind === "tool_call" && e.tool === "read" && e.outcome === "refused:invalid_arguments").length).toBe(calls);
    expect([...(await inFlight()).values()].every((v) => v === 0)).toBe(true);
  }, 120_000);

  it("two loops of 15.8 MB, 1.3 million-key arguments leave another tenant's reads within the bound", async () => {
    const victimConv = (await globex.createConversation()).id;
    const victimRun = (await globex.openRun(victimConv, { approvalPolicy: "never" })).id;
    expect((await globex.callTool(victimRun, "write", { path: "notes.txt", content: "globex's notes\n" })).isError).toBe(false);
    const readOnce = async (): Promise<number> => {
      const t = performance.now();
      const r = await globex.callTool(victimRun, "read", { path: "notes.txt" });
      expect(r.isError).toBe(false);
      return performance.now() - t;
    };
    const quiet: number[] = [];
    for (let i = 0; i < 30; i++) quiet.push(await readOnce());

    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const keys: string[] = [];
    for (let i = 0; i < 1_300_000; i++) keys.push(`"k${i}":1`);
    const wide = `{"path":"x.txt",${keys.join(",")}}`;
    expect(wide.length).toBeGreaterThan(15_000_000);
    expect(wide.length).toBeLessThan(16 * 1024 * 1024);

    let attacking = true;
    const attackCodes: string[] = [];
    const attacker = async (): Promise<void> => {
      while (attacking) attackCodes.push(await codeOf(acme.callTool(run, "read", wide)));
    };
    const started = performance.now();
    const loops = [attacker(), attacker()];
    const underAttack: number[] = [];
    try {
      while (underAttack.length < VICTIM_READS && performance.now() - started < ATTACK_MAX_MS) underAttack.push(await readOnce());
    } finally {
      attacking = false;
      await Promise.all(loops);
    }
    process.stdout.write(
      `another tenant's read: p99 ${p99(quiet).toFixed(0)} ms quiet, ${p99(underAttack).toFixed(0)} ms under attack (${underAttack.length} reads, worst ${Math.max(...underAttack).toFixed(0)} ms; ${attackCodes.length} attack calls; bound ${P99_BOUND_MS} ms)\n`,
    );
    expect(new Set(attackCodes)).toEqual(new Set(["invalid_arguments"]));
    expect(underAttack.length).toBe(VICTIM_READS);
    expect(p99(underAttack)).toBeLessThan(P99_BOUND_MS);
    expect([...(await inFlight()).values()].every((v) => v === 0)).toBe(true);
  }, 180_000);
});
