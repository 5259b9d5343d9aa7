// Stack traces of the JavaScript kernel: positions mapped back to the cells, the runner's plumbing left out.
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { CellStacks } from "./cell-stack.js";
import { rewriteCell } from "./rewrite-cell.js";

const RUNNER = "file:///opt/enclave/agent/kernels/js-runner.mjs";

async function run(stacks: CellStacks, n: number, code: string): Promise<unknown> {
  const { source, positions } = rewriteCell(code);
  stacks.remember(`<cell ${n}>`, positions);
  return new vm.Script(source, { filename: `<cell ${n}>` }).runInThisContext();
}

describe("CellStacks", () => {
  it("keeps frames of earlier cells at their own line and column, and drops the wrapper's", async () => {
    const stacks = new CellStacks([RUNNER]);
    await run(stacks, 1, "function thrower() {\n  throw new Error('boom')\n}");
    const err = await run(stacks, 2, "let before = 1;\nconst r = thrower();").catch((e: Error) => e);
    expect(
      stacks
        .clean((err as Error).stack ?? "")
        .split("\n")
        .slice(0, 3),
    ).toEqual(["Error: boom", "    at thrower (<cell 1>:2:9)", "    at <cell 2>:2:11"]);
  });

  it("leaves out the runner, node:vm and the event loop's plumbing, and nothing of the user's", () => {
    const stacks = new CellStacks([RUNNER]);
    const stack = [
      "Error: late",
      "    at helper (file:///workspace/lib.mjs:3:9)",
      "    at <cell 7>:1:5",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
      "    at Object.openSync (node:fs:573:18)",
      "    at async <cell 7>:2:1",
      "    at sigintHandlersWrap (node:vm:280:12)",
      "    at Script.runInThisContext (node:vm:135:14)",
      `    at execute (${RUNNER}:6152:36)`,
      "    at AsyncLocalStorage.run (node:async_hooks:346:14)",
      "    at listOnTimeout (node:internal/timers:581:17)",
    ].join("\n");
    expect(stacks.clean(stack)).toBe(
      [
        "Error: late",
        "    at helper (file:///workspace/lib.mjs:3:9)",
        "    at <cell 7>:1:5",
        "    at Object.openSync (node:fs:573:18)",
        "    at async <cell 7>:2:1",
      ].join("\n"),
    );
  });

  it("as Error.prepareStackTrace, cleans every stack made after it is installed", async () => {
    const stacks = new CellStacks([RUNNER]);
    const saved = Error.prepareStackTrace;
    try {
      stacks.install();
      const err = (await run(stacks, 3, "await null;\nnew Error('made')")) as { value: Error };
      expect(err.value.stack).toBe("Error: made\n    at <cell 3>:2:1");
    } finally {
      Error.prepareStackTrace = saved;
    }
  });
});
