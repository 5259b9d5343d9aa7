// eval on host placement: the kernels run as children of the conversation's host agent.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { Surface } from "@enclave/client/run-options.js";
import { type EvalPlace, evalCases, evalCell, hostPython } from "../helpers/eval-cases.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { EVAL_DETAILS } from "@enclave/control-plane/tools/eval/eval-details.js";
import { detailsOf } from "../helpers/tool-details.js";
import { tableAgrees } from "../fidelity/eval-compare.js";
import { until } from "../helpers/wait.js";
import { sandboxNamespace, sandboxProcesses } from "../helpers/sandbox-processes.js";

/** The last line of a result: after a traceback (Python's words), the line or note that is ours. */
const lastLine = (text: string): string => text.trimEnd().split("\n").at(-1) ?? "";

let fx: Fixture;
let place: EvalPlace;

beforeAll(async () => {
  // The host agents inherit this: the kernel's base interpreter is the Python with the data stack.
  process.env.ENCLAVE_PYTHON = hostPython();
  fx = await startFixture();
  const conv = await fx.client.createConversation("evalhost", mkdtempSync(join(tmpdir(), "enclave-eval-ws-")));
  place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  expect(conv.placement).toBe("host");
});
afterAll(async () => fx?.close());

describe("eval on host placement", () => {
  evalCases(() => place);

  it("is registered only with a kernel factory, and absent from plan surfaces", async () => {
    const names = async (opts: { surface?: Surface; resources?: string[] }) =>
      (await fx.client.listTools((await fx.client.openRun("evalhost", opts)).id)).tools.map((t) => t.name);
    expect(await names({})).toContain("eval");
    expect(await names({ resources: ["workspace", "shell"] })).not.toContain("eval");
    expect(await names({ surface: "plan" })).not.toContain("eval");
    const tool = (await fx.client.listTools(place.runId)).tools.find((t) => t.name === "eval");
    expect(tool?.tier).toBe("exec");
    expect(tool?.parallelSafe).toBe(false);
  });

  it("validates its arguments", async () => {
    const short = await fx.client.callTool(place.runId, "eval", { code: "1", description: "too short" });
    expect(short.errorCode).toBe("invalid_arguments");
    const empty = await evalCell(place, { code: "  " });
    expect(empty.errorCode).toBe("invalid_arguments");
    // Each names the argument and what it needs, recorded whole.
    await expectTranscript(`${resultText(short)}\n${resultText(empty)}\n`, "transcripts/eval-host/argument-errors.txt");
    const lang = await evalCell(place, { code: "1", language: "ruby" });
    expect(lang.errorCode).toBe("invalid_arguments");
    const nested = await evalCell(place, { code: "tool('eval', {'code': '1', 'description': 'a nested cell that cannot run'})" });
    // The cell raised the bridge's ToolError (its traceback is Python's); its line carries the code and our message.
    expect(nested.errorCode).toBe("cell_error");
    await expectTranscript(lastLine(resultText(nested)), "transcripts/eval-host/nested-eval.txt");
  });

  it("interrupts a cell when the harness cancels the call, keeping the kernel", async () => {
    await evalCell(place, { code: "survivor = 'yes'" });
    const abort = new AbortController();
    const pending = fx.cp.callTool(
      place.runId,
      "eval",
      JSON.stringify({ description: "a cell the harness will cancel", code: "import time\nprint('working', flush=True)\ntime.sleep(60)" }),
      {
        signal: abort.signal,
      },
    );
    await new Promise((r) => setTimeout(r, 1000));
    abort.abort();
    const r = await pending;
    expect(r.errorCode).toBe("cancelled");
    const text = r.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
    expect(text).toMatch(/^working\n[\s\S]*KeyboardInterrupt/);
    // After Python's traceback, the note of why it stopped.
    await expectTranscript(lastLine(text), "transcripts/eval-host/cancelled-note.txt");
    expect(resultText(await evalCell(place, { code: "survivor" }))).toBe("'yes'");
  });

  it("stops a JavaScript cell waiting forever, and kills one spinning after an await (saying its state was lost)", async () => {
    await evalCell(place, { language: "javascript", code: "globalThis.jsState = 'kept'" });
    const waiting = await evalCell(place, { language: "javascript", code: "console.log('waiting'); await new Promise(() => {})", timeout_seconds: 1 });
    expect(waiting.errorCode).toBe("timeout");
    await expectTranscript(resultText(waiting), "transcripts/eval-host/javascript-waiting-interrupted.txt");
    expect(resultText(await evalCell(place, { language: "javascript", code: "jsState" }))).toBe("'kept'");
    const spinning = await evalCell(place, { language: "javascript", code: "await null; while (true) {}", timeout_seconds: 1 });
    expect(spinning.errorCode).toBe("timeout");
    await expectTranscript(resultText(spinning), "transcripts/eval-host/javascript-spinning-killed.txt", [[/\bjs-[0-9a-f]+\b/g, "js-<id>"]]);
    const fresh = await evalCell(place, { language: "javascript", code: "typeof jsState" });
    expect(resultText(fresh)).toBe("'undefined'");
  });

  it("says plainly that input() cannot read, and keeps output printed between cells for the next one", async () => {
    const r = await evalCell(place, { code: "input('name? ')" });
    expect(r.errorCode).toBe("cell_error");
    await expectTranscript(lastLine(resultText(r)), "transcripts/eval-host/input-refused.txt");
    await evalCell(place, { code: "import threading, time\nthreading.Timer(0.3, lambda: print('late line', flush=True)).start()" });
    await new Promise((res) => setTimeout(res, 800));
    expect(resultText(await evalCell(place, { code: "'next'" }))).toBe("[printed by the kernel between cells]\nlate line\n'next'");
  });

  it("kills the kernels and removes their environment when the conversation is deleted", async () => {
    await fx.client.createConversation("evalgone", mkdtempSync(join(tmpdir(), "enclave-eval-ws-")));
    const run = (await fx.client.openRun("evalgone", { approvalPolicy: "never" })).id;
    const r = await fx.client.callTool(run, "eval", {
      description: "find where the kernel environment lives",
      code: "import os, sys\n(os.getpid(), sys.prefix)",
    });
    const m = /^\((\d+), '([^']+)'\)$/.exec(resultText(r));
    expect(m, resultText(r)).not.toBeNull();
    const [pid, prefix] = [Number(m?.[1]), m?.[2] ?? ""];
    // The environment is in the conversation's state folder (mounted into the sandbox at /run/enclave/state).
    expect(prefix.startsWith("/run/enclave/state/")).toBe(true);
    const onHost = join(fx.dataDir, "host-state", "evalgone", prefix.slice("/run/enclave/state/".length));
    expect(existsSync(onHost)).toBe(true);
    const sandbox = sandboxNamespace(fx.cp.hostAgents.pid("evalgone") ?? 0);
    expect(sandboxProcesses(sandbox).some((p) => p.innerPid === pid)).toBe(true);
    await fx.client.deleteConversation("evalgone");
    expect(existsSync(onHost)).toBe(false);
    await until(() => sandboxProcesses(sandbox).length === 0, "the sandbox of evalgone to empty", 10_000);
  });

  it("renders DataFrames with the rows and columns of pandas' HTML: empty, MultiIndex rows and columns, groupby().agg; a Series as text", async () => {
    await evalCell(place, {
      code:
        "import pandas as pd\nsales = pd.DataFrame({'region': ['north', 'north', 'south', 'south', 'south'], 'year': [2023, 2024, 2023, 2024, 2024], " +
        "'units': [10, 12, 7, 9, 4], 'price': [2.5, 2.75, 3.0, 3.25, 3.5]})",
    });
    const cells: Array<[string, string]> = [
      ["an empty frame", "pd.DataFrame(columns=['a'])"],
      ["a filter that keeps no row", "sales[sales.units > 100]"],
      ["MultiIndex rows", "sales.set_index(['region', 'year']).sort_index()"],
      ["MultiIndex columns", "pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=pd.MultiIndex.from_tuples([('x', 'a'), ('x', 'b'), ('y', 'c')]))"],
      ["groupby().agg with several functions", "sales.groupby('region').agg({'units': ['sum', 'mean'], 'price': ['min', 'max']})"],
      ["a Series", "sales.groupby(['region', 'year'])['units'].sum()"],
    ];
    const shown: string[] = [];
    for (const [what, code] of cells) {
      const r = await fx.client.callTool(place.runId, "eval", { description: "show a pandas value as the cell result", code });
      expect(r.isError, resultText(r)).toBe(false);
      const [out] = detailsOf(EVAL_DETAILS, r).outputs;
      const html = out?.data["text/html"];
      const markdown = out?.data["text/markdown"];
      // A frame's markdown (the result's text) is checked against the HTML pandas made, which Jupyter shows.
      if (html !== undefined) {
        expect(markdown, what).toBeDefined();
        expect(tableAgrees(markdown ?? "", html), `${what}:\n${markdown}`).toBe(true);
        expect(resultText(r).startsWith(markdown ?? "")).toBe(true);
      } else expect(markdown, what).toBeUndefined();
      shown.push(`── ${what}: ${code}\n${resultText(r)}`);
    }
    await expectTranscript(`${shown.join("\n\n")}\n`, "transcripts/eval-host/dataframe-structure.txt");
  });

  it("keeps the kernel across calls of the conversation, and never starts an enclosure", async () => {
    await evalCell(place, { code: "marker = 'kept'" });
    const other = (await fx.client.openRun("evalhost", { approvalPolicy: "never" })).id;
    const r = await evalCell(place, { code: "marker" }, other);
    expect(resultText(r)).toBe("'kept'");
    expect((await fx.client.getConversation("evalhost")).placement).toBe("host");
  });
});
