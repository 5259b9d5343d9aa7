// The question port, ask_user and permission cards, through the real gRPC API (and, for the CLI, the
// real `enclave` command), with real host agents behind the gated tools.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Card, CardEvent, ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

const run = promisify(execFile);

let fx: Fixture;
let workspace: string;

// Card numbers count per conversation.
const MASKS: Mask[] = [[/#\d+/g, "#<n>"]];

/** Compares an answer with the recorded one in transcripts/questions/<name>.txt. */
async function transcript(text: string, name: string): Promise<void> {
  await expectTranscript(text, `transcripts/questions/${name}.txt`, MASKS);
}

/** A refused API call as "code: message", after checking its code. */
async function refused(p: Promise<unknown>, code: string): Promise<string> {
  const o = await outcome(p);
  expect(o.code, o.message).toBe(code);
  return `${o.code}: ${o.message}`;
}

/** A human attached to a conversation's cards: collects the cards it sees opened and closed. */
async function attach(conversationId: string) {
  const opened: Card[] = [];
  const closed: Card[] = [];
  const sub = fx.client.subscribeCards(conversationId, (e: CardEvent) => {
    if (e.event?.$case === "opened") opened.push(e.event.value);
    else if (e.event?.$case === "closed") closed.push(e.event.value);
  });
  await sub.ready;
  return { opened, closed, cancel: () => sub.cancel() };
}

beforeAll(async () => {
  fx = await startFixture();
  workspace = (await fx.client.createConversation("q1")).workspacePath;
  await fx.client.createConversation("q2");
  await fx.client.createConversation("lonely");
});
afterAll(async () => fx?.close());

describe("ask_user", () => {
  it("is listed only for a run with a question port", async () => {
    const withPort = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["workspace", "questions"] });
    const without = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["workspace"] });
    const names = async (id: string) => (await fx.client.listTools(id)).tools.map((t) => t.name);
    expect(await names(withPort.id)).toContain("ask_user");
    expect(await names(without.id)).not.toContain("ask_user");
    const r = await fx.client.callTool(without.id, "ask_user", { question: "hello?" });
    expect(r.errorCode).toBe("unknown_tool");
    const tool = (await fx.client.listTools(withPort.id)).tools.find((t) => t.name === "ask_user");
    expect(tool?.tier).toBe("read");
    expect(withPort.targetSpace).toBe("q1");
  });

  it("fails at once when nobody is attached (fail-closed)", async () => {
    const r0 = await fx.client.openRun("lonely", { approvalPolicy: "never", resources: ["questions"] });
    const r = await fx.client.callTool(r0.id, "ask_user", { question: "Which database?", options: [{ label: "Postgres" }] });
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("failed_precondition");
    await transcript(resultText(r), "nobody-attached");
    expect(await fx.client.listCards("lonely", true)).toEqual([]);
  });

  it("returns the chosen option, with numbered cards carrying question, context and options", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
      const pending = fx.client.callTool(r0.id, "ask_user", {
        question: "Which database should the cache use?",
        context: "The schema migration depends on it.",
        options: [{ label: "Postgres", description: "the existing cluster" }, { label: "Redis" }],
      });
      const card = await until(() => human.opened.find((c) => c.question.startsWith("Which database")), "the card");
      expect(card.kind).toBe("question");
      expect(card.conversationId).toBe("q1");
      expect(card.context).toBe("The schema migration depends on it.");
      expect(card.options).toEqual([
        { label: "Postgres", description: "the existing cluster" },
        { label: "Redis", description: "" },
      ]);
      expect(card.allowFreeText).toBe(false);
      expect(card.multiSelect).toBe(false);
      expect(card.runId).toBe(r0.id);
      expect(card.state).toBe("open");
      expect((await fx.client.listCards("q1")).map((c) => c.number)).toEqual([card.number]);
      const closedCard = await fx.client.answerCard("q1", card.number, { selected: ["Postgres"] });
      expect(closedCard.state).toBe("answered");
      const r = await pending;
      expect(r.isError).toBe(false);
      await transcript(resultText(r), "chosen-option");
      await until(() => human.closed.find((c) => c.number === card.number), "the closed event");
    } finally {
      human.cancel();
    }
  });

  it("numbers cards sequentially per conversation", async () => {
    const human = await attach("q2");
    try {
      const r0 = await fx.client.openRun("q2", { approvalPolicy: "never", resources: ["questions"] });
      const numbers: number[] = [];
      for (let i = 0; i < 3; i++) {
        const pending = fx.client.callTool(r0.id, "ask_user", { question: `question ${i}?` });
        const card = await until(() => human.opened.find((c) => c.question === `question ${i}?`), `card ${i}`);
        numbers.push(card.number);
        await fx.client.answerCard("q2", card.number, { freeText: `answer ${i}` });
        expect(resultText(await pending)).toContain(`Wrote: answer ${i}`);
      }
      expect(numbers).toEqual([1, 2, 3]);
    } finally {
      human.cancel();
    }
  });

  it("refuses invalid answers to the answerer and keeps the card open", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
      let settled: ToolResult | undefined;
      const pending = fx.client
        .callTool(r0.id, "ask_user", { question: "Pick one colour", options: [{ label: "red" }, { label: "blue" }] })
        .then((r) => (settled = r));
      const card = await until(() => human.opened.find((c) => c.question === "Pick one colour"), "the card");
      // Five answers share a code: the recorded refusals keep them apart.
      const refusals = [
        await refused(fx.client.answerCard("q1", card.number, { selected: ["green"] }), "invalid_arguments"),
        await refused(fx.client.answerCard("q1", card.number, { selected: ["red", "blue"] }), "invalid_arguments"),
        await refused(fx.client.answerCard("q1", card.number, { freeText: "purple" }), "invalid_arguments"),
        await refused(fx.client.answerCard("q1", card.number, {}), "invalid_arguments"),
        await refused(fx.client.answerCard("q1", card.number, { skip: true, selected: ["red"] }), "invalid_arguments"),
        await refused(fx.client.answerCard("q1", 999, { selected: ["red"] }), "not_found"),
      ];
      // None of that reached the agent: its call is still waiting, the card still open.
      expect(settled).toBeUndefined();
      expect((await fx.client.listCards("q1")).map((c) => c.number)).toContain(card.number);
      await fx.client.answerCard("q1", card.number, { selected: ["blue"] });
      await transcript(resultText(await pending), "chosen-after-refusals");
      refusals.push(await refused(fx.client.answerCard("q1", card.number, { selected: ["red"] }), "failed_precondition"));
      await transcript(`${refusals.join("\n")}\n`, "invalid-answers");
    } finally {
      human.cancel();
    }
  });

  it("takes several choices and free text when the card allows them", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
      const pending = fx.client.callTool(r0.id, "ask_user", {
        question: "Which platforms?",
        options: [{ label: "linux" }, { label: "mac" }, { label: "windows" }],
        multi_select: true,
        allow_free_text: true,
      });
      const card = await until(() => human.opened.find((c) => c.question === "Which platforms?"), "the card");
      await fx.client.answerCard("q1", card.number, { selected: ["linux", "mac"], freeText: "arm64 too" });
      await transcript(resultText(await pending), "several-choices-and-text");
    } finally {
      human.cancel();
    }
  });

  it("treats a skip as a success telling the agent to proceed on an assumption", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
      const pending = fx.client.callTool(r0.id, "ask_user", { question: "Tabs or spaces?", options: [{ label: "tabs" }, { label: "spaces" }] });
      const card = await until(() => human.opened.find((c) => c.question === "Tabs or spaces?"), "the card");
      await fx.client.answerCard("q1", card.number, { skip: true });
      const r = await pending;
      expect(r.isError).toBe(false);
      await transcript(resultText(r), "skipped");
    } finally {
      human.cancel();
    }
  });

  it("turns a timeout into an error with the same instruction", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"], questionTimeoutSeconds: 1 });
      expect(r0.questionTimeoutSeconds).toBe(1);
      const r = await fx.client.callTool(r0.id, "ask_user", { question: "Anyone there?" });
      expect(r.isError).toBe(true);
      expect(r.errorCode).toBe("timeout");
      await transcript(resultText(r), "question-timed-out");
      const card = await until(() => human.closed.find((c) => c.question === "Anyone there?"), "the closed card");
      expect(card.state).toBe("timed_out");
      await transcript(await refused(fx.client.answerCard("q1", card.number, { freeText: "me!" }), "failed_precondition"), "answer-after-timeout");
    } finally {
      human.cancel();
    }
  });

  it("validates the question itself", async () => {
    const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
    const dup = await fx.client.callTool(r0.id, "ask_user", { question: "x?", options: [{ label: "a" }, { label: "a" }] });
    expect(dup.errorCode).toBe("invalid_arguments");
    const nothing = await fx.client.callTool(r0.id, "ask_user", { question: "x?", allow_free_text: false });
    expect(nothing.errorCode).toBe("invalid_arguments");
    await transcript(`${resultText(dup)}\n${resultText(nothing)}\n`, "invalid-questions");
    const empty = await fx.client.callTool(r0.id, "ask_user", { question: "" });
    expect(empty.errorCode).toBe("invalid_arguments");
  });

  it("shows the card in the run's target space, and refuses a target space that does not exist", async () => {
    const human = await attach("q2");
    try {
      const sub = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"], targetSpace: "q2" });
      const pending = fx.client.callTool(sub.id, "ask_user", { question: "From a subagent of q1?" });
      const card = await until(() => human.opened.find((c) => c.question === "From a subagent of q1?"), "the card in q2");
      expect(card.conversationId).toBe("q2");
      await fx.client.answerCard("q2", card.number, { freeText: "yes" });
      await transcript(resultText(await pending), "answered-in-target-space");
      const target = await refused(fx.client.openRun("q1", { approvalPolicy: "never", targetSpace: "nowhere" }), "not_found");
      const subscribe = await refused(fx.client.subscribeCards("nowhere", () => undefined).ready, "not_found");
      await transcript(`${target}\n${subscribe}\n`, "unknown-target-space");
    } finally {
      human.cancel();
    }
  });

  it("counts a subscriber to every conversation as attached everywhere", async () => {
    const everyone = await attach("");
    try {
      const r0 = await fx.client.openRun("lonely", { approvalPolicy: "never", resources: ["questions"] });
      const pending = fx.client.callTool(r0.id, "ask_user", { question: "Seen by the console?" });
      const card = await until(() => everyone.opened.find((c) => c.question === "Seen by the console?"), "the card");
      expect(card.conversationId).toBe("lonely");
      await fx.client.answerCard("lonely", card.number, { freeText: "yes" });
      expect((await pending).isError).toBe(false);
    } finally {
      everyone.cancel();
    }
  });

  it("withdraws the card when the run closes, and a late subscriber sees open cards", async () => {
    const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
    const early = await attach("q1");
    const pending = fx.client.callTool(r0.id, "ask_user", { question: "Still needed?" });
    const card = await until(() => early.opened.find((c) => c.question === "Still needed?"), "the card");
    early.cancel();
    const late = await attach("q1");
    try {
      expect(late.opened.map((c) => c.number)).toContain(card.number);
      await fx.client.closeRun(r0.id);
      const r = await pending;
      expect(r.errorCode).toBe("cancelled");
      const closed = await until(() => late.closed.find((c) => c.number === card.number), "the withdrawn card");
      expect(closed.state).toBe("cancelled");
      const history = await fx.client.listCards("q1", true);
      expect(history.find((c) => c.number === card.number)?.state).toBe("cancelled");
    } finally {
      late.cancel();
    }
  });
});

describe("permission cards", () => {
  it("runs a write tool under policy `write` only after allow", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "write", resources: ["workspace"] });
      // A read tool is not gated under `write`.
      expect((await fx.client.callTool(r0.id, "list", {})).isError).toBe(false);
      expect(human.opened).toEqual([]);
      const pending = fx.client.callTool(r0.id, "write", { path: "allowed.txt", content: "ok\n" });
      const card = await until(() => human.opened.find((c) => c.kind === "permission"), "the permission card");
      await transcript(`${card.question}\n${card.context}\n`, "permission-card");
      expect(card.tool).toBe("write");
      expect(JSON.parse(card.argumentsJson)).toEqual({ path: "allowed.txt", content: "ok\n" });
      expect(card.options.map((o) => o.label)).toEqual(["allow", "deny"]);
      expect(card.context).toContain("allowed.txt");
      // Nothing runs before the answer.
      expect(existsSync(join(workspace, "allowed.txt"))).toBe(false);
      await transcript(await refused(fx.client.answerCard("q1", card.number, { freeText: "sure" }), "invalid_arguments"), "permission-free-text");
      await fx.client.answerCard("q1", card.number, { selected: ["allow"] });
      const r = await pending;
      expect(r.isError).toBe(false);
      expect(readFileSync(join(workspace, "allowed.txt"), "utf8")).toBe("ok\n");
    } finally {
      human.cancel();
    }
  });

  it("refuses on deny, on skip and with nobody attached, and nothing runs", async () => {
    const r0 = await fx.client.openRun("q1", { approvalPolicy: "write", resources: ["workspace", "shell"] });
    const alone = await fx.client.callTool(r0.id, "exec", { command: "touch ran-alone" });
    expect(alone.errorCode).toBe("approval_refused");
    await transcript(resultText(alone), "permission-nobody-attached");
    expect(existsSync(join(workspace, "ran-alone"))).toBe(false);

    const human = await attach("q1");
    try {
      const denied = fx.client.callTool(r0.id, "write", { path: "denied.txt", content: "no\n" });
      const card = await until(() => human.opened.find((c) => c.kind === "permission" && c.argumentsJson.includes("denied.txt")), "the card");
      await fx.client.answerCard("q1", card.number, { selected: ["deny"] });
      const r = await denied;
      expect(r.errorCode).toBe("approval_refused");
      await transcript(resultText(r), "permission-denied");
      expect(existsSync(join(workspace, "denied.txt"))).toBe(false);

      const skipped = fx.client.callTool(r0.id, "exec", { command: "touch ran-skipped" });
      const card2 = await until(() => human.opened.find((c) => c.kind === "permission" && c.tool === "exec"), "the exec card");
      await fx.client.answerCard("q1", card2.number, { skip: true });
      expect((await skipped).errorCode).toBe("approval_refused");
      expect(existsSync(join(workspace, "ran-skipped"))).toBe(false);
    } finally {
      human.cancel();
    }
  });

  it("refuses when the permission card times out", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "always", resources: ["workspace"], questionTimeoutSeconds: 1 });
      const r = await fx.client.callTool(r0.id, "read", { path: "allowed.txt" });
      expect(r.errorCode).toBe("approval_refused");
      await transcript(resultText(r), "permission-timed-out");
    } finally {
      human.cancel();
    }
  });

  it("gates a bridge call from a real kernel cell the same way, and audits its origin", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "write", resources: ["workspace", "kernel"] });
      // eval is an exec tool, so the cell itself needs a yes first; then each write it makes over
      // the bridge raises its own card.
      const cell = fx.client.callTool(r0.id, "eval", {
        description: "write two files from a cell over the bridge",
        code: [
          "try:",
          '    tool("write", {"path": "bridge-denied.txt", "content": "x"})',
          "except ToolError as e:",
          '    print("refused:", e.code)',
          'tool("write", {"path": "bridge-allowed.txt", "content": "y"})',
        ].join("\n"),
      });
      const evalCard = await until(() => human.opened.find((c) => c.tool === "eval"), "the eval card");
      await fx.client.answerCard("q1", evalCard.number, { selected: ["allow"] });
      const card = await until(() => human.opened.find((c) => c.tool === "write" && c.argumentsJson.includes("bridge-denied.txt")), "the bridge card");
      expect(card.kind).toBe("permission");
      await fx.client.answerCard("q1", card.number, { selected: ["deny"] });
      const card2 = await until(() => human.opened.find((c) => c.tool === "write" && c.argumentsJson.includes("bridge-allowed.txt")), "the second bridge card");
      await fx.client.answerCard("q1", card2.number, { selected: ["allow"] });
      const result = await cell;
      expect(result.isError, resultText(result)).toBe(false);
      // The cell printed the code the bridge call failed with.
      expect(resultText(result)).toContain("refused: approval_refused");
      expect(existsSync(join(workspace, "bridge-denied.txt"))).toBe(false);
      expect(readFileSync(join(workspace, "bridge-allowed.txt"), "utf8")).toBe("y");

      const events: string[] = [];
      await fx.client.subscribeAudit({ conversationId: "q1", historyOnly: true }, (e) => {
        if (e.runId !== r0.id) return;
        if (e.kind === "tool_call") events.push(`${e.origin}:${e.tool}:${e.outcome}`);
        else events.push(`${e.kind}:${e.tool}:${e.outcome}:${e.detail}`);
      }).done;
      // The decisions are in the audit log too: who decided what, on which card.
      expect(events).toEqual([
        `card_closed:eval:answered:#${evalCard.number} permission: allow`,
        `card_closed:write:answered:#${card.number} permission: deny`,
        "bridge:write:refused:approval_refused",
        `card_closed:write:answered:#${card2.number} permission: allow`,
        "bridge:write:ok",
        "model:eval:ok",
      ]);
    } finally {
      human.cancel();
    }
  });

  it("shares the numbering with questions", async () => {
    const human = await attach("q2");
    try {
      const before = (await fx.client.listCards("q2", true)).map((c) => c.number);
      const max = Math.max(0, ...before);
      const r0 = await fx.client.openRun("q2", { approvalPolicy: "always", resources: ["questions"] });
      const pending = fx.client.callTool(r0.id, "ask_user", { question: "after a permission?" });
      const perm = await until(() => human.opened.find((c) => c.kind === "permission" && c.tool === "ask_user"), "the permission card");
      expect(perm.number).toBe(max + 1);
      await fx.client.answerCard("q2", perm.number, { selected: ["allow"] });
      const q = await until(() => human.opened.find((c) => c.question === "after a permission?"), "the question card");
      expect(q.number).toBe(max + 2);
      await fx.client.answerCard("q2", q.number, { freeText: "fine" });
      await transcript(resultText(await pending), "answered-after-permission");
    } finally {
      human.cancel();
    }
  });
});

describe("API errors", () => {
  it("answers a call on an unknown run with a clear status", async () => {
    await transcript(await refused(fx.client.callTool("r-nope", "ask_user", { question: "x?" }), "not_found"), "unknown-run");
  });
});

describe("enclave CLI", () => {
  it("lists open cards and answers one", async () => {
    const human = await attach("q1");
    try {
      const r0 = await fx.client.openRun("q1", { approvalPolicy: "never", resources: ["questions"] });
      const pending = fx.client.callTool(r0.id, "ask_user", { question: "Ship it?", options: [{ label: "yes" }, { label: "no" }] });
      const card = await until(() => human.opened.find((c) => c.question === "Ship it?"), "the card");
      const cli = join(repoRoot, "bin", "enclave");
      const address = ["--address", fx.client.address];
      const listed = await run(cli, ["cards", "q1", ...address]);
      expect(listed.stdout).toContain(`#${card.number}`);
      await transcript(listed.stdout, "cli-cards");
      const bad = await run(cli, ["answer", "q1", String(card.number), "maybe", ...address]).catch((e: { stderr: string }) => e);
      await transcript((bad as { stderr: string }).stderr, "cli-answer-refused");
      const ok = await run(cli, ["answer", "q1", String(card.number), "yes", ...address]);
      await transcript(ok.stdout, "cli-answer");
      await transcript(resultText(await pending), "cli-answered-result");
    } finally {
      human.cancel();
    }
  });
});
