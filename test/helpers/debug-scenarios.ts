// The debug tool's integration scenarios on real adapters (debugpy, lldb-vscode-15, delve), run
// once on host placement and once in an enclosure by debug-host.test.ts and debug-enclosure.test.ts.
// Files are written and programs built through the tools, so they belong to the placement's user.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "./control-plane-fixture.js";
import type { Mask } from "@enclave/test-kit/transcript.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

export type Placement = "host" | "enclosure";

export const PY_PROG = `import sys

def helper(n):
    total = n * 2
    return total

def main():
    long_value = "x" * 1000
    items = list(range(100))
    print("hello from debuggee")
    print("to stderr", file=sys.stderr)
    r = helper(21)
    print("result", r)
    return r

main()
print("done")
`;

const C_PROG = `#include <stdio.h>
int square(int x) {
  int y = x * x;
  return y;
}
int main(void) {
  int a = 7;
  printf("hello from c\\n");
  fflush(stdout);
  int b = square(a);
  printf("b=%d\\n", b);
  return 0;
}
`;

/** A program that runs until stopped, calling tick() ten times a second: for attach by pid. */
const LOOP_C = `#include <unistd.h>
int tick(int n) {
  int m = n + 1;
  return m;
}
int main(void) {
  int n = 0;
  for (;;) {
    n = tick(n);
    usleep(100000);
  }
}
`;

const GO_PROG = `package main

import (
	"fmt"
	"os"
)

func add(a, b int) int {
	sum := a + b
	return sum
}

func main() {
	x := 40
	fmt.Println("hello from go")
	fmt.Fprintln(os.Stderr, "go stderr")
	r := add(x, 2)
	fmt.Println("r =", r)
}
`;

const ATTACH_PROG = `import time
for i in range(3000):
    counter = i
    time.sleep(0.1)
`;

const RECURSE = `def down(n):
    if n == 0:
        return 0
    return down(n - 1) + 1

print(down(40))
`;

/** Raises and catches one exception, then raises one nobody catches. */
export const BOOM_PY = `import json

def parse(s):
    return json.loads(s)

def check(v):
    if v < 0:
        raise ValueError(f"negative: {v}")
    return v

def main():
    try:
        parse("{bad")
    except ValueError:
        pass
    check(-3)

main()
`;

export const READ_PY = `import sys
print("before", flush=True)
line = sys.stdin.readline()
print("got:" + repr(line))
print("rest:" + repr(sys.stdin.read()))
`;

export const READ_C = `#include <stdio.h>
int main(void) {
  char buf[100];
  printf("before\\n");
  fflush(stdout);
  if (fgets(buf, sizeof buf, stdin)) printf("got:%s", buf);
  else printf("eof\\n");
  return 0;
}
`;

const MAKE_C = `#include <stdio.h>
int twice(int x) {
  return x * 2;
}
int main(void) {
  printf("%d\\n", twice(21));
  return 0;
}
`;

const WHOAMI = `import sys
print("prefix=" + sys.prefix)
print("executable=" + sys.executable)
`;

export interface DebugHarness {
  fx: Fixture;
  runId: string;
  call(args: Record<string, unknown>): Promise<{ isError: boolean; text: string; code: string }>;
  ok(args: Record<string, unknown>): Promise<string>;
  tool(name: string, args: Record<string, unknown>): Promise<string>;
}

/** A conversation (in an enclosure when asked) with a run that has the debug tool. */
export async function openHarness(fx: Fixture, id: string, placement: Placement): Promise<DebugHarness> {
  await fx.client.createConversation(id);
  if (placement === "enclosure") await fx.client.startEnclosure(id);
  const runId = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "shell", "debug"] })).id;
  const call = async (args: Record<string, unknown>) => {
    const r = await fx.client.callTool(runId, "debug", args);
    return { isError: r.isError, text: resultText(r), code: r.errorCode };
  };
  return {
    fx,
    runId,
    call,
    async ok(args) {
      const r = await call(args);
      expect(r.isError, `${JSON.stringify(args)} → ${r.text}`).toBe(false);
      return r.text;
    },
    async tool(name, args) {
      const r = await fx.client.callTool(runId, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)} → ${resultText(r)}`).toBe(false);
      return resultText(r);
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function withEnv<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env[name];
  process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

const TTL_SECONDS = 8;

/** What differs between runs and placements in the debug tool's answers: adapter-made ids, pids, ports. */
const DEBUG_MASKS: readonly Mask[] = [
  [/(frame_id"?[: ] ?)\d+/g, "$1<n>"],
  [/(reference"?[: ] ?)\d+/g, "$1<n>"],
  [/\bthread \d+/g, "thread <n>"],
  [/(\bpid"?[: ] ?)\d+/g, "$1<pid>"],
  [/("port":)\d+/g, "$1<port>"],
  // What is left of the session's hard TTL when it answers (29 min 58 s, 30 min, or 7 s in a short one).
  [/\bexpires in [^(\n]*\(/g, "expires in <ttl> ("],
  // A session ended by terminate or its TTL answers before or after its debuggee's exit arrives, so
  // its exit code is there or not yet; when a program ends by itself the code is its words' own.
  [/ \(exit code \d+\)$/gm, ""],
];

/**
 * The harness's calls with every answer recorded in one transcript, under a header naming the call
 * (and, for a refusal, its code). `tidy` rewrites an answer before it is recorded, for what the
 * scenario cannot pin (where a pause lands).
 */
function recorded(h: DebugHarness) {
  const log = new TranscriptLog();
  const header = (args: Record<string, unknown>) => `debug ${JSON.stringify(args)}`;
  return {
    log,
    async ok(args: Record<string, unknown>, tidy: (text: string) => string = (t) => t): Promise<string> {
      const text = await h.ok(args);
      log.add(header(args), tidy(text));
      return text;
    },
    async call(args: Record<string, unknown>): Promise<{ isError: boolean; text: string; code: string }> {
      const r = await h.call(args);
      log.add(`${header(args)} → ${r.isError ? `error ${r.code}` : "ok"}`, r.text);
      return r;
    },
    /** Compares the transcript with transcripts/debug-scenarios/<name>.txt (beside the running test file). */
    expect: (name: string) => log.expect(`transcripts/debug-scenarios/${name}.txt`, DEBUG_MASKS),
  };
}

export function debugScenarios(placement: Placement): void {
  let fx: Fixture;
  let h: DebugHarness;

  beforeAll(async () => {
    fx = await startFixture();
    h = await openHarness(fx, `dbg-${placement}`, placement);
    await h.tool("write", { path: "py/pyproject.toml", content: '[project]\nname = "prog"\n' });
    await h.tool("write", { path: "py/prog.py", content: PY_PROG });
    await h.tool("write", { path: "py/attachme.py", content: ATTACH_PROG });
    await h.tool("write", { path: "py/recurse.py", content: RECURSE });
    await h.tool("write", { path: "c/CMakeLists.txt", content: "cmake_minimum_required(VERSION 3.10)\nproject(prog C)\nadd_executable(prog prog.c)\n" });
    await h.tool("write", { path: "c/prog.c", content: C_PROG });
    await h.tool("exec", { command: "gcc -g -O0 -o c/prog c/prog.c" });
    await h.tool("write", { path: "c/loop.c", content: LOOP_C });
    await h.tool("exec", { command: "gcc -g -O0 -o c/loop c/loop.c" });
    await h.tool("write", { path: "go/go.mod", content: "module example.com/prog\n\ngo 1.19\n" });
    await h.tool("write", { path: "go/main.go", content: GO_PROG });
    await h.tool("write", { path: "dart/pubspec.yaml", content: "name: app\n" });
    await h.tool("write", { path: "py/boom.py", content: BOOM_PY });
    await h.tool("write", { path: "py/readin.py", content: READ_PY });
    await h.tool("write", { path: "c/readin.c", content: READ_C });
    await h.tool("exec", { command: "gcc -g -O0 -o c/readin c/readin.c" });
    // A C project whose only marker is its Makefile.
    await h.tool("write", { path: "mk/Makefile", content: "twice: twice.c\n\tgcc -g -O0 -o twice twice.c\n" });
    await h.tool("write", { path: "mk/twice.c", content: MAKE_C });
    await h.tool("exec", { command: "make -C mk" });
  });
  afterAll(async () => fx?.close());

  describe(`debug on ${placement} placement`, () => {
    it("lists every adapter and explains Dart's missing binary", async () => {
      const t = recorded(h);
      // What each adapter is for comes from the agent, which owns the adapters.
      await t.ok({ op: "adapters" });
      // The control plane keeps no copy of the ids: the agent refuses an unknown one, naming its own.
      const unknown = await t.call({ op: "launch", program: "py/prog.py", adapter: "gdb" });
      expect(unknown.code).toBe("invalid_arguments");
      const noAttach = await t.call({ op: "attach", port: 9, adapter: "lldb" });
      expect(noAttach.code).toBe("invalid_arguments");
      await t.expect("adapters");
    });

    it("debugs a Python program: breakpoint, stack, scopes, variables, evaluate, steps, exit, output", async () => {
      const t = recorded(h);
      await t.ok({ op: "breakpoints", file: "py/prog.py", lines: [12] });
      await t.ok({ op: "launch", program: "py/prog.py" });
      await t.ok({ op: "status" });

      const stack = await t.ok({ op: "stack" });
      const frameId = Number(/^#0 .*frame_id (\d+)/m.exec(stack)?.[1]);
      const scopes = await t.ok({ op: "scopes", frame_id: frameId });
      const locals = Number(/^Locals: reference (\d+)/m.exec(scopes)?.[1]);
      expect(locals).toBeGreaterThan(0);
      const vars = await t.ok({ op: "variables", reference: locals });
      const itemsRef = Number(/^items \(list\) = .*\[reference (\d+)\]$/m.exec(vars)?.[1]);
      const items = await t.ok({ op: "variables", reference: itemsRef });
      expect(items.split("\n").filter((l) => / = /.test(l))).toHaveLength(50);

      await t.ok({ op: "evaluate", expression: "len(long_value) + len(items)", frame_id: frameId });
      const moduleFrame = Number(/^#1 .*frame_id (\d+)/m.exec(stack)?.[1]);
      // Python's own NameError, in whatever words this debugpy gives it.
      const outer = await h.call({ op: "evaluate", expression: "long_value", frame_id: moduleFrame });
      expect(outer.text).toMatch(/NameError|not defined/);

      await t.ok({ op: "step_in" });
      const stale = await t.call({ op: "variables", reference: locals });
      expect(stale.isError).toBe(true);
      await t.ok({ op: "evaluate", expression: "n * 3" });
      await t.ok({ op: "step_over" });
      await t.ok({ op: "step_out" });
      await t.ok({ op: "threads" });

      await t.ok({ op: "continue" });
      // The program's own output.
      const out = await h.ok({ op: "output" });
      expect(out).toMatch(/hello from debuggee/);
      expect(out).toMatch(/to stderr/);
      expect(out).toMatch(/result 42/);
      expect(out).toMatch(/done/);
      const after = await t.call({ op: "stack" });
      expect(after.isError).toBe(true);
      // Cleared, so the next scenarios' answers do not depend on this one having run.
      await t.ok({ op: "breakpoints", file: "py/prog.py", lines: [] });
      await t.expect("python");
    });

    it("stops on an uncaught exception where it is raised, and shows its type, message and the program's own frames", async () => {
      const t = recorded(h);
      const launched = await t.ok({ op: "launch", program: "py/boom.py" });
      expect(launched).not.toMatch(/runpy|launcher|pydevd/);
      await t.ok({ op: "stack" });
      await t.ok({ op: "evaluate", expression: "v" });
      await t.ok({ op: "continue" });
      // exceptions: raised stops at the first raise, one the program catches itself.
      await t.ok({ op: "launch", program: "py/boom.py", exceptions: "raised" });
      await t.ok({ op: "terminate" });
      await t.expect("exceptions");
    });

    it("feeds stdin text given at launch; without it a read gets end-of-file at once, never a silent wait", async () => {
      const t = recorded(h);
      // lldb runs its program on a terminal nobody types into: without stdin it must not wait there.
      await t.ok({ op: "launch", program: "c/readin" });
      expect(await h.ok({ op: "output" })).toMatch(/before\neof\n/);
      await t.ok({ op: "launch", program: "c/readin", stdin: "hello stdin\n" });
      expect(await h.ok({ op: "output" })).toMatch(/got:hello stdin\n/);
      await t.ok({ op: "launch", program: "py/readin.py", stdin: "line one\nline two\n" });
      expect(await h.ok({ op: "output" })).toMatch(/before\ngot:'line one\\n'\nrest:'line two\\n'/);
      await t.ok({ op: "launch", program: "py/readin.py" });
      expect(await h.ok({ op: "output" })).toMatch(/got:''/);
      await t.expect("stdin");
    });

    it("debugs a C project whose only root marker is a Makefile", async () => {
      const t = recorded(h);
      expect(await h.ok({ op: "adapters" })).toContain("mk/Makefile");
      await t.ok({ op: "breakpoints", file: "mk/twice.c", lines: [3] });
      await t.ok({ op: "launch", program: "mk/twice" });
      await t.ok({ op: "evaluate", expression: "x" });
      await t.ok({ op: "continue" });
      await t.ok({ op: "breakpoints", file: "mk/twice.c", lines: [] });
      await t.expect("makefile");
    });

    it("is an exec-tier tool, absent from plan surfaces", async () => {
      const { tools } = await fx.client.listTools(h.runId);
      const debug = tools.find((t) => t.name === "debug");
      expect(debug?.tier).toBe("exec");
      expect(debug?.parallelSafe).toBe(false);
      const plan = await fx.client.openRun(`dbg-${placement}`, { approvalPolicy: "never", surface: "plan", resources: ["workspace", "debug"] });
      expect((await fx.client.listTools(plan.id)).tools.map((t) => t.name)).not.toContain("debug");
      expect((await fx.client.callTool(plan.id, "debug", { op: "status" })).errorCode).toBe("unknown_tool");
    });

    it("caps the stack at 30 frames and says how many there are", async () => {
      const t = recorded(h);
      await t.ok({ op: "breakpoints", file: "py/recurse.py", lines: [3] });
      await t.ok({ op: "launch", program: "py/recurse.py" });
      const stack = await t.ok({ op: "stack" });
      expect(stack.split("\n").filter((l) => l.startsWith("#"))).toHaveLength(30);
      await t.ok({ op: "terminate" });
      await t.ok({ op: "breakpoints", file: "py/recurse.py", lines: [] });
      await t.expect("stack-cap");
    });

    it("serializes calls on one conversation: concurrent steps never race", async () => {
      const t = recorded(h);
      await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [12] });
      await h.ok({ op: "launch", program: "py/prog.py" });
      // Unserialized, the second step would find the program running and fail.
      const results = await Promise.all([h.call({ op: "step_in" }), h.call({ op: "step_over" }), h.call({ op: "step_over" }), h.call({ op: "stack" })]);
      for (const r of results) expect(r.isError, r.text).toBe(false);
      await t.ok({ op: "status" });
      await h.ok({ op: "terminate" });
      await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [] });
      await t.expect("serialized");
    });

    it("refuses a second launch, naming the running session", async () => {
      const t = recorded(h);
      await t.ok({ op: "breakpoints", file: "py/prog.py", lines: [4] });
      const first = await t.ok({ op: "launch", program: "py/prog.py" });
      const id = /session (s-[0-9a-f]+)/.exec(first)?.[1] ?? "";
      expect(id).not.toBe("");
      const second = await t.call({ op: "launch", program: "py/prog.py" });
      expect(second.isError).toBe(true);
      expect(second.code).toBe("already_exists");
      // The refusal and the status name this session, not merely some session (the id mask hides which).
      expect(second.text).toContain(id);
      expect(await t.ok({ op: "status" })).toContain(id);
      await t.ok({ op: "terminate" });
      await t.ok({ op: "breakpoints", file: "py/prog.py", lines: [] });
      await t.expect("second-launch");
    });

    it("debugs a C program built with gcc -g under lldb-vscode-15", async () => {
      const t = recorded(h);
      await t.ok({ op: "breakpoints", file: "c/prog.c", lines: [3] });
      await t.ok({ op: "launch", program: "c/prog" });
      await t.ok({ op: "evaluate", expression: "x" });
      // The C runtime's frames below main are named from glibc's debug symbols where they are
      // installed (the host) and as lldb's unnamed symbols where not (the image): only the program's.
      const stack = await t.ok({ op: "stack" }, (text) =>
        text
          .split("\n")
          .filter((l) => !l.startsWith("#") || / at c\/prog\.c:/.test(l))
          .join("\n"),
      );
      const frameId = Number(/^#1 .*frame_id (\d+)/m.exec(stack)?.[1]);
      await t.ok({ op: "evaluate", expression: "a", frame_id: frameId });
      await t.ok({ op: "step_over" });
      await t.ok({ op: "continue" });
      expect(await h.ok({ op: "output" })).toMatch(/hello from c\nb=49\n/);
      await t.ok({ op: "breakpoints", file: "c/prog.c", lines: [] });
      // Without breakpoints it runs to its end within the launch.
      await t.ok({ op: "launch", program: "c/prog" });
      expect(await h.ok({ op: "output" })).toMatch(/b=49/);
      await t.expect("lldb");
    });

    it("debugs a Go program under delve (DAP over loopback TCP, output from dlv's stdio)", async () => {
      const t = recorded(h);
      await t.ok({ op: "breakpoints", file: "go/main.go", lines: [9] });
      await t.ok({ op: "launch", program: "go" });
      const stack = await t.ok({ op: "stack" });
      const frameId = Number(/^#0 .*frame_id (\d+)/m.exec(stack)?.[1]);
      const scopes = await t.ok({ op: "scopes", frame_id: frameId });
      const locals = Number(/^Locals: reference (\d+)/m.exec(scopes)?.[1]);
      await t.ok({ op: "variables", reference: locals });
      await t.ok({ op: "evaluate", expression: "a+b" });
      await t.ok({ op: "continue" });
      const out = await h.ok({ op: "output" });
      expect(out).toMatch(/hello from go/);
      expect(out).toMatch(/go stderr/);
      expect(out).toMatch(/r = 42/);
      // delve's binary is removed with the session, and its loopback port closes.
      expect(await h.tool("list", { path: "go" })).not.toMatch(/__debug_bin/);
      if (placement === "enclosure") {
        const listening = await h.tool("exec", { command: "cat /proc/net/tcp /proc/net/tcp6 | awk 'NR>1 && $4==\"0A\"' | wc -l" });
        expect(listening.split("\n")[0]?.trim()).toBe("0");
      }
      await t.ok({ op: "breakpoints", file: "go/main.go", lines: [] });
      await t.expect("delve");
    });

    it("attaches to a debugpy listening in the same placement", async () => {
      const t = recorded(h);
      const port = placement === "host" ? await freePort() : 5678;
      // setsid: out of the exec tool's process group, which is reaped when the command ends.
      await h.tool("exec", {
        command: `setsid nohup /usr/bin/python3 -m debugpy --listen 127.0.0.1:${port} --wait-for-client py/attachme.py >/dev/null 2>&1 < /dev/null & sleep 1`,
      });
      await t.ok({ op: "breakpoints", file: "py/attachme.py", lines: [3] });
      let attached = await h.call({ op: "attach", port });
      for (let i = 0; i < 40 && attached.isError && attached.code === "failed_precondition"; i++) {
        await new Promise((r) => setTimeout(r, 500));
        attached = await h.call({ op: "attach", port });
      }
      expect(attached.isError, attached.text).toBe(false);
      t.log.add("debug attach", attached.text);
      await t.ok({ op: "evaluate", expression: "i >= 0" });
      // Without breakpoints it runs on; pause stops it where it is.
      await t.ok({ op: "breakpoints", file: "py/attachme.py", lines: [] });
      await t.ok({ op: "continue", wait_seconds: 1 });
      await t.ok({ op: "status" });
      // Where the pause lands (in the loop or in its sleep) is the program's timing.
      await t.ok({ op: "pause" }, (text) => text.replace(/py\/attachme\.py:\d+ in \S+/g, "py/attachme.py:<line> in <where>"));
      await t.ok({ op: "terminate" });
      await t.expect("attach-debugpy");
    });

    // Host placement: the sandbox's own user may trace its programs. In an enclosure that depends on
    // the runtime's ptrace policy, which this scenario does not set.
    it.skipIf(placement !== "host")("attaches lldb to a running C program by pid", async () => {
      const t = recorded(h);
      // setsid: out of the exec tool's process group, which is reaped when the command ends.
      const started = await h.tool("exec", { command: "setsid nohup c/loop >/dev/null 2>&1 < /dev/null & echo pid=$!; sleep 1" });
      const pid = Number(/pid=(\d+)/.exec(started)?.[1]);
      expect(pid).toBeGreaterThan(1);
      await t.ok({ op: "breakpoints", file: "c/loop.c", lines: [3] });
      const wrong = await t.call({ op: "attach", pid, adapter: "debugpy" });
      expect(wrong.code).toBe("invalid_arguments");
      const attached = await t.call({ op: "attach", pid });
      expect(attached.isError, attached.text).toBe(false);
      // The session names the very process attached to (the pid mask hides which).
      expect(attached.text).toContain(`pid ${pid}`);
      await t.ok({ op: "evaluate", expression: "n >= 0" });
      await t.ok({ op: "breakpoints", file: "c/loop.c", lines: [] });
      await t.ok({ op: "terminate" });
      let left = "";
      for (let i = 0; i < 20; i++) {
        left = await h.tool("exec", { command: `kill -0 ${pid} 2>/dev/null && echo alive || echo gone` });
        if (/gone/.test(left)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(left).toMatch(/gone/);
      await t.expect("attach-lldb");
    });

    it("attaches to a headless delve listening in the same placement", async () => {
      const t = recorded(h);
      const port = placement === "host" ? await freePort() : 5679;
      await h.tool("exec", {
        command: `cd go && setsid nohup dlv debug --headless --listen 127.0.0.1:${port} --api-version 2 --accept-multiclient >/dev/null 2>&1 < /dev/null & sleep 1`,
      });
      await t.ok({ op: "breakpoints", file: "go/main.go", lines: [9] });
      let attached = await h.call({ op: "attach", port, adapter: "delve" });
      for (let i = 0; i < 120 && attached.isError && attached.code === "failed_precondition"; i++) {
        await new Promise((r) => setTimeout(r, 500));
        attached = await h.call({ op: "attach", port, adapter: "delve" });
      }
      expect(attached.isError, attached.text).toBe(false);
      t.log.add("debug attach delve", attached.text);
      await t.ok({ op: "evaluate", expression: "a+b" });
      await t.ok({ op: "terminate" });
      await t.ok({ op: "breakpoints", file: "go/main.go", lines: [] });
      // terminate ends the debuggee and the headless server with it.
      let left = "";
      for (let i = 0; i < 20; i++) {
        left = await h.tool("exec", { command: `pgrep -f "dlv [d]ebug --headless --listen 127.0.0.1:${port}" || echo none` });
        if (/none/.test(left)) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(left).toMatch(/none/);
      await t.expect("attach-delve");
    });

    it("prefers the project's .venv python over the one on PATH", async () => {
      const v = await openHarness(fx, `venv-${placement}`, placement);
      const t = recorded(v);
      await v.tool("write", { path: "pyproject.toml", content: '[project]\nname = "v"\n' });
      await v.tool("write", { path: "whoami.py", content: WHOAMI });
      // A venv that cannot load debugpy is not silently replaced by the PATH python. `adapters` names
      // it without running it (a project's interpreter runs only for a launch), so the launch says why.
      await v.tool("exec", { command: "/usr/bin/python3 -m venv --without-pip .venv" });
      await t.ok({ op: "adapters" });
      const refused = await t.call({ op: "launch", program: "whoami.py" });
      expect(refused.code).toBe("failed_precondition");
      // --system-site-packages: the venv sees Debian's debugpy, and stays its own environment.
      await v.tool("exec", { command: "rm -rf .venv && /usr/bin/python3 -m venv --without-pip --system-site-packages .venv" });
      await t.ok({ op: "adapters" });
      await t.ok({ op: "breakpoints", file: "whoami.py", lines: [3] });
      await t.ok({ op: "launch", program: "whoami.py" });
      await t.ok({ op: "evaluate", expression: "sys.prefix" });
      await t.ok({ op: "continue" });
      expect(await v.ok({ op: "output" })).toMatch(/^prefix=\S*\/\.venv$/m);
      await t.expect("venv");
    });

    it("eval and debug run the same project interpreter, and both refuse a broken one rather than run another", async () => {
      const v = await openHarness(fx, `samepy-${placement}`, placement);
      const kernelRun = (await fx.client.openRun(`samepy-${placement}`, { resources: ["kernel"], approvalPolicy: "never" })).id;
      const cell = (code: string) => fx.client.callTool(kernelRun, "eval", { description: "ask the kernel which python it runs", language: "python", code });
      await v.tool("exec", { command: "/usr/bin/python3 -m venv --without-pip --system-site-packages .venv" });
      // The program's own print of sys.prefix.
      const prefix = await cell("import sys; print(sys.prefix)");
      expect(resultText(prefix)).toMatch(/\/\.venv\s*$/);
      const same = recorded(v);
      await same.ok({ op: "adapters" });
      await same.expect("same-interpreter");

      const b = await openHarness(fx, `brokenpy-${placement}`, placement);
      const t = recorded(b);
      const brokenKernels = (await fx.client.openRun(`brokenpy-${placement}`, { resources: ["kernel"], approvalPolicy: "never" })).id;
      await b.tool("exec", { command: "mkdir -p .venv/bin && printf 'not a program' > .venv/bin/python" });
      const refusedCell = await fx.client.callTool(brokenKernels, "eval", {
        description: "ask the kernel which python it runs",
        language: "python",
        code: "print(1)",
      });
      expect(refusedCell.isError, resultText(refusedCell)).toBe(true);
      t.log.add(`eval print(1) → error ${refusedCell.errorCode}`, resultText(refusedCell));
      await t.call({ op: "adapters" });
      await t.expect("broken-interpreter");
    });

    it("a venv that already sees the system's packages is not told to be recreated with them", async () => {
      const v = await openHarness(fx, `venv2-${placement}`, placement);
      const t = recorded(v);
      await v.tool("write", { path: "pyproject.toml", content: '[project]\nname = "v"\n' });
      await v.tool("write", { path: "whoami.py", content: WHOAMI });
      // It sees Debian's debugpy, but a package of its own shadows one debugpy needs.
      await v.tool("exec", {
        command:
          "/usr/bin/python3 -m venv --without-pip --system-site-packages .venv && d=$(ls -d .venv/lib/python3*/site-packages) && echo 'raise ImportError(\"planted: a broken bytecode\")' > $d/bytecode.py",
      });
      const refused = await t.call({ op: "launch", program: "whoami.py" });
      expect(refused.code).toBe("failed_precondition");
      await t.expect("venv-system-site-packages");
    });

    it("validates arguments and explains a missing session", async () => {
      const bad = await h.call({ op: "variables" });
      expect(bad.code).toBe("invalid_arguments");
      const unknown = await h.call({ op: "launch", program: "py/nope.py" });
      expect(unknown.code).toBe("not_found");
      const outside = await h.call({ op: "launch", program: "../etc/passwd" });
      expect(outside.code).toBe("outside_workspace");
      const noMarker = await h.call({ op: "breakpoints", file: "nope.c", lines: [1] });
      expect(noMarker.code).toBe("not_found");
    });
  });

  describe(`debug session TTL on ${placement} placement`, () => {
    let tfx: Fixture;
    let h2: DebugHarness;
    beforeAll(async () => {
      tfx = await withEnv("ENCLAVE_DEBUG_TTL_SECONDS", String(TTL_SECONDS), () => startFixture());
      h2 = await openHarness(tfx, `ttl-${placement}`, placement);
      await h2.tool("write", { path: "pyproject.toml", content: '[project]\nname = "t"\n' });
      await h2.tool("write", { path: "prog.py", content: PY_PROG });
    });
    afterAll(async () => tfx?.close());

    it("terminates the session at its hard TTL, and the next call says why", async () => {
      const t = recorded(h2);
      await t.ok({ op: "breakpoints", file: "prog.py", lines: [12] });
      await t.ok({ op: "launch", program: "prog.py" });
      // Poll (bounded) rather than sleep a fixed time: a loaded machine launches slowly. Until the TTL
      // the program waits at its breakpoint, so its stack is there.
      let next = await h2.call({ op: "stack" });
      for (let i = 0; i < 60 && !next.isError; i++) {
        await new Promise((r) => setTimeout(r, 500));
        next = await h2.call({ op: "stack" });
      }
      expect(next.isError).toBe(true);
      t.log.add(`debug {"op":"stack"} once the TTL has passed → error ${next.code}`, next.text);
      await t.ok({ op: "status" });
      // The expired session does not block a new one.
      const again = await t.call({ op: "launch", program: "prog.py" });
      expect(again.isError, again.text).toBe(false);
      await h2.call({ op: "terminate" });
      await t.expect("ttl");
    });
  });
}
