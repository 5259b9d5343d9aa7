// The agent's DebugSession answering a real adapter's reverse request: debugpy with
// console "integratedTerminal" asks the client to runInTerminal its launcher; the session starts it,
// the program stops at its breakpoint, and its output reaches the buffer through our own pipes.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DebugEndKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { DEBUG_ADAPTERS } from "@enclave/proto/adapter-registry.js";
import { DebugSession } from "@enclave/agent/dap/debug-session.js";
import { launchArguments } from "@enclave/agent/dap/launch-arguments.js";
import { resolvePython } from "@enclave/agent/dap/python-interpreter.js";
import { PY_PROG } from "../helpers/debug-scenarios.js";

const dir = mkdtempSync(join(tmpdir(), "enclave-rit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("reverse requests", () => {
  it("answers debugpy's runInTerminal and captures the program's output from the process it started", async () => {
    const program = join(dir, "prog.py");
    writeFileSync(program, PY_PROG);
    const py = await resolvePython([dir], "launch");
    if (!py.ok) throw new Error(py.detail);
    const spec = DEBUG_ADAPTERS.find((a) => a.id === "debugpy");
    if (!spec) throw new Error("no debugpy in the registry");
    const session = new DebugSession({ key: "k", spec, program: "prog.py", ttlMs: 120_000, relativize: (p) => relative(dir, p) });
    const args = { ...launchArguments(spec, { program, args: [], cwd: dir, interpreter: py.choice.interpreter }), console: "integratedTerminal" };
    const bps = { files: new Map([[program, [12]]]), results: new Map() };
    try {
      await session.launch([py.choice.adapterPython, "-m", "debugpy.adapter"], dir, process.env, args, bps, 60_000, {
        exceptions: "uncaught",
        terminalOutput: "capture",
        cleanup: [],
      });
      expect(session.terminalProcesses).toBe(1);
      expect(session.state).toBe("stopped");
      expect(session.stopped).toMatchObject({ reason: "breakpoint", file: "prog.py", line: 12, function: "main" });
      await session.resume("continue", 0, 60_000);
      expect(session.state).toBe("exited");
      expect(session.exitCode).toBe(0);
      const out = session.output.snapshot().text;
      expect(out).toMatch(/hello from debuggee/);
      expect(out).toMatch(/to stderr/);
      expect(out).toMatch(/done/);
    } finally {
      await session.end("test over", true, DebugEndKind.DEBUG_END_KIND_TERMINATED);
    }
  });
});
