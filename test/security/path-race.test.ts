// Promise: a path the agent has checked cannot be redirected before it is used. While another
// process swaps the folder `sub` with a symbolic link to a folder outside the workspace as fast as
// renames go, 1,500 reads and 1,500 writes of `sub/x` through the agent never return the outside
// file's secret and never create or change anything in the outside folder — on host placement and
// inside an enclosure alike.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { until } from "../helpers/wait.js";

const SWAPPER = join(dirname(fileURLToPath(import.meta.url)), "..", "helpers", "path-swapper.mjs");
const ITERATIONS = 1_500;
/** The swapper's own bound: it stops by itself even if the test dies before telling it to. */
const SWAPPER_MAX_SECONDS = 240;

interface SwapReport {
  swaps: number;
  repairs: number;
  seconds: number;
  strayNames: string[];
  changedContents: string[];
}

function parseReport(out: string): SwapReport {
  const line = out.split("\n").find((l) => l.startsWith('{"swaps"'));
  if (!line) throw new Error(`the swapper printed no report: ${out.slice(-2000)}`);
  return JSON.parse(line) as SwapReport;
}

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

for (const placement of ["host", "enclosure"] as const) {
  describe(`path race (${placement})`, () => {
    const id = `race-${placement}`;
    const secret = `TOP-SECRET-${randomBytes(8).toString("hex")}`;
    let ws: string;
    let run: string;
    let shell: string;
    let child: ChildProcess | undefined;

    beforeAll(async () => {
      ws = (await fx.client.createConversation(id)).workspacePath;
      if (placement === "enclosure") {
        mkdirSync(join(ws, ".race"));
        copyFileSync(SWAPPER, join(ws, ".race", "path-swapper.mjs"));
        await fx.client.startEnclosure(id);
      }
      run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace"] })).id;
      shell = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["shell"] })).id;
    });
    afterAll(() => {
      if (child?.exitCode === null) child.kill("SIGKILL");
    });

    it(`never reads or writes outside while sub/x is swapped ${ITERATIONS} times`, async () => {
      // The swapper: a child process here for host placement, an exec'd process inside the enclosure.
      let finished: Promise<string>;
      if (placement === "host") {
        const outside = join(fx.dataDir, "outside-host");
        const proc = spawn(process.execPath, [SWAPPER, ws, outside, secret, String(SWAPPER_MAX_SECONDS)], { stdio: ["ignore", "pipe", "pipe"] });
        child = proc;
        let out = "";
        proc.stdout.on("data", (c: Buffer) => (out += c.toString()));
        proc.stderr.on("data", (c: Buffer) => (out += c.toString()));
        finished = new Promise((resolve) => proc.on("close", () => resolve(out)));
      } else {
        finished = fx.client
          .callTool(shell, "exec", {
            command: `node .race/path-swapper.mjs /workspace /tmp/outside-race ${secret} ${SWAPPER_MAX_SECONDS}`,
            timeout_seconds: SWAPPER_MAX_SECONDS + 30,
          })
          .then((r) => resultText(r));
      }
      await until(() => existsSync(join(ws, "sub.link")) || existsSync(join(ws, "sub.dir")), "the swapper to start", 60_000);

      const tally = { leaked: 0, readInside: 0, readRefused: 0, written: 0, writeRefused: 0 };
      const codes = new Map<string, number>();
      const samples = new Map<string, string>();
      for (let i = 0; i < ITERATIONS; i++) {
        const [r, w] = await Promise.all([
          fx.client.callTool(run, "read", { path: "sub/x" }),
          fx.client.callTool(run, "write", { path: "sub/x", content: `written ${i}\n` }),
        ]);
        if (resultText(r).includes(secret)) tally.leaked++;
        else if (r.isError) tally.readRefused++;
        else tally.readInside++;
        if (w.isError) tally.writeRefused++;
        else tally.written++;
        for (const e of [r, w]) {
          if (!e.isError) continue;
          codes.set(e.errorCode, (codes.get(e.errorCode) ?? 0) + 1);
          if (!samples.has(e.errorCode)) samples.set(e.errorCode, resultText(e));
        }
      }
      writeFileSync(join(ws, ".race-stop"), "");
      const report = parseReport(await finished);
      const summary = JSON.stringify({
        ...tally,
        codes: Object.fromEntries(codes),
        swaps: report.swaps,
        seconds: report.seconds,
        strayFiles: report.strayNames.length,
        changedContents: report.changedContents.length,
        samples: Object.fromEntries(samples),
      });
      console.log(`path race (${placement}): ${summary}`);

      expect(tally.leaked, `reads returned the outside secret: ${summary}`).toBe(0);
      expect(report.strayNames, `files appeared in the outside folder: ${summary}`).toEqual([]);
      expect(report.changedContents, `the outside file was changed: ${summary}`).toEqual([]);
      // The race really ran: the folder was swapped all along, and reads met both sides of it.
      expect(report.swaps).toBeGreaterThan(ITERATIONS);
      expect(tally.readInside, summary).toBeGreaterThan(0);
      expect(tally.readRefused, summary).toBeGreaterThan(0);
      // Every refusal is one of the ordinary answers (the link leads out, the path is missing,
      // half-swapped or kept changing right now), never an internal failure.
      for (const code of codes.keys()) expect(["outside_workspace", "not_found", "invalid_arguments", "failed_precondition"], summary).toContain(code);
    }, 900_000);
  });
}
