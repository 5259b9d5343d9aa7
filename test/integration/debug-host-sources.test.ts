// The debug tool on host placement with code made outside the sandbox: a C program built on the host
// (its debug information records the workspace's host path, the sandbox sees /workspace) and one built
// inside, each a small nettle-examples-like project (objects in a subfolder, linked from several
// files), stop at their breakpoints through lldb.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type DebugHarness, openHarness } from "../helpers/debug-scenarios.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const IO_C = `#include <stdio.h>
#include "io.h"

int read_size(const char *arg) {
  int size = 0;
  for (const char *p = arg; *p; p++)
    size = size * 10 + (*p - '0');
  return size;
}

int write_key(const char *name, int size) {
  int written = size / 8;
  printf("key %s: %d bytes\\n", name, written);
  return written;
}
`;

const IO_H = `int read_size(const char *arg);
int write_key(const char *name, int size);
`;

const KEYGEN_C = `#include <string.h>
#include "io.h"

int main(int argc, char **argv) {
  int size = 512;
  const char *out = "key";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-s")) size = read_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-o")) out = argv[i + 1];
  }
  int n = write_key(out, size);
  return n > 0 ? 0 : 1;
}
`;

// Objects in their own folder, as nettle's examples keep io.o beside each program's object.
const MAKEFILE = `CFLAGS = -g -O0
keygen: obj/keygen.o obj/io.o
\tgcc $(CFLAGS) -o keygen obj/keygen.o obj/io.o
obj/%.o: %.c io.h
\tmkdir -p obj
\tgcc $(CFLAGS) -c $< -o $@
`;

const PROJECT: Record<string, string> = { "io.c": IO_C, "io.h": IO_H, "keygen.c": KEYGEN_C, Makefile: MAKEFILE };

describe("debug on host placement: programs built inside and outside the sandbox", () => {
  let fx: Fixture;
  let h: DebugHarness;

  beforeAll(async () => {
    fx = await startFixture();
    h = await openHarness(fx, "dbg-sources", "host");
    // (a) Inside the sandbox, through the tools: its DWARF records /workspace/inside.
    for (const [name, content] of Object.entries(PROJECT)) await h.tool("write", { path: `inside/${name}`, content });
    await h.tool("exec", { command: "make -C inside" });
    // (b) Outside, on the host's own path of the workspace: its DWARF records that path.
    const outside = join(fx.cp.getConversation("dbg-sources").workspacePath, "outside");
    mkdirSync(outside, { recursive: true });
    for (const [name, content] of Object.entries(PROJECT)) writeFileSync(join(outside, name), content);
    execFileSync("make", ["-C", outside], { stdio: "ignore" });
    expect(execFileSync("strings", [join(outside, "keygen")]).toString()).toContain(outside);
  });
  afterAll(async () => fx?.close());

  for (const where of ["inside", "outside"] as const) {
    it(`stops at breakpoints in io.c of a program built ${where} the sandbox, shows its frames, then runs to its end`, async () => {
      // A failed step leaves no session behind for the next case.
      onTestFinished(async () => {
        await h.call({ op: "terminate" });
      });
      const bp = await h.ok({ op: "breakpoints", file: `${where}/io.c`, lines: [5, 12] });
      expect(bp).toContain(`${where}/io.c`);
      const launched = await h.ok({ op: "launch", program: `${where}/keygen`, args: ["-s", "1024", "-o", "testkey"] });
      expect(launched).toContain(`is stopped at ${where}/io.c:5 in read_size`);
      expect(launched).toContain(`breakpoints: ${where}/io.c: 5 (verified), 12 (verified)`);
      const stack = await h.ok({ op: "stack" });
      expect(stack).toMatch(new RegExp(`^#0 read_size at ${where}/io\\.c:5 `, "m"));
      expect(stack).toMatch(new RegExp(`^#1 main at ${where}/keygen\\.c:8 `, "m"));
      const second = await h.ok({ op: "continue" });
      expect(second).toContain(`is stopped at ${where}/io.c:12 in write_key`);
      expect(await h.ok({ op: "evaluate", expression: "size" })).toMatch(/^1024\b/);
      const ended = await h.ok({ op: "continue" });
      expect(ended).toContain("the program exited with code 0");
      expect(await h.ok({ op: "output" })).toContain("key testkey: 128 bytes");
      await h.ok({ op: "breakpoints", file: `${where}/io.c`, lines: [] });
    });
  }
});
