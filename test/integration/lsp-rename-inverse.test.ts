// A rename followed by its inverse restores every file byte for byte, through the API on host
// placement with clangd. The C project is shaped as C examples often are: a header that compiles only
// after the config.h each source includes first (its declaration uses config.h's macro), one .c
// defining the function, several calling it (two calls on a line, after non-ASCII text, in a CRLF
// file), and the name in comments, strings and macro bodies, which a rename leaves alone.
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";

const CALLER = (n: string): string =>
  [
    '#include "config.h"',
    '#include "io.h"',
    '/* Calls werror ("werror" in a string stays). */',
    `int use_${n}(int x)`,
    "{",
    '  const char *name = "werror";',
    '  if (x < 0) { werror ("négatif: %d\\n", x); werror("again %s\\n", name); }',
    '  if (x == 0) DIE("zero");',
    "  if (x > 100)",
    '\twerror ("Größe %d\\n", x);',
    "  return x;",
    "}",
    "",
  ].join("\n");

const PROJECT: Record<string, string> = {
  "compile_flags.txt": "-std=c11\n-Wall\n-Iinclude\n",
  "include/config.h": "#define PRINTF_STYLE(f, a) __attribute__ ((__format__ (__printf__, f, a)))\n",
  "include/io.h": [
    "/* io.h: Copyright (C) 2002 Niels Möller — helpers for the examples.",
    " * werror prints a message to stderr. */",
    "#ifndef IO_H",
    "#define IO_H",
    "#include <stdio.h>",
    "",
    "void",
    "werror(const char *format, ...) PRINTF_STYLE(1, 2);",
    "",
    "/* Reports and gives up: werror, then return. */",
    '#define DIE(msg) do { werror("%s\\n", (msg)); return 1; } while (0)',
    "",
    "#endif",
    "",
  ].join("\n"),
  "src/io.c": [
    "/* Möller's io.c: werror and friends. */",
    '#include "config.h"',
    "#include <stdarg.h>",
    '#include "io.h"',
    "",
    "void",
    "werror(const char *format, ...)",
    "{",
    "  va_list args;",
    "  va_start(args, format);",
    "  vfprintf(stderr, format, args);",
    "  va_end(args);",
    "}",
    "",
  ].join("\n"),
  "src/use_a.c": CALLER("a"),
  "src/use_b.c": CALLER("b"),
  "src/use_crlf.c":
    '#include "config.h"\r\n#include "io.h"\r\nint use_crlf(int x)\r\n{\r\n  if (x) werror("crlf %d\\n", x);\r\n  return werror ("é"), x;\r\n}\r\n',
  "src/main.c": [
    '#include "config.h"',
    '#include "io.h"',
    "int use_a(int); int use_b(int); int use_crlf(int);",
    "int main(void)",
    "{",
    '  /* 🎉 werror */ werror("start\\n"); werror("%d\\n", use_a(1) + use_b(2) + use_crlf(3));',
    "  return 0;",
    "}",
    "",
  ].join("\n"),
};

let fx: Fixture;
let workspace: string;
let run: string;

beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
  const conv = await fx.client.createConversation("renameback");
  expect(conv.placement).toBe("host");
  workspace = conv.workspacePath;
  for (const [rel, content] of Object.entries(PROJECT)) {
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), content);
  }
  run = (await fx.client.openRun("renameback", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
});
afterAll(async () => fx?.close());

function snapshot(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(p.slice(root.length + 1), readFileSync(p));
    }
  };
  walk(root);
  return out;
}

/** A rename's answer up to its diagnostics (which depend on how far clangd's index has caught up). */
function editsOnly(answer: string): string {
  const [first = "", ...rest] = answer.split("\n");
  const end = rest.findIndex((l) => !l.startsWith(" "));
  return [first, ...(end < 0 ? rest : rest.slice(0, end))].join("\n");
}

describe("lsp_rename and its inverse on host placement (clangd)", () => {
  it("restores every file byte for byte, the header whose declaration needs its includers' config.h included", async () => {
    const before = snapshot(workspace);
    const rename = async (symbol: string, newName: string): Promise<string> => {
      const r = await fx.client.callTool(run, "lsp_rename", { file: "src/main.c", line: 6, symbol, new_name: newName });
      expect(r.isError, resultText(r)).toBe(false);
      return editsOnly(resultText(r));
    };
    // The first `werror` on the line is in a comment.
    const there = await rename("werror#2", "report_error");
    const header = readFileSync(join(workspace, "include/io.h"), "utf8");
    expect(header).toContain("report_error(const char *format, ...) PRINTF_STYLE(1, 2);");
    // Comments, strings and macro bodies keep the old name.
    expect(header).toContain('#define DIE(msg) do { werror("%s\\n", (msg));');
    const back = await rename("report_error#1", "werror");
    const after = snapshot(workspace);
    const changed = [...before].filter(([p, b]) => !after.get(p)?.equals(b)).map(([p]) => p);
    expect(changed).toEqual([]);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    await expectTranscript(`${there}\n\n${back}\n`, "transcripts/lsp-rename-inverse/there-and-back.txt");
  });
});
