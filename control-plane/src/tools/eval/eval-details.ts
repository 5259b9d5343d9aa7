// eval's details: a cell's result as data, beside the transcript the model reads. Streams apart
// (stdout, stderr), what it displayed as MIME bundles (as a notebook keeps them: text as text, images
// as base64), how it ended, the error it raised, and the kernel it ran in. Bounded like the text:
// each stream clipped to head and tail at the transcript's cap, images at the transcript's count.
import { z } from "zod";
import type { DisplayData, EvalDone, KernelInfo } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { LIMITS } from "../../limits.js";
import { clipMiddleBytes } from "../../text/wording.js";

/** Image types the kernel sends as raw bytes (SVG is text). */
function binary(mime: string): boolean {
  return mime.startsWith("image/") && mime !== "image/svg+xml";
}

export const EVAL_DETAILS = z.object({
  status: z
    .enum(["ok", "error", "interrupted", "killed", "died"])
    .describe(
      "ok; error: the cell raised; interrupted: stopped by its time budget or the caller (the kernel and its state are kept); " +
        "killed: it did not stop after the interrupt and was killed; died: the kernel exited during the cell",
    ),
  stdout: z.string().describe(`what the cell printed to standard output (UTF-8), clipped to head and tail at ${LIMITS.evalResultTextBytes} bytes`),
  stderr: z.string().describe(`what it printed to standard error, clipped the same way`),
  stdout_clipped: z.boolean(),
  stderr_clipped: z.boolean(),
  outputs: z
    .array(
      z.object({
        data: z
          .record(z.string(), z.string())
          .describe("the object in every representation the kernel made, by MIME type: text types as text, images (image/png…) as base64"),
        echo: z.boolean().describe("the cell's echoed last expression; false for display() and figures"),
      }),
    )
    .describe(
      `what the cell displayed, in order; bundles carrying an image past the ${LIMITS.evalMaxImages}th are left out, as in the text, and so are bundles past ${LIMITS.evalDetailsOutputsMaxBytes} bytes in all`,
    ),
  outputs_total: z.number().int().describe("bundles the cell displayed"),
  outputs_truncated: z.boolean().describe("some bundles were left out (outputs_total says how many there were)"),
  error: z
    .object({
      name: z.string().describe("the exception's type (ZeroDivisionError, TypeError, KeyboardInterrupt…)"),
      value: z.string().describe("its message"),
      traceback: z.array(z.string()).describe("the traceback's lines, pointing at the cell's own lines"),
    })
    .nullable()
    .describe("what the cell raised (also on interrupt: the interrupt's own exception); null when it raised nothing"),
  timed_out: z.boolean().describe("the cell's time budget ran out (status interrupted or killed); false when the caller interrupted it"),
  duration_ms: z.number().int(),
  budget_used_ms: z.number().int().describe("running time charged to the budget (time in tool() calls excluded)"),
  output_truncated: z.boolean().describe("output beyond the kernel's per-cell cap was dropped before it reached the control plane"),
  bridge_calls: z.number().int().describe("tool() calls the cell made"),
  kernel: z
    .object({
      id: z.string().describe("new for every kernel process: a restart makes a new id"),
      language: z.enum(["python", "javascript"]),
      interpreter: z.string().describe('the interpreter and its version ("cpython 3.12.3", "node v22.12.0")'),
      fresh: z.boolean().describe("the kernel was started for this cell (first use, reset, or after the previous one was lost)"),
      previous_fate: z.string().nullable().describe("why the previous kernel is gone, when it died between cells and its state was lost; null otherwise"),
    })
    .nullable()
    .describe("the kernel the cell ran in; null when the agent never named one"),
  state_lost: z.boolean().describe("this cell's end lost the kernel's state (killed, or the kernel died)"),
});
export type EvalDetails = z.infer<typeof EVAL_DETAILS>;

export interface CellData {
  stdout: Buffer[];
  stderr: Buffer[];
  displays: DisplayData[];
}

function outputsOf(displays: readonly DisplayData[]): Pick<EvalDetails, "outputs" | "outputs_total" | "outputs_truncated"> {
  let images = 0;
  let bytes = 0;
  const outputs: EvalDetails["outputs"] = [];
  for (const d of displays) {
    // The transcript shows one image per bundle and keeps LIMITS.evalMaxImages of them.
    const image = d.items.some((i) => binary(i.mimeType));
    if (image && images >= LIMITS.evalMaxImages) continue;
    // A cell may display without end: past the budget, bundles are counted, not kept (the result must stay one message).
    const size = d.items.reduce((n, i) => n + (binary(i.mimeType) ? Math.ceil(i.data.length / 3) * 4 : i.data.length), 0);
    if (bytes + size > LIMITS.evalDetailsOutputsMaxBytes) continue;
    bytes += size;
    if (image) images += 1;
    const data: Record<string, string> = {};
    for (const i of d.items) data[i.mimeType] = i.data.toString(binary(i.mimeType) ? "base64" : "utf8");
    outputs.push({ data, echo: d.echo });
  }
  return { outputs, outputs_total: displays.length, outputs_truncated: outputs.length < displays.length };
}

/** The interpreter without the path it runs from (a path of the machine, not the project). */
function interpreterName(s: string): string {
  return s.replace(/\s*\([^()]*\)\s*$/, "");
}

function language(l: string): "python" | "javascript" {
  return l === "javascript" ? "javascript" : "python";
}

export function evalDetails(done: EvalDone, kernel: KernelInfo | undefined, data: CellData, bridgeCalls: number): EvalDetails {
  const stdout = Buffer.concat(data.stdout);
  const stderr = Buffer.concat(data.stderr);
  const status = (["ok", "error", "interrupted", "killed", "died"] as const).find((s) => s === done.status) ?? "error";
  return {
    status,
    stdout: clipMiddleBytes(stdout, LIMITS.evalResultTextBytes),
    stderr: clipMiddleBytes(stderr, LIMITS.evalResultTextBytes),
    stdout_clipped: stdout.length > LIMITS.evalResultTextBytes,
    stderr_clipped: stderr.length > LIMITS.evalResultTextBytes,
    ...outputsOf(data.displays),
    error: done.errorName ? { name: done.errorName, value: done.errorValue, traceback: done.traceback ? done.traceback.trimEnd().split("\n") : [] } : null,
    timed_out: done.budgetExpired,
    duration_ms: Number(done.durationMs),
    budget_used_ms: Number(done.budgetUsedMs),
    output_truncated: done.outputTruncated,
    bridge_calls: bridgeCalls,
    kernel: kernel
      ? {
          id: kernel.kernelId,
          language: language(kernel.language),
          interpreter: interpreterName(kernel.interpreter),
          fresh: kernel.fresh,
          previous_fate: kernel.previousFate || null,
        }
      : null,
    state_lost: done.stateLost,
  };
}
