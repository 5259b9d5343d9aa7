// The control plane as a real process, killed with SIGKILL in the middle of calls and started again
// on the same data folder: every conversation whose creation was answered, every run that was
// opened, every tool call that was answered (its audit row) and every card number taken are still
// there, card numbers go on rising, and every conversation works. Host agents do not outlive the
// control plane: the next call on a conversation whose host kernel was lost says so.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { argumentsDigest } from "@enclave/control-plane/audit/audit-log.js";
import { type ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { eventually, until } from "../helpers/wait.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-restart-"));
let cp: ControlPlaneProcess | undefined;

afterAll(async () => {
  if (cp) await stopControlPlaneProcess(cp, "SIGKILL").catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

async function auditOf(client: ControlPlaneClient, conversationId: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for await (const e of client.auditEvents({ conversationId, includeHistory: true, historyOnly: true })) events.push(e);
  return events;
}

interface Acked {
  conversationId: string;
  path: string;
  content: string;
}

describe("a control plane killed with SIGKILL in the middle of calls", () => {
  it("loses nothing committed, keeps card numbers rising, says host kernels were lost, and every conversation works", async () => {
    cp = await startControlPlaneProcess(dataDir);
    let client = cp.client;
    const convs = ["fault-a", "fault-b", "fault-c"];
    const runs: Record<string, string> = {};
    for (const id of convs) {
      await client.createConversation(id);
      runs[id] = (await client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "shell", "kernel"] })).id;
    }
    // A host kernel holding a variable, which the crash takes with it.
    const defined = await client.callTool(runs["fault-a"] as string, "eval", {
      description: "define a variable in the host kernel",
      language: "python",
      code: "x = 41",
    });
    expect(defined.isError, resultText(defined)).toBe(false);
    // A permission card raised (its number taken) and left open when the crash comes; an operator is attached to answer.
    const asking = (await client.openRun("fault-b", { approvalPolicy: "write", resources: ["workspace"], questionTimeoutSeconds: 600 })).id;
    const operator = client.subscribeCards("fault-b", () => undefined);
    await operator.ready;
    const askingCall = client.callTool(asking, "write", { path: "asked.txt", content: "asked\n" }).catch(() => undefined);
    const card = await eventually(async () => (await client.listCards("fault-b"))[0], "the permission card");

    // The burst: writers on every conversation, and conversations and runs being made, each looping
    // until the kill, so calls are always in flight when it comes.
    const acked: Acked[] = [];
    const created: string[] = [];
    const opened: string[] = [];
    let killed = false;
    let n = 0;
    const writer = async (conversationId: string): Promise<void> => {
      while (!killed) {
        const i = n++;
        const write: Acked = { conversationId, path: `burst/${i}.txt`, content: `write ${i}\n` };
        const r = await client.callTool(runs[conversationId] as string, "write", { path: write.path, content: write.content }).catch(() => undefined);
        if (r && !r.isError) acked.push(write);
      }
    };
    const maker = async (): Promise<void> => {
      // A few: each is checked to work after the restart.
      while (!killed && created.length < 6) {
        const id = `fault-new-${n++}`;
        if (
          !(await client.createConversation(id).then(
            () => true,
            () => false,
          ))
        )
          continue;
        created.push(id);
        const run = await client.openRun(id, { approvalPolicy: "never", resources: ["workspace"] }).catch(() => undefined);
        if (run) opened.push(run.id);
      }
    };
    const burst = [...convs.flatMap((id) => [writer(id), writer(id)]), maker()];
    await until(() => acked.length >= 10 && opened.length >= 2, "part of the burst answered", 60_000);
    killed = true;
    cp.child.kill("SIGKILL");
    await cp.exited;
    await Promise.allSettled([...burst, askingCall]);
    // What was answered before the kill, and only that, is what must have been committed.
    const answeredWrites = [...acked];
    const answeredConversations = [...created];
    const answeredRuns = [...opened];
    expect(answeredWrites.length).toBeGreaterThan(0);

    cp = await startControlPlaneProcess(dataDir);
    client = cp.client;

    const ids = new Set((await client.listConversations()).map((c) => c.id));
    for (const id of [...convs, ...answeredConversations]) expect(ids, `conversation ${id}`).toContain(id);
    const runIds = new Set((await client.listRuns()).map((r) => r.id));
    for (const id of [...Object.values(runs), asking, ...answeredRuns]) expect(runIds, `run ${id}`).toContain(id);

    // Every answered write is on disk and in the audit log.
    for (const w of answeredWrites) {
      const conv = await client.getConversation(w.conversationId);
      expect(readFileSync(join(conv.workspacePath, w.path), "utf8")).toBe(w.content);
    }
    for (const id of convs) {
      const digests = new Set((await auditOf(client, id)).filter((e) => e.kind === "tool_call" && e.outcome === "ok").map((e) => e.argumentsDigest));
      for (const w of answeredWrites.filter((a) => a.conversationId === id)) {
        expect(digests.has(argumentsDigest({ path: w.path, content: w.content })), `audit row of ${w.path}`).toBe(true);
      }
    }

    // The host kernel did not survive, and the next call on its conversation says so (once).
    const first = await client.callTool(runs["fault-a"] as string, "eval", {
      description: "read the variable back after restart",
      language: "python",
      code: "print(x)",
    });
    expect(resultText(first)).toContain("host_agent_lost");
    expect(first.errorCode).toBe("cell_error");
    const second = await client.callTool(runs["fault-a"] as string, "list", {});
    expect(resultText(second)).not.toContain("host_agent_lost");
    expect((await auditOf(client, "fault-a")).some((e) => e.kind === "agent_restarted" && e.detail.includes("host_agent_lost"))).toBe(true);

    // Card numbers go on from where they were, the open card's number never reused.
    operator.cancel();
    const operatorAgain = client.subscribeCards("fault-b", () => undefined);
    await operatorAgain.ready;
    const askingAgain = client.callTool(asking, "write", { path: "asked-again.txt", content: "again\n" }).catch(() => undefined);
    const next = await eventually(async () => (await client.listCards("fault-b")).find((c) => c.state === "open"), "a new permission card");
    expect(next.number).toBeGreaterThan(card.number);
    await client.answerCard("fault-b", next.number, { selected: ["deny"] });
    expect((await askingAgain)?.errorCode).toBe("approval_refused");
    operatorAgain.cancel();

    // Every conversation works: the runs from before the crash, and fresh ones on the new conversations.
    for (const id of [...convs, ...answeredConversations]) {
      const run = runs[id] ?? (await client.openRun(id, { approvalPolicy: "never", resources: ["workspace"] })).id;
      const wrote = await client.callTool(run, "write", { path: "after.txt", content: `after ${id}\n` });
      expect(wrote.isError, resultText(wrote)).toBe(false);
      expect(resultText(await client.callTool(run, "read", { path: "after.txt" }))).toBe(`after ${id}\n`);
    }
  });
});
