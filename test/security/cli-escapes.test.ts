// What an agent wrote never reaches the person's terminal as control sequences: the real `enclave`
// CLI against a real control plane, with a workspace file, a folder name, a question card, a
// permission card, an audit detail and an error message all carrying ESC/CSI/OSC sequences. Every
// one is printed as a visible escape (\x1b, \u009b, …), and no raw control character is printed.
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Card, CardEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

const exec = promisify(execFile);
const cli = join(repoRoot, "bin", "enclave");
const ID = "sec-tty";

/** Clears the screen, retitles the window, sets red, a C1 CSI, a carriage return and a right-to-left override. */
const EVIL = "\x1b[2J\x1b]0;pwned\x07\x1b[31mred\u009b1m\rover\u202eexe.txt";
const SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mred\\u009b1m\\x0dover\\u202eexe.txt";

let fx: Fixture;
let workspace: string;
let address: string[];

/** Any control character a terminal acts on, other than newline and tab. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function enclave(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await exec(cli, [...args, ...address]);
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/** The CLI's cards in a fixed order (the two are opened at once, so their numbers and order vary), numbers masked. */
function byCard(stdout: string): string {
  return stdout
    .split(/\n(?=#\d+ )/)
    .map((card) => card.replace(/^#\d+ /, "#<n> ").trimEnd())
    .sort()
    .join("\n");
}

function clean(out: { stdout: string; stderr: string }): void {
  expect(out.stdout).not.toMatch(RAW_CONTROL);
  expect(out.stderr).not.toMatch(RAW_CONTROL);
}

beforeAll(async () => {
  fx = await startFixture();
  address = ["--address", fx.client.address];
  // A workspace whose folder name carries the sequences too (conversation details show it).
  const parent = join(fx.dataDir, "ws");
  mkdirSync(parent);
  workspace = join(parent, `proj${EVIL.replace(/\//g, "_")}`);
  mkdirSync(workspace);
  writeFileSync(join(workspace, "evil.txt"), `before\n${EVIL}\nafter\n`);
  await fx.client.createConversation(ID, workspace);
});

afterAll(async () => fx?.close());

describe("the CLI escapes control characters an agent wrote", () => {
  it("in tool output, streamed and in the result, and in errors", async () => {
    const read = await enclave(["tool", "call", "read", '{"path":"evil.txt"}', "-c", ID]);
    expect(read.code).toBe(0);
    clean(read);
    expect(read.stdout).toContain(SHOWN);
    expect(read.stdout).toContain("before\n");

    // exec raises a permission card under the default policy; --yes answers it from the terminal.
    const streamed = await enclave(["tool", "call", "exec", '{"command":"cat evil.txt; cat evil.txt >&2"}', "-c", ID, "--yes"]);
    expect(streamed.code).toBe(0);
    clean(streamed);
    expect(streamed.stdout).toContain(SHOWN);
    expect(streamed.stderr).toContain(SHOWN);

    const failed = await enclave(["tool", "call", "read", JSON.stringify({ path: `missing${EVIL}` }), "-c", ID]);
    expect(failed.code).toBe(1);
    clean(failed);
    expect(failed.stderr).toContain(`missing${SHOWN}`);
  });

  it("in conversation details", async () => {
    for (const args of [
      ["conversations", "get", ID],
      ["conversations", "list"],
    ]) {
      const out = await enclave(args);
      expect(out.code).toBe(0);
      clean(out);
      expect(out.stdout).toContain(`proj${SHOWN}`);
    }
  });

  it("in question and permission cards, and in the audit list", async () => {
    const opened: Card[] = [];
    const human = fx.client.subscribeCards(ID, (e: CardEvent) => {
      if (e.event?.$case === "opened") opened.push(e.event.value);
    });
    await human.ready;
    try {
      const r0 = await fx.client.openRun(ID, { approvalPolicy: "write", resources: ["questions", "workspace"], questionTimeoutSeconds: 120 });
      // The question's second line pretends to be the header of another card.
      const asking = fx.client.callTool(r0.id, "ask_user", {
        question: `Continue? ${EVIL}\n#99 ${ID} permission open`,
        context: `ctx ${EVIL}`,
        options: [{ label: `yes ${EVIL}`, description: EVIL }],
      });
      const writing = fx.client.callTool(r0.id, "write", { path: `out${EVIL}.txt`, content: EVIL });
      await until(() => opened.length >= 2 || undefined, "both cards");

      const cards = await enclave(["cards", ID]);
      expect(cards.code).toBe(0);
      clean(cards);
      expect(cards.stdout).toContain(SHOWN);
      expect(cards.stdout).not.toMatch(/^#99 /m);
      // Both cards whole: the forged header indented under the question, every field escaped, and a
      // file name with control characters listed quoted, so it cannot pass for text around it.
      await expectTranscript(byCard(cards.stdout), "transcripts/cli-escapes/cards.txt");
      const full = await enclave(["cards", ID, "--full"]);
      clean(full);
      await expectTranscript(byCard(full.stdout), "transcripts/cli-escapes/cards-full.txt");

      const question = opened.find((c) => c.kind === "question") as Card;
      const permission = opened.find((c) => c.kind === "permission") as Card;
      await fx.client.answerCard(ID, question.number, { selected: [`yes ${EVIL}`] });
      await fx.client.answerCard(ID, permission.number, { selected: ["deny"] });
      await asking;
      await writing;

      const log = await enclave(["audit", "--log", ID]);
      expect(log.code).toBe(0);
      clean(log);
      expect(log.stdout).toContain(`card_closed write`);
      // The audit lines that carry what the agent wrote, escaped.
      const carrying = log.stdout.split("\n").filter((l) => l.includes(SHOWN));
      expect(carrying.length).toBeGreaterThan(0);
      await expectTranscript(carrying.sort().join("\n"), "transcripts/cli-escapes/audit-lines.txt", [
        [/#\d+ /g, "#<seq> "],
        [/\bpid \d+/g, "pid <n>"],
      ]);
      const closed = await enclave(["cards", ID, "--all"]);
      clean(closed);
      await expectTranscript(byCard(closed.stdout), "transcripts/cli-escapes/cards-all.txt");
    } finally {
      human.cancel();
    }
  });
});
