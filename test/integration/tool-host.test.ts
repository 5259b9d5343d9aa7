// The harness's tool host through the real gRPC API with real kernels: cells call the harness's
// tools with tool(name, args) through Enclave's surface, the cell's bridge_surface, the approval
// gate and the audit log; an intercepting harness rules on cells' calls to Enclave's tools; a
// harness that disconnects mid-call fails the call, not the kernel.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Card, CardEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type HarnessToolSpec, resultText, type ToolHostHandlers } from "@enclave/client/control-plane-client.js";
import type { ApprovalPolicy } from "@enclave/client/run-options.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { hostPython } from "../helpers/host-python.js";
import { until } from "../helpers/wait.js";

let fx: Fixture;
let conv: string;

const TOOLS: HarnessToolSpec[] = [
  {
    name: "lookup_ticket",
    tier: "read",
    description: "Looks a ticket up in the harness's tracker.",
    parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"], additionalProperties: false },
  },
  {
    name: "post_comment",
    tier: "write",
    description: "Posts a comment on a ticket.",
    parameters: { type: "object", properties: { id: { type: "integer" }, text: { type: "string" } }, required: ["id", "text"] },
  },
  { name: "hang", tier: "read", description: "Never answers until cancelled.", parameters: { type: "object" } },
];

interface Seen {
  tool: string;
  args: unknown;
  kernelId: string;
}

function harness(seen: Seen[], extra: Partial<ToolHostHandlers> = {}): ToolHostHandlers {
  return {
    call(tool, args, info) {
      seen.push({ tool, args, kernelId: info.kernelId });
      if (tool === "lookup_ticket") {
        const id = (args as { id: number }).id;
        if (id === 0) throw new Error("ticket 0 does not exist");
        return {
          content: [
            { type: "text", text: `ticket ${id}: crash on start` },
            { type: "image", data: Buffer.from("png").toString("base64"), mimeType: "image/png" },
          ],
        };
      }
      if (tool === "post_comment") return "posted";
      return new Promise((_resolve, reject) => info.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    },
    ...extra,
  };
}

async function cell(runId: string, code: string, more: Record<string, unknown> = {}): Promise<string> {
  const r = await fx.client.callTool(runId, "eval", { description: "a cell the tool host tests run", code, ...more });
  return resultText(r);
}

async function openRun(opts: { approvalPolicy?: ApprovalPolicy } = {}): Promise<string> {
  return (await fx.client.openRun(conv, { approvalPolicy: opts.approvalPolicy ?? "never" })).id;
}

beforeAll(async () => {
  process.env.ENCLAVE_PYTHON = hostPython();
  fx = await startFixture();
  const ws = mkdtempSync(join(tmpdir(), "enclave-toolhost-ws-"));
  writeFileSync(join(ws, "notes.txt"), "the real file\n");
  conv = (await fx.client.createConversation("toolhost", ws)).id;
});
afterAll(async () => fx?.close());

describe("a harness tool host", () => {
  it("serves a Python and a JavaScript cell calling its tools, validated, gated and audited like Enclave's", async () => {
    const runId = await openRun();
    const seen: Seen[] = [];
    const host = fx.client.connectToolHost(runId, TOOLS, harness(seen));
    expect(await host.ready).toEqual(["lookup_ticket", "post_comment", "hang"]);
    try {
      const py = await cell(runId, 'print(tool("lookup_ticket", {"id": 42}))');
      expect(py).toContain("ticket 42: crash on start\n[image image/png, 3 bytes]");
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ tool: "lookup_ticket", args: { id: 42 } });
      expect(seen[0]?.kernelId).not.toBe("");

      // The harness's error is the cell's ToolError; arguments its schema refuses never reach it.
      const errs = await cell(
        runId,
        [
          "for args in ({'id': 0}, {'id': 'x'}, {'id': 1, 'extra': True}):",
          "    try:",
          "        tool('lookup_ticket', args)",
          "    except ToolError as e:",
          "        print(e.code, '|', e.message)",
        ].join("\n"),
      );
      // Each line is "<code> | <message>": failed (the harness's own "ticket 0 does not exist"), then
      // invalid_arguments twice, kept apart by the recorded messages.
      await expectTranscript(errs, "transcripts/tool-host/cell-tool-errors.txt");
      expect(seen).toHaveLength(2);

      const js = await cell(runId, 'console.log(await tool("post_comment", { id: 7, text: "fixed" }))', { language: "javascript" });
      expect(js).toContain("posted");
      expect(seen[2]).toMatchObject({ tool: "post_comment", args: { id: 7, text: "fixed" } });

      // tools() lists what the cell may call, harness tools included, in both languages.
      const listed = await cell(
        runId,
        "names = {t['name']: t['tier'] for t in tools()}\nprint(names['lookup_ticket'], names['post_comment'], 'read' in names, 'eval' in names)",
      );
      expect(listed).toContain("read write True False");
      const jsListed = await cell(runId, 'const ts = await tools(); console.log(ts.find((t) => t.name === "lookup_ticket").input_schema.required.join(","))', {
        language: "javascript",
      });
      expect(jsListed).toContain("id");

      const audit = fx.cp.audit.history(conv).filter((e) => e.kind === "tool_call" && e.origin === "bridge" && e.runId === runId);
      expect(audit.filter((e) => e.tool === "lookup_ticket").map((e) => e.outcome)).toEqual([
        "ok",
        "error:failed",
        "refused:invalid_arguments",
        "refused:invalid_arguments",
      ]);
      expect(audit.find((e) => e.tool === "post_comment")?.tier).toBe("write");
    } finally {
      host.close();
      await host.done;
    }
  });

  it("keeps its tools within the cell's bridge_surface, the approval gate and cells alone", async () => {
    const seen: Seen[] = [];
    const gated = await openRun({ approvalPolicy: "write" });
    // A human who allows eval, denies the first post_comment and allows the second.
    const cards: Card[] = [];
    let answered = 0;
    const human = fx.client.subscribeCards(conv, (e: CardEvent) => {
      if (e.event?.$case !== "opened" || e.event.value.kind !== "permission") return;
      const card = e.event.value;
      cards.push(card);
      const allow = card.tool === "eval" || (card.tool === "post_comment" && answered++ > 0);
      void fx.client.answerCard(conv, card.number, { selected: [allow ? "allow" : "deny"] });
    });
    await human.ready;
    const host = fx.client.connectToolHost(gated, TOOLS, harness(seen));
    await host.ready;
    try {
      // A narrower bridge_surface leaves the write tool unknown to the cell, and out of tools().
      const plan = await cell(
        gated,
        "print(sorted(t['name'] for t in tools() if t['name'] in ('lookup_ticket', 'post_comment')))\ntry:\n    tool('post_comment', {'id': 1, 'text': 'x'})\nexcept ToolError as e:\n    print(e.code)",
        { bridge_surface: "plan" },
      );
      expect(plan).toContain("['lookup_ticket']");
      expect(plan).toContain("unknown_tool");
      // Code that cell left in its kernel could make a later, wider cell's calls: the kernel stays within plan.
      const later = await cell(gated, "try:\n    tool('post_comment', {'id': 1, 'text': 'x'})\nexcept ToolError as e:\n    print(e.code)");
      expect(later).toContain("unknown_tool");
      expect(cards.filter((c) => c.tool === "post_comment")).toEqual([]);
      // A fresh kernel is not held to plan; the gate asks the human, who denies, then allows.
      const gatedOut = await cell(
        gated,
        "for n in (1, 2):\n    try:\n        print(tool('post_comment', {'id': n, 'text': 'x'}))\n    except ToolError as e:\n        print(e.code)",
        { reset: true },
      );
      expect(gatedOut).toContain("approval_refused\nposted");
      const asked = cards.filter((c) => c.tool === "post_comment");
      expect(asked.map((c) => JSON.parse(c.argumentsJson) as unknown)).toEqual([
        { id: 1, text: "x" },
        { id: 2, text: "x" },
      ]);
      expect(seen).toEqual([{ tool: "post_comment", args: { id: 2, text: "x" }, kernelId: expect.any(String) as string }]);
      // The harness's model cannot call them through CallTool: they are for cells.
      const direct = await fx.client.callTool(gated, "lookup_ticket", { id: 1 });
      expect(direct.errorCode).toBe("unknown_tool");
      expect((await fx.client.listTools(gated)).tools.map((t) => t.name)).not.toContain("lookup_ticket");
      expect(seen).toHaveLength(1);
    } finally {
      host.close();
      await host.done;
      human.cancel();
    }
  });

  it("refuses a hello it cannot honour", async () => {
    const runId = await openRun();
    const bad = async (tools: HarnessToolSpec[], run = runId): Promise<unknown> => fx.client.connectToolHost(run, tools, harness([])).ready;
    const refusals = [
      await outcome(bad([{ name: "read", description: "shadowing", parameters: { type: "object" } }])),
      await outcome(bad([{ name: "x", description: "d", parameters: { type: "object", properties: { a: { type: "nonsense" } } } }])),
      await outcome(bad([{ name: "@tools", description: "d", parameters: { type: "object" } }])),
      await outcome(bad([{ name: "x", tier: "root" as "read", description: "d", parameters: { type: "object" } }])),
      await outcome(bad([], "r-nope")),
    ];
    const first = fx.client.connectToolHost(runId, [], harness([]));
    await first.ready;
    refusals.push(await outcome(bad([])));
    expect(refusals.map((o) => o.code)).toEqual([
      "invalid_arguments",
      "invalid_arguments",
      "invalid_arguments",
      "invalid_arguments",
      "not_found",
      "already_exists",
    ]);
    // Four hellos share a code: the recorded messages keep them apart.
    await expectTranscript(refusals.map((o) => `${o.code}: ${o.message}`).join("\n"), "transcripts/tool-host/hello-refusals.txt");
    first.close();
    await first.done;
  });

  it("lets an intercepting harness allow, deny or answer a cell's calls to Enclave's tools", async () => {
    const runId = await openRun();
    const offers: { tool: string; tier: string; args: unknown }[] = [];
    const host = fx.client.connectToolHost(
      runId,
      [],
      harness([], {
        intercept(tool, args, info) {
          offers.push({ tool, tier: info.tier, args });
          const path = (args as { path?: string }).path;
          if (path === "secret.txt") return { deny: "secrets stay with the harness" };
          if (path === "virtual.txt") return { answer: "served by the harness" };
          return "allow";
        },
      }),
      { intercept: true },
    );
    await host.ready;
    try {
      const out = await cell(
        runId,
        [
          "try:",
          "    tool('read', {'path': 'secret.txt'})",
          "except ToolError as e:",
          "    print('denied:', e.code, '|', e.message)",
          "print('virtual:', tool('read', {'path': 'virtual.txt'}))",
          "print('real:', tool('read', {'path': 'notes.txt'}))",
        ].join("\n"),
      );
      expect(out).toContain("denied: harness_denied | the harness denied `read`: secrets stay with the harness");
      expect(out).toContain("virtual: served by the harness");
      expect(out).toContain("real:");
      expect(out).toContain("the real file");
      expect(offers.map((o) => `${o.tool}:${o.tier}:${(o.args as { path: string }).path}`)).toEqual([
        "read:read:secret.txt",
        "read:read:virtual.txt",
        "read:read:notes.txt",
      ]);
      // The harness's model's own calls are not offered.
      await fx.client.callTool(runId, "read", { path: "notes.txt" });
      expect(offers).toHaveLength(3);
      const audit = fx.cp.audit.history(conv).filter((e) => e.kind === "tool_call" && e.origin === "bridge" && e.runId === runId);
      expect(audit.map((e) => e.outcome)).toEqual(["refused:harness_denied", "ok", "ok"]);
    } finally {
      host.close();
      await host.done;
    }
    // Its guardrails do not quietly vanish with it: until a harness connects again, cells' calls are refused.
    const lost = await cell(runId, "try:\n    tool('read', {'path': 'notes.txt'})\nexcept ToolError as e:\n    print(e.code)");
    expect(lost).toContain("harness_lost");
    const again = fx.client.connectToolHost(runId, [], harness([]));
    await again.ready;
    expect(await cell(runId, "print(tool('read', {'path': 'notes.txt'}))")).toContain("the real file");
    again.close();
    await again.done;
  });

  it("fails a call with harness_lost when the harness disconnects mid-call, and the kernel lives on", async () => {
    const runId = await openRun();
    const seen: Seen[] = [];
    const host = fx.client.connectToolHost(runId, TOOLS, harness(seen));
    await host.ready;
    await cell(runId, "kept = 'still here'");
    const running = cell(runId, "try:\n    tool('hang', {})\nexcept ToolError as e:\n    print('lost:', e.code, '|', e.message)\nprint(kept)");
    await until(() => seen.some((s) => s.tool === "hang"), "the harness to receive the call");
    host.close();
    await host.done;
    const out = await running;
    expect(out).toContain("lost: harness_lost |");
    await expectTranscript(out, "transcripts/tool-host/harness-lost.txt");
    expect(out).toContain("still here");
    expect(await cell(runId, "print(kept)")).toContain("still here");
    // With no host, its tools are simply unknown.
    expect(await cell(runId, "try:\n    tool('hang', {})\nexcept ToolError as e:\n    print(e.code)")).toContain("unknown_tool");
  });

  it("cancels the harness's work when the cell is interrupted", async () => {
    const runId = await openRun();
    const seen: Seen[] = [];
    let cancelled = false;
    const host = fx.client.connectToolHost(runId, TOOLS, {
      call(tool, args, info) {
        seen.push({ tool, args, kernelId: info.kernelId });
        return new Promise((_resolve, reject) =>
          info.signal.addEventListener("abort", () => {
            cancelled = true;
            reject(new Error("aborted"));
          }),
        );
      },
    });
    await host.ready;
    try {
      const abort = new AbortController();
      const running = fx.client
        .callTool(runId, "eval", { description: "a cell the harness keeps waiting", code: "tool('hang', {})" }, { signal: abort.signal })
        .catch((e: Error) => e);
      await until(() => seen.length > 0, "the harness to receive the call");
      abort.abort();
      await running;
      await until(() => cancelled, "the harness to be told to cancel");
      expect(await cell(runId, "print('kernel ok')")).toContain("kernel ok");
    } finally {
      host.close();
      await host.done;
    }
  });

  it("stops the cell's idle budget while the harness works", async () => {
    const runId = await openRun();
    const host = fx.client.connectToolHost(runId, TOOLS, {
      // Answers after twice the cell's whole idle budget.
      call: () => new Promise((resolve) => setTimeout(() => resolve("slow answer"), 2_000)),
    });
    await host.ready;
    try {
      const out = await cell(runId, "print(tool('lookup_ticket', {'id': 5}))", { timeout_seconds: 1 });
      expect(out).toContain("slow answer");
      // Not interrupted: the cell's whole answer is the harness's.
      await expectTranscript(out, "transcripts/tool-host/slow-harness.txt");
    } finally {
      host.close();
      await host.done;
    }
  });

  it("cannot be connected, or answered for, from inside a cell: the control plane's socket is out of its reach", async () => {
    const runId = await openRun();
    const socketPath = join(fx.dataDir, "cp.sock");
    const out = await cell(
      runId,
      [
        "import socket",
        "s = socket.socket(socket.AF_UNIX)",
        "try:",
        `    s.connect(${JSON.stringify(socketPath)})`,
        "    print('reached')",
        "except OSError as e:",
        "    print('unreachable', type(e).__name__)",
      ].join("\n"),
    );
    expect(out).toContain("unreachable");
    expect(out).not.toContain("reached\n");
  });

  it("drops the host when its run closes", async () => {
    const runId = await openRun();
    const host = fx.client.connectToolHost(runId, TOOLS, harness([]));
    await host.ready;
    await fx.client.closeRun(runId);
    const ended = await outcome(host.done);
    expect(ended.code).toBe("not_found");
    await expectTranscript(ended.message, "transcripts/tool-host/run-closed.txt");
  });
});
