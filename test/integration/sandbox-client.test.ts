// The Node client's typed layers against a real control plane on host placement: `client.tools(run)`
// (arguments and details typed from the registry) and `Sandbox` (one conversation and run, answers
// as details). Nothing here reads result text: every assertion is on a typed field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneCallError, EnclaveClient, Sandbox, ToolCallFailed } from "enclave/client";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => {
  await fx?.close();
});

describe("client.tools(run)", () => {
  it("answers exec's exit status and streams apart as fields", async () => {
    const client = new EnclaveClient(fx.client.address);
    try {
      const conv = await client.createConversation("typed-tools");
      const run = await client.openRun(conv.id, { approvalPolicy: "never" });
      const r = await client.tools(run.id).exec({ command: "echo out; echo err >&2; exit 3" });
      expect(r.isError).toBe(false);
      expect(r.details).toEqual({
        exit_code: 3,
        signal: null,
        timed_out: false,
        duration_ms: expect.any(Number),
        stdout: "out\n",
        stderr: "err\n",
        stdout_clipped: false,
        stderr_clipped: false,
        output_truncated: false,
      });
      const killed = await client.tools(run.id).exec({ command: "kill -TERM $$" });
      expect(killed.details).toMatchObject({ exit_code: null, signal: "SIGTERM", timed_out: false });
      const timedOut = await client.tools(run.id).exec({ command: "sleep 30", timeout_seconds: 1 });
      expect(timedOut.details).toMatchObject({ exit_code: null, timed_out: true });
      // A refusal carries no details, only its code.
      const refused = await client.tools(run.id).exec({ command: "" });
      expect({ isError: refused.isError, errorCode: refused.errorCode, details: refused.details }).toEqual({
        isError: true,
        errorCode: "invalid_arguments",
        details: undefined,
      });
      // The audit log keeps how each command ended, never its output.
      const details: string[] = [];
      for await (const e of client.auditEvents({ conversationId: conv.id, includeHistory: true, historyOnly: true })) {
        if (e.kind === "tool_call" && e.tool === "exec" && e.outcome === "ok") details.push(e.detail);
      }
      expect(details).toEqual(["exit code 3", "killed by SIGTERM", "timed out after 1 s and was killed"]);
      await client.deleteConversation(conv.id);
    } finally {
      client.close();
    }
  });
});

describe("Sandbox", () => {
  it("creates a conversation and run, answers exec as data, and deletes what it made on close", async () => {
    let conversationId = "";
    {
      await using sandbox = await Sandbox.create({ address: fx.client.address, approvalPolicy: "never" });
      conversationId = sandbox.conversationId;
      const done = await sandbox.exec("printf hi; exit 3");
      expect({ exit: done.exit_code, out: done.stdout }).toEqual({ exit: 3, out: "hi" });
      const piped = await sandbox.exec('cat; echo "$GREETING" >&2', { stdin: "in", env: { GREETING: "hello" } });
      expect({ out: piped.stdout, err: piped.stderr }).toEqual({ out: "in", err: "hello\n" });
      const failed = await sandbox.exec("x", { timeoutSeconds: 999_999 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(ToolCallFailed);
      expect((failed as ToolCallFailed).code).toBe("invalid_arguments");
    }
    const client = new EnclaveClient(fx.client.address);
    try {
      await expect(client.getConversation(conversationId)).rejects.toBeInstanceOf(ControlPlaneCallError);
      await expect(client.getConversation(conversationId)).rejects.toMatchObject({ code: "not_found" });
    } finally {
      client.close();
    }
  });

  it("leaves a conversation it did not create", async () => {
    const client = new EnclaveClient(fx.client.address);
    try {
      const conv = await client.createConversation("kept-by-its-owner");
      const sandbox = await Sandbox.create({ address: fx.client.address, conversationId: conv.id, approvalPolicy: "never" });
      expect((await sandbox.exec("true")).exit_code).toBe(0);
      await sandbox.close();
      expect((await client.getConversation(conv.id)).id).toBe(conv.id);
      await client.deleteConversation(conv.id);
    } finally {
      client.close();
    }
  });
});
