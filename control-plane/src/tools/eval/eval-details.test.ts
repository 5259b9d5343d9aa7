// eval's details from what a cell sent: bundles by MIME type (images as base64), bounded like the
// transcript, the error's traceback as lines, and no path of the machine in the interpreter.
import { describe, expect, it } from "vitest";
import type { DisplayData, EvalDone, KernelInfo } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { LIMITS } from "../../limits.js";
import { EVAL_DETAILS, evalDetails } from "./eval-details.js";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]);

function done(over: Partial<EvalDone>): EvalDone {
  return {
    status: "ok",
    errorName: "",
    errorValue: "",
    traceback: "",
    detail: "",
    durationMs: 5,
    budgetUsedMs: 4,
    outputTruncated: false,
    stateLost: false,
    budgetExpired: false,
    ...over,
  };
}

const kernel: KernelInfo = {
  kernelId: "k1",
  language: "python",
  pid: 7,
  interpreter: "cpython 3.12.3 (/opt/somewhere/bin/python3)",
  startMs: 0,
  previousFate: "",
  fresh: true,
};

describe("eval details", () => {
  it("keeps bundles up to a byte budget, counting the rest: a cell that displays without end still answers in one message", () => {
    const kib: DisplayData = { items: [{ mimeType: "text/plain", data: Buffer.alloc(1024, 0x61) }], echo: false };
    const displays = Array.from({ length: (LIMITS.evalDetailsOutputsMaxBytes / 1024) * 3 }, () => kib);
    const d = evalDetails(done({}), kernel, { stdout: [], stderr: [], displays }, 0);
    expect(d.outputs.length).toBe(LIMITS.evalDetailsOutputsMaxBytes / 1024);
    expect({ total: d.outputs_total, truncated: d.outputs_truncated }).toEqual({ total: displays.length, truncated: true });
    expect(EVAL_DETAILS.safeParse(d).success).toBe(true);
  });

  it("keeps every bundle but those carrying an image past the transcript's cap, images as base64", () => {
    const image: DisplayData = { items: [{ mimeType: "image/png", data: PNG }], echo: false };
    const table: DisplayData = {
      items: [
        { mimeType: "text/plain", data: Buffer.from("   a\n0  1") },
        { mimeType: "text/html", data: Buffer.from("<table></table>") },
      ],
      echo: true,
    };
    const displays = [...Array.from({ length: LIMITS.evalMaxImages + 2 }, () => image), table];
    const d = evalDetails(done({}), kernel, { stdout: [Buffer.from("a"), Buffer.from("b\n")], stderr: [], displays }, 0);
    expect(EVAL_DETAILS.safeParse(d).success).toBe(true);
    expect(d.outputs).toHaveLength(LIMITS.evalMaxImages + 1);
    expect(d.outputs_total).toBe(LIMITS.evalMaxImages + 3);
    expect(d.outputs_truncated).toBe(true);
    expect(Buffer.from(d.outputs[0]?.data["image/png"] ?? "", "base64")).toEqual(PNG);
    expect(d.outputs.at(-1)).toEqual({ data: { "text/plain": "   a\n0  1", "text/html": "<table></table>" }, echo: true });
    expect(d.stdout).toBe("ab\n");
    expect(d.kernel).toEqual({ id: "k1", language: "python", interpreter: "cpython 3.12.3", fresh: true, previous_fate: null });
  });

  it("gives an error's name, value and traceback lines, and clips a long stream to head and tail", () => {
    const tb = "Traceback (most recent call last):\n  Cell In[1], line 1\n    1 / 0\nZeroDivisionError: division by zero\n";
    const big = Buffer.alloc(LIMITS.evalResultTextBytes * 2, "x");
    const d = evalDetails(
      done({ status: "error", errorName: "ZeroDivisionError", errorValue: "division by zero", traceback: tb }),
      undefined,
      { stdout: [], stderr: [big], displays: [] },
      2,
    );
    expect(EVAL_DETAILS.safeParse(d).success).toBe(true);
    expect(d.error).toEqual({
      name: "ZeroDivisionError",
      value: "division by zero",
      traceback: ["Traceback (most recent call last):", "  Cell In[1], line 1", "    1 / 0", "ZeroDivisionError: division by zero"],
    });
    expect(d.stderr_clipped).toBe(true);
    expect(d.stderr.length).toBeLessThan(LIMITS.evalResultTextBytes + 100);
    expect(d.stderr).toContain("bytes cut");
    expect(d.kernel).toBeNull();
    expect(d.bridge_calls).toBe(2);
  });
});
