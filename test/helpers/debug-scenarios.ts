// The debug tool's integration scenarios on real adapters (debugpy, lldb-vscode-15, delve), run
// once on host placement and once in an enclosure by debug-host.test.ts and debug-enclosure.test.ts.
// Files are written and programs built through the tools, so they belong to the placement's user.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "./control-plane-fixture.js";

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

export function debugScenarios(placement: Placement): void {
  let fx: Fixture;
  let h: DebugHarness;

  beforeAll(async () => {
    fx = await startFixture();
    h = await openHarness(fx, `dbg-${placement}`, placement);
    await h.tool("write", { path: "py/pyproject.toml", content: "[project]\nname = \"prog\"\n" });
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
      const text = await h.ok({ op: "adapters" });
      expect(text).toMatch(/^debugpy: usable \[markers: py\/pyproject\.toml\]/m);
      expect(text).toMatch(/^lldb: usable \[markers: c\/CMakeLists\.txt, mk\/Makefile\]/m);
      expect(text).toMatch(/lldb-vscode-15/);
      expect(text).toMatch(/^delve: usable \[markers: go\/go\.mod\]/m);
      expect(text).toMatch(/^dart: missing binary \[markers: dart\/pubspec\.yaml\]\n\s+root marker dart\/pubspec\.yaml found, but `dart` is not on PATH here; install the Dart SDK/m);
      expect(text).toMatch(/interpreter: \S*python3/);
      // What each adapter is for comes from the agent, which owns the adapters.
      expect(text).toMatch(/^debugpy: [\s\S]*?\n\s+launch picks it for \.py; attach by port$/m);
      expect(text).toMatch(/^delve: [\s\S]*?\n\s+launch picks it for \.go; attach by port$/m);
      expect(text).not.toMatch(/^lldb: [^\n]*\n[^\n]*\n\s+[^\n]*attach by port/m);
      // The control plane keeps no copy of the ids: the agent refuses an unknown one, naming its own.
      const unknown = await h.call({ op: "launch", program: "py/prog.py", adapter: "gdb" });
      expect(unknown.code).toBe("invalid_arguments");
      expect(unknown.text).toMatch(/unknown adapter `gdb`; one of dart, debugpy, lldb, delve/);
      const noAttach = await h.call({ op: "attach", port: 9, adapter: "lldb" });
      expect(noAttach.code).toBe("invalid_arguments");
      expect(noAttach.text).toMatch(/lldb attaches by `pid`, not `port`/);
    });

    it("debugs a Python program: breakpoint, stack, scopes, variables, evaluate, steps, exit, output", async () => {
      const bp = await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [12] });
      expect(bp).toMatch(/applied at the next launch or attach/);
      const launched = await h.ok({ op: "launch", program: "py/prog.py" });
      expect(launched).toMatch(/stopped at py\/prog\.py:12 in main \(breakpoint\)/);
      expect(launched).toMatch(/py\/prog\.py: 12 \(verified\)/);
      expect(await h.ok({ op: "status" })).toMatch(/stopped at py\/prog\.py:12/);

      const stack = await h.ok({ op: "stack" });
      expect(stack).toMatch(/^#0 main at py\/prog\.py:12 {2}\(frame_id (\d+)\)/m);
      expect(stack).toMatch(/^#1 <module> at py\/prog\.py:16/m);
      const frameId = Number(/^#0 .*frame_id (\d+)/m.exec(stack)?.[1]);
      const scopes = await h.ok({ op: "scopes", frame_id: frameId });
      const locals = Number(/^Locals: reference (\d+)/m.exec(scopes)?.[1]);
      expect(locals).toBeGreaterThan(0);
      const vars = await h.ok({ op: "variables", reference: locals });
      expect(vars).toMatch(/^long_value \(str\) = 'x{399}… \[cut at 400 of 1002 characters\]$/m);
      const itemsRef = Number(/^items \(list\) = .*\[reference (\d+)\]$/m.exec(vars)?.[1]);
      const items = await h.ok({ op: "variables", reference: itemsRef });
      expect(items.split("\n").filter((l) => / = /.test(l))).toHaveLength(50);
      expect(items).toMatch(/more not shown: capped at 50 children/);

      expect(await h.ok({ op: "evaluate", expression: "len(long_value) + len(items)", frame_id: frameId })).toMatch(/^1100 \(int\)/);
      const moduleFrame = Number(/^#1 .*frame_id (\d+)/m.exec(stack)?.[1]);
      const outer = await h.call({ op: "evaluate", expression: "long_value", frame_id: moduleFrame });
      expect(outer.text).toMatch(/NameError|not defined/);

      const stepIn = await h.ok({ op: "step_in" });
      expect(stepIn).toMatch(/stopped at py\/prog\.py:4 in helper \(step\)/);
      const stale = await h.call({ op: "variables", reference: locals });
      expect(stale.isError).toBe(true);
      expect(stale.text).toMatch(/before the program last resumed/);
      expect(await h.ok({ op: "evaluate", expression: "n * 3" })).toMatch(/^63/);
      expect(await h.ok({ op: "step_over" })).toMatch(/stopped at py\/prog\.py:5 in helper/);
      expect(await h.ok({ op: "step_out" })).toMatch(/stopped at py\/prog\.py:1[23] in main/);
      expect(await h.ok({ op: "threads" })).toMatch(/^thread \d+: MainThread/m);

      const done = await h.ok({ op: "continue" });
      expect(done).toMatch(/has ended: the program exited with code 0/);
      const out = await h.ok({ op: "output" });
      expect(out).toMatch(/hello from debuggee/);
      expect(out).toMatch(/to stderr/);
      expect(out).toMatch(/result 42/);
      expect(out).toMatch(/done/);
      const after = await h.call({ op: "stack" });
      expect(after.isError).toBe(true);
      expect(after.text).toMatch(/no debug session is running: the last one .* ended: the program exited with code 0/);
    });

    it("stops on an uncaught exception where it is raised, and shows its type, message and the program's own frames", async () => {
      const launched = await h.ok({ op: "launch", program: "py/boom.py" });
      expect(launched).toMatch(
        /is stopped on an uncaught exception at py\/boom\.py:8 in check, thread \d+\nexception ValueError: negative: -3\ntraceback \(the program's frames, innermost first\):\n {2}py\/boom\.py:8 in check\n {2}py\/boom\.py:16 in main\n {2}py\/boom\.py:18 in <module>\n/,
      );
      expect(launched).not.toMatch(/runpy|launcher|pydevd/);
      const stack = await h.ok({ op: "stack" });
      expect(stack).toMatch(/^exception ValueError: negative: -3$/m);
      expect(stack).toMatch(/^#0 check at py\/boom\.py:8 /m);
      expect(await h.ok({ op: "evaluate", expression: "v" })).toMatch(/^-3/);
      expect(await h.ok({ op: "continue" })).toMatch(/has ended: the program exited with code 1/);
      // exceptions: raised stops at the first raise, one the program catches itself.
      const raised = await h.ok({ op: "launch", program: "py/boom.py", exceptions: "raised" });
      expect(raised).toMatch(/is stopped on a raised exception at py\/boom\.py:4 in parse, thread \d+\nexception JSONDecodeError: Expecting property name/);
      await h.ok({ op: "terminate" });
    });

    it("feeds stdin text given at launch; without it a read gets end-of-file at once, never a silent wait", async () => {
      // lldb runs its program on a terminal nobody types into: without stdin it must not wait there.
      const eof = await h.ok({ op: "launch", program: "c/readin" });
      expect(eof).toMatch(/has ended: the program exited with code 0/);
      expect(eof).toMatch(/note: stdin is not connected: a read gets end-of-file at once/);
      expect(await h.ok({ op: "output" })).toMatch(/before\neof\n/);
      expect(await h.ok({ op: "launch", program: "c/readin", stdin: "hello stdin\n" })).toMatch(/has ended: the program exited with code 0/);
      expect(await h.ok({ op: "output" })).toMatch(/got:hello stdin\n/);
      const given = await h.ok({ op: "launch", program: "py/readin.py", stdin: "line one\nline two\n" });
      expect(given).toMatch(/has ended: the program exited with code 0/);
      expect(given).toMatch(/note: stdin: the 18 bytes given at launch, then end-of-file/);
      expect(await h.ok({ op: "output" })).toMatch(/before\ngot:'line one\\n'\nrest:'line two\\n'/);
      const none = await h.ok({ op: "launch", program: "py/readin.py" });
      expect(none).toMatch(/has ended: the program exited with code 0/);
      expect(none).toMatch(/note: stdin is not connected: a read gets end-of-file at once/);
      expect(await h.ok({ op: "output" })).toMatch(/got:''/);
    });

    it("debugs a C project whose only root marker is a Makefile", async () => {
      const adapters = await h.ok({ op: "adapters" });
      expect(adapters).toMatch(/^lldb: usable \[markers: .*mk\/Makefile/m);
      await h.ok({ op: "breakpoints", file: "mk/twice.c", lines: [3] });
      expect(await h.ok({ op: "launch", program: "mk/twice" })).toMatch(/\(lldb, mk\/twice\) is stopped at mk\/twice\.c:3 in twice \(breakpoint/);
      expect(await h.ok({ op: "evaluate", expression: "x" })).toMatch(/^21/);
      expect(await h.ok({ op: "continue" })).toMatch(/has ended: the program exited with code 0/);
      await h.ok({ op: "breakpoints", file: "mk/twice.c", lines: [] });
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
      await h.ok({ op: "breakpoints", file: "py/recurse.py", lines: [3] });
      expect(await h.ok({ op: "launch", program: "py/recurse.py" })).toMatch(/stopped at py\/recurse\.py:3 in down/);
      const stack = await h.ok({ op: "stack" });
      expect(stack.split("\n").filter((l) => l.startsWith("#"))).toHaveLength(30);
      expect(stack).toMatch(/\[showing 30 frames of 42: capped at 30\]/);
      await h.ok({ op: "terminate" });
      await h.ok({ op: "breakpoints", file: "py/recurse.py", lines: [] });
    });

    it("serializes calls on one conversation: concurrent steps never race", async () => {
      await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [12] });
      await h.ok({ op: "launch", program: "py/prog.py" });
      // Unserialized, the second step would find the program running and fail.
      const results = await Promise.all([
        h.call({ op: "step_in" }),
        h.call({ op: "step_over" }),
        h.call({ op: "step_over" }),
        h.call({ op: "stack" }),
      ]);
      for (const r of results) expect(r.isError, r.text).toBe(false);
      expect(await h.ok({ op: "status" })).toMatch(/is stopped at py\/prog\.py:\d+/);
      await h.ok({ op: "terminate" });
      await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [] });
    });

    it("refuses a second launch, naming the running session", async () => {
      await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [4] });
      const first = await h.ok({ op: "launch", program: "py/prog.py" });
      const id = /session (s-[0-9a-f]+)/.exec(first)?.[1] ?? "";
      expect(id).not.toBe("");
      const second = await h.call({ op: "launch", program: "py/prog.py" });
      expect(second.isError).toBe(true);
      expect(second.code).toBe("already_exists");
      expect(second.text).toContain(`already running for this conversation: ${id} (debugpy, py/prog.py, stopped at py/prog.py:4`);
      expect(await h.ok({ op: "status" })).toContain(`session ${id}`);
      expect(await h.ok({ op: "terminate" })).toMatch(/has ended: terminated on request/);
      await h.ok({ op: "breakpoints", file: "py/prog.py", lines: [] });
    });

    it("debugs a C program built with gcc -g under lldb-vscode-15", async () => {
      await h.ok({ op: "breakpoints", file: "c/prog.c", lines: [3] });
      const launched = await h.ok({ op: "launch", program: "c/prog" });
      expect(launched).toMatch(/session s-\w+ \(lldb, c\/prog\) is stopped at c\/prog\.c:3 in square \(breakpoint/);
      expect(await h.ok({ op: "evaluate", expression: "x" })).toMatch(/^7/);
      const stack = await h.ok({ op: "stack" });
      expect(stack).toMatch(/^#1 main at c\/prog\.c:10/m);
      const frameId = Number(/^#1 .*frame_id (\d+)/m.exec(stack)?.[1]);
      expect(await h.ok({ op: "evaluate", expression: "a", frame_id: frameId })).toMatch(/^7/);
      expect(await h.ok({ op: "step_over" })).toMatch(/stopped at c\/prog\.c:4 in square/);
      const done = await h.ok({ op: "continue" });
      expect(done).toMatch(/has ended: the program exited with code 0/);
      const out = await h.ok({ op: "output" });
      expect(out).toMatch(/hello from c\nb=49\n/);
      await h.ok({ op: "breakpoints", file: "c/prog.c", lines: [] });
      // Without breakpoints it runs to its end within the launch.
      expect(await h.ok({ op: "launch", program: "c/prog" })).toMatch(/has ended: the program exited with code 0/);
      expect(await h.ok({ op: "output" })).toMatch(/b=49/);
    });

    it("debugs a Go program under delve (DAP over loopback TCP, output from dlv's stdio)", async () => {
      await h.ok({ op: "breakpoints", file: "go/main.go", lines: [9] });
      const launched = await h.ok({ op: "launch", program: "go" });
      expect(launched).toMatch(/session s-\w+ \(delve, go\) is stopped at go\/main\.go:9 in main\.add \(breakpoint\)/);
      const stack = await h.ok({ op: "stack" });
      const frameId = Number(/^#0 .*frame_id (\d+)/m.exec(stack)?.[1]);
      const scopes = await h.ok({ op: "scopes", frame_id: frameId });
      const locals = Number(/^Locals: reference (\d+)/m.exec(scopes)?.[1]);
      const vars = await h.ok({ op: "variables", reference: locals });
      expect(vars).toMatch(/^a \(int\) = 40$/m);
      expect(await h.ok({ op: "evaluate", expression: "a+b" })).toMatch(/^42/);
      const done = await h.ok({ op: "continue" });
      expect(done).toMatch(/has ended: the program exited with code 0/);
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
      await h.ok({ op: "breakpoints", file: "go/main.go", lines: [] });
    });

    it("attaches to a debugpy listening in the same placement", async () => {
      const port = placement === "host" ? await freePort() : 5678;
      // setsid: out of the exec tool's process group, which is reaped when the command ends.
      await h.tool("exec", {
        command: `setsid nohup /usr/bin/python3 -m debugpy --listen 127.0.0.1:${port} --wait-for-client py/attachme.py >/dev/null 2>&1 < /dev/null & sleep 1`,
      });
      await h.ok({ op: "breakpoints", file: "py/attachme.py", lines: [3] });
      let attached = await h.call({ op: "attach", port });
      for (let i = 0; i < 40 && attached.isError && /nothing listens/.test(attached.text); i++) {
        await new Promise((r) => setTimeout(r, 500));
        attached = await h.call({ op: "attach", port });
      }
      expect(attached.isError, attached.text).toBe(false);
      expect(attached.text).toMatch(/\(debugpy, 127\.0\.0\.1:\d+\) is stopped at py\/attachme\.py:3 in <module> \(breakpoint\)/);
      expect(await h.ok({ op: "evaluate", expression: "i >= 0" })).toMatch(/^True/);
      // Without breakpoints it runs on; pause stops it where it is.
      expect(await h.ok({ op: "breakpoints", file: "py/attachme.py", lines: [] })).toMatch(/cleared/);
      expect(await h.ok({ op: "continue", wait_seconds: 1 })).toMatch(/is running/);
      expect(await h.ok({ op: "status" })).toMatch(/is running/);
      expect(await h.ok({ op: "pause" })).toMatch(/is stopped at .*py\/attachme\.py:\d+ .*\(pause\)/);
      expect(await h.ok({ op: "terminate" })).toMatch(/has ended: terminated on request/);
    });

    // Host placement: the sandbox's own user may trace its programs. In an enclosure that depends on
    // the runtime's ptrace policy, which this scenario does not set.
    it.skipIf(placement !== "host")("attaches lldb to a running C program by pid", async () => {
      // setsid: out of the exec tool's process group, which is reaped when the command ends.
      const started = await h.tool("exec", { command: "setsid nohup c/loop >/dev/null 2>&1 < /dev/null & echo pid=$!; sleep 1" });
      const pid = Number(/pid=(\d+)/.exec(started)?.[1]);
      expect(pid).toBeGreaterThan(1);
      await h.ok({ op: "breakpoints", file: "c/loop.c", lines: [3] });
      const wrong = await h.call({ op: "attach", pid, adapter: "debugpy" });
      expect(wrong.text).toMatch(/debugpy attaches by `port`.*lldb takes a pid/);
      const attached = await h.call({ op: "attach", pid });
      expect(attached.isError, attached.text).toBe(false);
      expect(attached.text).toMatch(new RegExp(`\\(lldb, pid ${pid}\\) is stopped at c/loop\\.c:3 in tick \\(breakpoint`));
      expect(await h.ok({ op: "evaluate", expression: "n >= 0" })).toMatch(/^true/);
      await h.ok({ op: "breakpoints", file: "c/loop.c", lines: [] });
      expect(await h.ok({ op: "terminate" })).toMatch(/has ended/);
      let left = "";
      for (let i = 0; i < 20; i++) {
        left = await h.tool("exec", { command: `kill -0 ${pid} 2>/dev/null && echo alive || echo gone` });
        if (/gone/.test(left)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(left).toMatch(/gone/);
    });

    it("attaches to a headless delve listening in the same placement", async () => {
      const port = placement === "host" ? await freePort() : 5679;
      await h.tool("exec", {
        command: `cd go && setsid nohup dlv debug --headless --listen 127.0.0.1:${port} --api-version 2 --accept-multiclient >/dev/null 2>&1 < /dev/null & sleep 1`,
      });
      await h.ok({ op: "breakpoints", file: "go/main.go", lines: [9] });
      let attached = await h.call({ op: "attach", port, adapter: "delve" });
      for (let i = 0; i < 120 && attached.isError && /nothing listens/.test(attached.text); i++) {
        await new Promise((r) => setTimeout(r, 500));
        attached = await h.call({ op: "attach", port, adapter: "delve" });
      }
      expect(attached.isError, attached.text).toBe(false);
      expect(attached.text).toMatch(/\(delve, 127\.0\.0\.1:\d+\) is stopped at go\/main\.go:9 in main\.add \(breakpoint\)/);
      expect(await h.ok({ op: "evaluate", expression: "a+b" })).toMatch(/^42/);
      expect(await h.ok({ op: "terminate" })).toMatch(/has ended: terminated on request/);
      await h.ok({ op: "breakpoints", file: "go/main.go", lines: [] });
      // terminate ends the debuggee and the headless server with it.
      let left = "";
      for (let i = 0; i < 20; i++) {
        left = await h.tool("exec", { command: `pgrep -f "dlv [d]ebug --headless --listen 127.0.0.1:${port}" || echo none` });
        if (/none/.test(left)) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(left).toMatch(/none/);
    });

    it("prefers the project's .venv python over the one on PATH", async () => {
      const v = await openHarness(fx, `venv-${placement}`, placement);
      await v.tool("write", { path: "pyproject.toml", content: "[project]\nname = \"v\"\n" });
      await v.tool("write", { path: "whoami.py", content: WHOAMI });
      // A venv that cannot load debugpy is not silently replaced by the PATH python. `adapters` names
      // it without running it (a project's interpreter runs only for a launch), so the launch says why.
      await v.tool("exec", { command: "/usr/bin/python3 -m venv --without-pip .venv" });
      const without = await v.ok({ op: "adapters" });
      expect(without).toMatch(/^debugpy: usable/m);
      expect(without).toMatch(/interpreter \S*\/\.venv\/bin\/python \(project virtual environment \(\S*\/\.venv\/bin\/python, project-local, not run to check it/);
      const refused = await v.call({ op: "launch", program: "whoami.py" });
      expect(refused.code).toBe("failed_precondition");
      expect(refused.text).toMatch(/debugpy adapter cannot start here: .*\.venv\/bin\/python has no debugpy .*No module named 'bytecode'.*--system-site-packages/);
      // --system-site-packages: the venv sees Debian's debugpy, and stays its own environment.
      await v.tool("exec", { command: "rm -rf .venv && /usr/bin/python3 -m venv --without-pip --system-site-packages .venv" });
      const adapters = await v.ok({ op: "adapters" });
      expect(adapters).toMatch(/^debugpy: usable/m);
      expect(adapters).toMatch(/interpreter: \S*\/\.venv\/bin\/python\n/);
      await v.ok({ op: "breakpoints", file: "whoami.py", lines: [3] });
      const launched = await v.ok({ op: "launch", program: "whoami.py" });
      expect(launched).toMatch(/stopped at whoami\.py:3/);
      expect(launched).toMatch(/interpreter: \S*\/\.venv\/bin\/python$/m);
      expect(await v.ok({ op: "evaluate", expression: "sys.prefix" })).toMatch(/\/\.venv'/);
      await v.ok({ op: "continue" });
      expect(await v.ok({ op: "output" })).toMatch(/^prefix=\S*\/\.venv$/m);
    });

    it("eval and debug run the same project interpreter, and both refuse a broken one rather than run another", async () => {
      const v = await openHarness(fx, `samepy-${placement}`, placement);
      const kernelRun = (await fx.client.openRun(`samepy-${placement}`, { resources: ["kernel"], approvalPolicy: "never" })).id;
      const cell = (code: string) => fx.client.callTool(kernelRun, "eval", { description: "ask the kernel which python it runs", language: "python", code });
      await v.tool("exec", { command: "/usr/bin/python3 -m venv --without-pip --system-site-packages .venv" });
      const prefix = await cell("import sys; print(sys.prefix)");
      expect(resultText(prefix)).toMatch(/\/\.venv\s*$/);
      expect(await v.ok({ op: "adapters" })).toMatch(/interpreter: \S*\/\.venv\/bin\/python\n/);

      const b = await openHarness(fx, `brokenpy-${placement}`, placement);
      const brokenKernels = (await fx.client.openRun(`brokenpy-${placement}`, { resources: ["kernel"], approvalPolicy: "never" })).id;
      await b.tool("exec", { command: "mkdir -p .venv/bin && printf 'not a program' > .venv/bin/python" });
      const refusedCell = await fx.client.callTool(brokenKernels, "eval", { description: "ask the kernel which python it runs", language: "python", code: "print(1)" });
      expect(refusedCell.isError, resultText(refusedCell)).toBe(true);
      expect(resultText(refusedCell)).toMatch(/\.venv\/bin\/python is not an executable file; recreate the environment/);
      const adapters = await b.call({ op: "adapters" });
      expect(adapters.text).toMatch(/\.venv\/bin\/python is not an executable file; recreate the environment/);
    });

    it("a venv that already sees the system's packages is not told to be recreated with them", async () => {
      const v = await openHarness(fx, `venv2-${placement}`, placement);
      await v.tool("write", { path: "pyproject.toml", content: "[project]\nname = \"v\"\n" });
      await v.tool("write", { path: "whoami.py", content: WHOAMI });
      // It sees Debian's debugpy, but a package of its own shadows one debugpy needs.
      await v.tool("exec", {
        command:
          "/usr/bin/python3 -m venv --without-pip --system-site-packages .venv && d=$(ls -d .venv/lib/python3*/site-packages) && echo 'raise ImportError(\"planted: a broken bytecode\")' > $d/bytecode.py",
      });
      const refused = await v.call({ op: "launch", program: "whoami.py" });
      expect(refused.code).toBe("failed_precondition");
      expect(refused.text).toMatch(/\.venv\/bin\/python has no debugpy .*planted: a broken bytecode/);
      expect(refused.text).toMatch(/it has no pip: `\S+\/\.venv\/bin\/python -m ensurepip && /);
      expect(refused.text).toMatch(/it already sees the system's site-packages/);
      expect(refused.text).not.toMatch(/recreate the environment with --system-site-packages/);
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
    let t: DebugHarness;
    beforeAll(async () => {
      tfx = await withEnv("ENCLAVE_DEBUG_TTL_SECONDS", String(TTL_SECONDS), () => startFixture());
      t = await openHarness(tfx, `ttl-${placement}`, placement);
      await t.tool("write", { path: "pyproject.toml", content: "[project]\nname = \"t\"\n" });
      await t.tool("write", { path: "prog.py", content: PY_PROG });
    });
    afterAll(async () => tfx?.close());

    it("terminates the session at its hard TTL, and the next call says why", async () => {
      await t.ok({ op: "breakpoints", file: "prog.py", lines: [12] });
      const launched = await t.ok({ op: "launch", program: "prog.py" });
      expect(launched).toMatch(/stopped at prog\.py:12/);
      expect(launched).toMatch(/expires in \d+ s \(hard TTL/);
      // Poll (bounded) rather than sleep a fixed time: a loaded machine launches slowly.
      let status = "";
      for (let i = 0; i < 60 && !/has ended/.test(status); i++) {
        await new Promise((r) => setTimeout(r, 500));
        status = await t.ok({ op: "status" });
      }
      expect(status).toMatch(new RegExp(`has ended: it reached its hard TTL of ${TTL_SECONDS} seconds`));
      const next = await t.call({ op: "stack" });
      expect(next.isError).toBe(true);
      expect(next.text).toMatch(new RegExp(`ended: it reached its hard TTL of ${TTL_SECONDS} seconds and was terminated`));
      // The expired session does not block a new one.
      const again = await t.call({ op: "launch", program: "prog.py" });
      expect(again.isError, again.text).toBe(false);
      await t.call({ op: "terminate" });
    });
  });
}
