// Promise: resolve racing a concurrent write never leaves a half-applied change and never loses the
// write. A staged rewrite over several files is applied while another run writes one of them: the
// other files end all old (the apply saw the write and refused) or all new (it applied first), and
// the raced file always ends with the write's content.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

let fx: Fixture;
let workspace: string;
const FILES = ["a.py", "b.py", "c.py", "d.py"];
const OLD = "def f(x):\n    return print(x)\n";
const NEW = "def f(x):\n    return log(x)\n";

beforeAll(async () => {
  fx = await startFixture();
  workspace = (await fx.client.createConversation("race")).workspacePath;
});
afterAll(async () => fx?.close());

describe("resolve racing a concurrent write", () => {
  it("applies all or nothing and never loses the write", async () => {
    const outcomes = { applied: 0, refused: 0 };
    for (let round = 0; round < 12; round++) {
      for (const f of FILES) writeFileSync(join(workspace, f), OLD);
      const editor = (await fx.client.openRun("race", { approvalPolicy: "never", resources: ["workspace", "ast"] })).id;
      const other = (await fx.client.openRun("race", { approvalPolicy: "never", resources: ["workspace"] })).id;
      const staged = await fx.client.callTool(editor, "ast_edit", { pattern: "print($X)", rewrite: "log($X)", path: "", language: "python" });
      await expectTranscript(resultText(staged), "transcripts/resolve-race/staged.txt");
      const raced = FILES[round % FILES.length] as string;
      const written = `# written by the other run in round ${round}\n`;
      // Start both together, one of them a little later, taking turns, so the write lands before,
      // during and after the apply.
      const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const doResolve = () => fx.client.callTool(editor, "resolve", { action: "apply", reason: "race" });
      const doWrite = () => fx.client.callTool(other, "write", { path: raced, content: written });
      // The first two rounds pin both outcomes (the write lands first: refused; the apply ends first:
      // applied), so both branches below are checked whatever the timing of the racing rounds.
      const lag = Math.floor(round / 2) % 3;
      const [applied, write] =
        round === 0
          ? await doWrite().then(async (w) => [await doResolve(), w] as const)
          : round === 1
            ? await doResolve().then(async (a) => [a, await doWrite()] as const)
            : round % 2 === 0
              ? await Promise.all([doResolve(), later(lag).then(doWrite)])
              : await Promise.all([later(lag).then(doResolve), doWrite()]);
      expect(write.isError, resultText(write)).toBe(false);
      expect(readFileSync(join(workspace, raced), "utf8"), `round ${round}: the concurrent write was lost`).toBe(written);
      const rest = FILES.filter((f) => f !== raced).map((f) => readFileSync(join(workspace, f), "utf8"));
      if (applied.isError) {
        outcomes.refused++;
        expect(resultText(applied)).toContain(raced);
        expect(rest, `round ${round}: refused but changed`).toEqual(rest.map(() => OLD));
      } else {
        outcomes.applied++;
        expect(rest, `round ${round}: applied in part`).toEqual(rest.map(() => NEW));
      }
      await fx.client.closeRun(editor);
      await fx.client.closeRun(other);
    }
    expect(outcomes.refused, "no round saw its apply refused").toBeGreaterThan(0);
    expect(outcomes.applied, "no round applied").toBeGreaterThan(0);
  }, 300_000);
});
