// Promises about what a kernel writes on its pipes, on host placement and in an enclosure: whatever
// a cell writes, the agent holds a bounded amount of it, survives, and keeps serving.
// - a frame line with no end (500 MiB on fd 3, no newline) from Python or JavaScript: the kernel is
//   killed, the result says why (kernel_died), the next cell runs in a fresh kernel;
// - output held back behind a sync marker whose frame never comes (the cell forged one);
// - frames that never get their markers;
// - a kernel flooding stderr before it is ready (its start fails with the end of what it printed).
// The agent's memory is read from /proc/<agent pid>/status (the kernel's parent is the agent).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { KernelProcess } from "@enclave/agent/kernels/kernel-process.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type EvalPlace, evalCell, evalOk, hostPython } from "../helpers/eval-cases.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

const MIB = 1024 * 1024;
/** What the attacks write: far more than the agent may hold. */
const ATTACK_MIB = 500;
/** How much the agent's peak memory may grow during an attack. */
const GROWTH_BOUND_MIB = 300;

interface AgentMemory {
  pid: number;
  rssMiB: number;
  peakMiB: number;
}

/** The agent's memory now and its peak, the peak reset first when the kernel is allowed to. */
async function agentMemory(p: EvalPlace, resetPeak: boolean): Promise<AgentMemory> {
  const out = await evalOk(p, {
    code: [
      "import os",
      "agent = os.getppid()",
      resetPeak ? "try:\n    open('/proc/%d/clear_refs' % agent, 'w').write('5')\nexcept OSError:\n    pass" : "",
      "status = dict(l.split(':', 1) for l in open('/proc/%d/status' % agent).read().splitlines() if ':' in l)",
      "print(agent, int(status['VmRSS'].split()[0]) // 1024, int(status['VmHWM'].split()[0]) // 1024)",
    ].join("\n"),
  });
  const [pid, rssMiB, peakMiB] = out.trim().split(/\s+/).map(Number);
  return { pid: pid ?? 0, rssMiB: rssMiB ?? 0, peakMiB: peakMiB ?? 0 };
}

/** Runs an attack cell and checks the agent's peak memory stayed bounded and that it is the same process. */
async function withinBound(p: EvalPlace, attack: () => Promise<void>): Promise<void> {
  const before = await agentMemory(p, true);
  await attack();
  const after = await agentMemory(p, false);
  console.log(`agent memory: ${before.rssMiB} MiB before, peak ${after.peakMiB} MiB, now ${after.rssMiB} MiB`);
  expect(after.pid, "the agent is the same process").toBe(before.pid);
  expect(after.peakMiB - before.rssMiB, `agent peak ${after.peakMiB} MiB after ${before.rssMiB} MiB`).toBeLessThan(GROWTH_BOUND_MIB);
  // It keeps serving: a file tool and a cell answer.
  const list = await p.fx.client.callTool(p.runId, "list", {});
  expect(list.isError, resultText(list)).toBe(false);
}

/** Kernel ids differ per run. */
const KERNEL_IDS: Mask[] = [[/\b(py|js)-[0-9a-f]+\b/g, "$1-<id>"]];

/** What a result says after the last of the flood's own bytes (the note a cap adds): the text past the last run of `byte`. */
const afterFlood = (text: string, byte: string): string => {
  const run = byte.repeat(16);
  return text.slice(text.lastIndexOf(run) + run.length);
};

function frameCases(place: () => EvalPlace, where: string): void {
  it("kills a Python kernel that writes 500 MiB with no line end on its frame pipe; the agent stays bounded and the next cell runs fresh", async () => {
    const p = place();
    await evalOk(p, { code: "kept_before = 'set before the flood'" });
    await withinBound(p, async () => {
      const r = await evalCell(p, {
        code: `import os\nchunk = b'x' * (1 << 20)\nprint('flooding', flush=True)\nfor _ in range(${ATTACK_MIB}):\n    os.write(3, chunk)\nprint('all written')`,
        timeout_seconds: 300,
      });
      expect(r.errorCode, resultText(r).slice(0, 300)).toBe("kernel_died");
      const text = resultText(r);
      expect(text).toMatch(/^flooding\n/);
      expect(text).not.toMatch(/all written/);
      // kernel_died covers every death: the recorded answer says this one broke the frame protocol.
      await expectTranscript(text, `transcripts/kernel-frames/python-frame-flood-${where}.txt`, KERNEL_IDS);
    });
    expect(await evalOk(p, { code: "'kept_before' in globals()" })).toBe("False");
  });

  it("kills a JavaScript kernel that does the same, and the next JavaScript cell runs fresh", async () => {
    const p = place();
    await evalOk(p, { language: "javascript", code: "globalThis.keptBefore = 1" });
    await withinBound(p, async () => {
      const r = await evalCell(p, {
        language: "javascript",
        code: [
          "const fs = require('node:fs');",
          "const chunk = Buffer.alloc(1 << 20, 120);",
          "console.log('flooding');",
          `for (let i = 0; i < ${ATTACK_MIB}; i++) {`,
          "  for (let off = 0; off < chunk.length; ) {",
          "    try { off += fs.writeSync(3, chunk, off); } catch (e) { if (e.code !== 'EAGAIN') throw e; }",
          "  }",
          "}",
          "console.log('all written');",
        ].join("\n"),
        timeout_seconds: 300,
      });
      expect(r.errorCode, resultText(r).slice(0, 300)).toBe("kernel_died");
      expect(resultText(r)).toMatch(/^flooding\n/);
      await expectTranscript(resultText(r), `transcripts/kernel-frames/javascript-frame-flood-${where}.txt`, KERNEL_IDS);
    });
    expect(await evalOk(p, { language: "javascript", code: "typeof keptBefore" })).toBe("'undefined'");
  });

  it("does not hold output without bound behind a forged sync marker whose frame never comes", async () => {
    const p = place();
    await withinBound(p, async () => {
      const r = await evalCell(p, {
        code: [
          "import os",
          "token = display.__self__.channel.token",
          "os.write(1, b'\\0ENCLAVE-SYNC:' + token + b':999999999\\0')",
          "chunk = b'y' * (1 << 20)",
          `for _ in range(${ATTACK_MIB}):`,
          "    os.write(1, chunk)",
        ].join("\n"),
        timeout_seconds: 300,
      });
      expect(r.isError, resultText(r).slice(0, 300)).toBe(false);
      // The output behind the marker was passed on (up to the cell's cap), not held back.
      expect(resultText(r).slice(0, 2000)).toMatch(/^y{1000}/);
      await expectTranscript(afterFlood(resultText(r), "y"), `transcripts/kernel-frames/held-output-capped-${where}.txt`);
    });
    expect(await evalOk(p, { code: "6 * 7" })).toBe("42");
  });

  it("does not hold frames without bound while their sync markers never come", async () => {
    const p = place();
    await withinBound(p, async () => {
      const r = await evalCell(p, {
        code: [
          "import os",
          "channel = display.__self__.channel",
          'rest = b\',"echo":false,"items":[{"mime":"text/plain","text":"\' + b\'z\' * (1 << 20) + b\'"}]}\\n\'',
          "with channel.lock:",
          `    for _ in range(${ATTACK_MIB}):`,
          "        channel.seq += 1",
          '        os.write(3, b\'{"t":"display","seq":%d\' % channel.seq + rest)',
          "'after the frames'",
        ].join("\n"),
        timeout_seconds: 300,
      });
      // Held frames were released (the cell ended), the displays past the cell's cap dropped.
      expect(r.isError, resultText(r).slice(0, 300)).toBe(false);
      await expectTranscript(afterFlood(resultText(r), "z"), `transcripts/kernel-frames/held-frames-capped-${where}.txt`);
    });
  });
}

/** This process's peak resident memory in MiB since the last reset. */
function ownPeakMiB(reset: boolean): number {
  if (reset) writeFileSync("/proc/self/clear_refs", "5");
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

describe("a kernel that never gets ready", () => {
  it("keeps only the end of what it printed on stderr, and says it in the failed start", async () => {
    const flood = `import os\nchunk = b'e' * (1 << 20)\nfor _ in range(${ATTACK_MIB}):\n    os.write(2, chunk)\nos.write(2, b'LAST WORDS')\nos._exit(3)`;
    const before = ownPeakMiB(true);
    const start = KernelProcess.start({ language: "python", argv: ["python3", "-c", flood], env: process.env, cwd: process.cwd() });
    await expect(start).rejects.toMatchObject({ code: "unavailable" });
    const message = await start.then(
      () => "",
      (e: Error) => e.message,
    );
    expect(message.length).toBeLessThan(4096);
    // The end of what it printed (its own words), after why the start failed (ours, recorded).
    expect(message).toMatch(/\ne+LAST WORDS$/);
    await expectTranscript(message, "transcripts/kernel-frames/kernel-never-ready.txt");
    const peak = ownPeakMiB(false);
    expect(peak - before, `peak ${peak} MiB after ${before} MiB`).toBeLessThan(GROWTH_BOUND_MIB);
  });
});

describe("kernel frames on host placement", () => {
  let fx: Fixture;
  let place: EvalPlace;
  beforeAll(async () => {
    process.env.ENCLAVE_PYTHON = hostPython();
    fx = await startFixture();
    const conv = await fx.client.createConversation("kframes-host", mkdtempSync(join(tmpdir(), "enclave-kframes-ws-")));
    expect(conv.placement).toBe("host");
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  });
  afterAll(async () => fx?.close());
  frameCases(() => place, "host");
});

describe("kernel frames in an enclosure", () => {
  let fx: Fixture;
  let place: EvalPlace;
  beforeAll(async () => {
    fx = await startFixture();
    const conv = await fx.client.createConversation("kframes-enc");
    const started = await fx.client.startEnclosure("kframes-enc", { memoryBytes: 2048 * MIB });
    expect(started.placement).toBe("enclosure");
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
    expect(existsSync(place.workspace)).toBe(true);
  });
  afterAll(async () => fx?.close());
  frameCases(() => place, "enclosure");
});
