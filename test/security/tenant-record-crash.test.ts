// Promise: a tenant's conversation record survives a control-plane crash, and stays that tenant's.
// A control plane with TLS and two token tenants runs as a real process; one tenant makes a
// conversation, a run and a file; the process is killed with SIGKILL and started again on the same
// data folder: the conversation, its run and its file are there for its tenant, and still nothing
// for the other tenant.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { addToken } from "@enclave/control-plane/tenants/token-file.js";
import { outcome } from "../helpers/call-outcome.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { makeTestCerts } from "../helpers/tls-certs.js";

const dir = mkdtempSync(join(tmpdir(), "enclave-tenant-crash-"));
const opened: ControlPlaneClient[] = [];
let proc: ControlPlaneProcess | undefined;

afterAll(async () => {
  for (const c of opened) c.close();
  if (proc) await stopControlPlaneProcess(proc, "SIGKILL").catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("a tenant's conversation across a control-plane crash", () => {
  it("is still there for its tenant after SIGKILL and a restart on the same data, and still nothing to another tenant", async () => {
    const certs = makeTestCerts(dir);
    const tokensFile = join(dir, "tokens.json");
    const acmeToken = addToken(tokensFile, "acme").token;
    const globexToken = addToken(tokensFile, "globex").token;
    const env = { ENCLAVE_TLS_CERT: certs.serverCertFile, ENCLAVE_TLS_KEY: certs.serverKeyFile, ENCLAVE_TOKENS_FILE: tokensFile };
    const dataDir = join(dir, "data");
    const client = (p: ControlPlaneProcess, token: string): ControlPlaneClient => {
      const c = new ControlPlaneClient(p.address, { tls: { rootCerts: certs.ca }, token });
      opened.push(c);
      return c;
    };

    proc = await startControlPlaneProcess(dataDir, env, 60_000, undefined, "127.0.0.1:0");
    const acme = client(proc, acmeToken);
    const made = await acme.createConversation("kept");
    const run = (await acme.openRun("kept", { approvalPolicy: "never", resources: ["workspace"] })).id;
    const w = await acme.callTool(run, "write", { path: "notes.txt", content: "before the crash\n" });
    expect(w.isError, resultText(w)).toBe(false);

    expect(await stopControlPlaneProcess(proc, "SIGKILL")).toBe("SIGKILL");
    proc = await startControlPlaneProcess(dataDir, env, 60_000, undefined, "127.0.0.1:0");

    const acmeAgain = client(proc, acmeToken);
    const got = await acmeAgain.getConversation("kept");
    expect(got).toMatchObject({ id: "kept", tenant: "acme", createdAtMs: made.createdAtMs });
    expect((await acmeAgain.listConversations()).map((c) => c.id)).toEqual(["kept"]);
    expect((await acmeAgain.listRuns("kept")).map((r) => r.id)).toEqual([run]);
    const read = await acmeAgain.callTool(run, "read", { path: "notes.txt" });
    expect(read.isError, resultText(read)).toBe(false);
    expect(resultText(read)).toContain("before the crash");

    const globex = client(proc, globexToken);
    expect(await outcome(globex.getConversation("kept"))).toMatchObject({ grpcCode: status.NOT_FOUND, code: "not_found" });
    expect(await globex.listConversations()).toEqual([]);
  }, 120_000);
});
