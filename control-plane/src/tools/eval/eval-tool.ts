// eval (tier exec): a Python or JavaScript cell in the conversation's persistent kernel, where its
// code is (the enclosure when it has one, else the host). Variables, imports and loaded data survive
// between calls. Inside a cell, tool(name, args) calls this run's own tools over the kernel's pipe.
import { z } from "zod";
import { EnclaveError, type EnclaveErrorCode } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import { SURFACES } from "../../model/run.js";
import { defineTool, type ToolOutput } from "../tool.js";
import { type CellOutcome, runCell } from "./eval-cell.js";
import { surfaceWithin } from "./kernel-ceiling.js";
import { EVAL_DETAILS, type EvalDetails, evalDetails } from "./eval-details.js";

const STATUS_CODES: Record<string, EnclaveErrorCode | undefined> = {
  ok: undefined,
  error: "cell_error",
  died: "kernel_died",
};

function wordCount(s: string): number {
  return s.trim().split(/\s+/).filter(Boolean).length;
}

const args = z
  .strictObject({
    code: z.string().describe("the cell: Python (IPython idioms such as %pip, !cmd, %%bash work) or JavaScript (top-level await works)"),
    description: z
      .string()
      .refine((d) => wordCount(d) >= 5 && wordCount(d) <= 10, { message: "must be 5 to 10 words: a short label for the transcript" })
      .describe("5 to 10 words saying what the cell does, shown in the transcript"),
    language: z.enum(["python", "javascript"]).optional().describe("python (default) or javascript"),
    reset: z.boolean().optional().describe("discard the kernel and everything in it, and start clean before running the code"),
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.evalMaxTimeoutSeconds)
      .optional()
      .describe(`idle budget: seconds the cell may run, not counting time waiting for its tool() calls (default ${LIMITS.evalDefaultTimeoutSeconds})`),
    bridge_surface: z
      .enum(SURFACES)
      .optional()
      .describe(
        "limit the tools the cell may call with tool() to a narrower surface than the run's (for example `plan`: read tools only); " +
          "later cells in the same kernel stay limited to it until the kernel is reset",
      ),
  })
  .superRefine((a, ctx) => {
    if (a.code.trim() === "" && !a.reset)
      ctx.addIssue({ code: "custom", path: ["code"], message: "is empty: give the cell's code (or reset: true to only restart the kernel)" });
  });

/** The result: the cell's output in order, then how it ended when that was not plainly. */
function describeOutcome(o: CellOutcome, language: string): ToolOutput<EvalDetails> {
  const { done, transcript, kernel } = o;
  if ((done.status === "error" || done.status === "interrupted") && done.traceback) transcript.line(done.traceback.trimEnd());
  if (done.status === "interrupted") transcript.line(`[interrupted: ${done.detail}]`);
  if (done.status === "killed" || done.status === "died") transcript.line(`[${done.detail}]`);
  if (done.outputTruncated) transcript.line("[output beyond the kernel's per-cell cap was dropped]");
  const parts = transcript.parts();
  if (kernel?.previousFate) {
    parts.unshift({
      type: "text",
      text: `[${kernel.previousFate}; its state was lost, and this cell ran in a fresh ${language} kernel (${kernel.kernelId})]\n`,
    });
  }
  if (parts.length === 0) {
    parts.push({ type: "text", text: o.emptyCell ? `[a fresh ${language} kernel (${kernel?.kernelId ?? "?"}) is ready]` : "(no output)" });
  }
  let code = STATUS_CODES[done.status];
  if (done.status === "interrupted" || done.status === "killed") code = done.budgetExpired ? "timeout" : "cancelled";
  const audit = {
    kernelId: kernel?.kernelId ?? "",
    detail: `cell ${done.status}${kernel?.fresh ? " (fresh kernel)" : ""}; ${o.bridgeCalls} bridge call(s); budget used ${done.budgetUsedMs} ms${done.stateLost ? "; kernel state lost" : ""}`,
  };
  const details = evalDetails(done, kernel, o.data, o.bridgeCalls);
  return code ? { parts, details, error: { code }, audit } : { parts, details, audit };
}

export const evalTool = defineTool({
  name: "eval",
  tier: "exec",
  resource: "kernel",
  description:
    "Run a Python (default) or JavaScript cell in this conversation's persistent kernel: variables, imports and loaded data survive between calls. " +
    "The last expression is echoed; display(obj) shows values (a pandas DataFrame as a table, a matplotlib figure as an image). " +
    "Python takes IPython idioms (%pip install, !cmd, x = !cmd, %cd, %%bash, %timeit, %%timeit). " +
    'Inside a cell, tool("read", {"path": "a.txt"}) calls this run\'s own tools (Python: returns the text; JavaScript: a promise), and the harness\'s; tools() lists what the cell may call. ' +
    `The cell is interrupted after ${LIMITS.evalDefaultTimeoutSeconds} s of its own running time (timeout_seconds), not counting tool() calls.`,
  parallelSafe: false,
  args,
  details: EVAL_DETAILS,
  async run(a, ctx) {
    if (ctx.origin === "bridge") {
      throw new EnclaveError(
        "failed_precondition",
        "eval cannot be called from inside a cell: the kernel is busy running that cell. Call eval directly instead.",
      );
    }
    const bridgeSurface = a.bridge_surface;
    if (bridgeSurface && !surfaceWithin(bridgeSurface, ctx.run.surface)) {
      throw new EnclaveError(
        "invalid_arguments",
        `bridge_surface \`${bridgeSurface}\` is wider than this run's surface \`${ctx.run.surface}\`; it can only narrow what a cell may call`,
      );
    }
    const language = a.language ?? "python";
    const timeoutSeconds = a.timeout_seconds ?? LIMITS.evalDefaultTimeoutSeconds;
    const { client } = await ctx.agent({ kernel: language });
    const outcome = await runCell(client, { language, code: a.code, reset: a.reset ?? false, timeoutSeconds, bridgeSurface }, ctx);
    return describeOutcome(outcome, language);
  },
});
