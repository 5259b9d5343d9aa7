// A plain tenant cannot run the shared control plane out of memory through the console's event
// stream: it opens 20 `/events?audit=*` streams it never reads, then raises and cancels permission
// cards with 64 KiB arguments (each card is pushed, rendered, to every stream). The streams past the
// tenant's bound are refused (429), the admitted ones are cut off once their reader is too far
// behind, and the control plane's resident memory stays flat. A real control plane in its own
// process (`enclave serve` from dist/), its memory read from /proc.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { addToken } from "@enclave/control-plane/tenants/token-file.js";
import { freePort } from "../helpers/free-port.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";

const STREAMS = 20;
const CARDS = 600;
const ARGUMENT_BYTES = 64 * 1024;
/** What the attack may add to the control plane's resident memory (before the bound it added over 1 GB for 600 cards). */
const GROWTH_BOUND_MB = 200;

let dir: string;
let proc: ControlPlaneProcess;
let consolePort: number;
let acme: ControlPlaneClient;
let acmeToken: string;

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kb / 1024;
}

/** An /events stream this side never reads: its status, and when the server ended it. */
function neverRead(token: string): Promise<{ status: number; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: consolePort, path: "/events?audit=*", headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.pause();
      resolve({ status: res.statusCode ?? 0, res });
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-stream-memory-"));
  const tokensFile = join(dir, "tokens.json");
  acmeToken = addToken(tokensFile, "acme").token;
  consolePort = await freePort();
  proc = await startControlPlaneProcess(join(dir, "data"), { ENCLAVE_TOKENS_FILE: tokensFile, ENCLAVE_CONSOLE_LISTEN: `127.0.0.1:${consolePort}` });
  acme = new ControlPlaneClient(proc.client.address, { token: acmeToken });
}, 90_000);

afterAll(async () => {
  acme?.close();
  if (proc) await stopControlPlaneProcess(proc, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("console event streams under a never-reading tenant", () => {
  it("refuses streams past the tenant's bound, cuts off the slow readers and keeps memory flat", async () => {
    const pid = proc.child.pid as number;
    const conv = (await acme.createConversation()).id;
    // Policy "write": every write waits for a permission card.
    const run = (await acme.openRun(conv, { approvalPolicy: "write" })).id;
    const content = "x".repeat(ARGUMENT_BYTES);
    // Someone attached who reads (the never-read streams are cut off, and then attach no one).
    const watcher = acme.subscribeCards(conv, () => undefined);
    await watcher.ready;
    let raised = 0;
    /** Waits (bounded) until exactly `n` cards of the conversation are open. */
    const openCards = async (n: number): Promise<void> => {
      for (let tries = 0; (await acme.listCards(conv, false)).length !== n; tries++) {
        if (tries > 1000) throw new Error(`the conversation never had ${n} open cards`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    /** Raises `n` permission cards, a few at a time, and cancels each once it is open. */
    const raiseAndCancel = async (n: number): Promise<void> => {
      for (let done = 0; done < n; done += 8) {
        const batch = Math.min(8, n - done);
        const aborts = Array.from({ length: batch }, () => new AbortController());
        const calls = aborts.map((a, i) =>
          acme.callTool(run, "write", { path: `f${raised + i}.txt`, content }, undefined, { signal: a.signal }).catch(() => undefined),
        );
        await openCards(batch);
        for (const a of aborts) a.abort();
        await Promise.all(calls);
        await openCards(0);
        raised += batch;
      }
    };

    const streams = [];
    for (let i = 0; i < STREAMS; i++) streams.push(await neverRead(acmeToken));
    const admitted = streams.filter((s) => s.status === 200);
    const refused = streams.filter((s) => s.status === 429);

    await raiseAndCancel(16);
    const before = rssMb(pid);
    await raiseAndCancel(CARDS / 2);
    const half = rssMb(pid);
    await raiseAndCancel(CARDS / 2);
    const after = rssMb(pid);
    process.stdout.write(
      `control plane RSS: ${before.toFixed(0)} MB before ${CARDS} cards, ${half.toFixed(0)} MB half-way, ${after.toFixed(0)} MB after (bound: +${GROWTH_BOUND_MB} MB)\n`,
    );
    expect(after - before).toBeLessThan(GROWTH_BOUND_MB);
    expect(admitted.length).toBe(LIMITS.tenantStreams.console_events);
    expect(refused.length).toBe(STREAMS - LIMITS.tenantStreams.console_events);
    // Every admitted stream was cut off by the server: read now, each ends (it would never end if it
    // were still open) after far less than the attack wrote to it.
    const received = await Promise.all(
      admitted.map(
        (s) =>
          new Promise<number | "still open">((resolve) => {
            let bytes = 0;
            const timer = setTimeout(() => resolve("still open"), 15_000);
            s.res.on("data", (c: Buffer) => (bytes += c.length));
            s.res.on("close", () => {
              clearTimeout(timer);
              resolve(bytes);
            });
            s.res.resume();
          }),
      ),
    );
    process.stdout.write(`bytes each cut-off stream delivered: ${received.join(", ")}\n`);
    for (const r of received) expect(r !== "still open" && r < (CARDS * ARGUMENT_BYTES) / 4).toBe(true);
    // The refused streams are in the tenant's audit trail (a flood of refusals is one event with a count).
    const trail: string[] = [];
    await acme.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => trail.push(`${e.kind} ${e.outcome}`)).done;
    expect(trail).toContain("quota_exceeded refused:quota_exceeded");
    // The control plane still serves the tenant.
    expect((await acme.listConversations()).map((c) => c.id)).toContain(conv);
    watcher.cancel();
  }, 300_000);
});
