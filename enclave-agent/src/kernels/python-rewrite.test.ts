// The Python kernel's IPython-idiom rewriting, run by the real runner module.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

const runnerDir = join(import.meta.dirname, "python");

function rewrite(code: string): string {
  const script =
    "import sys, json\nsys.dont_write_bytecode = True\nfrom _enclave_kernel.rewrite import rewrite_cell\nfrom _enclave_kernel.magics import SUPPORTED_LINE, SUPPORTED_CELL\ntry:\n    print(rewrite_cell(sys.stdin.read(), SUPPORTED_LINE, SUPPORTED_CELL), end='')\nexcept Exception as e:\n    print('ERROR line %d: %s' % (e.line_no, e), end='')";
  return execFileSync("python3", ["-c", script], { cwd: runnerDir, input: code, encoding: "utf8" });
}

describe("rewrite_cell", () => {
  it("rewrites shell escapes and line magics line for line, keeping indentation", () => {
    const out = rewrite("x = 1\n!echo {x}\nfiles = !ls\nfor i in range(2):\n    %time i + 1\ny = %pwd");
    expect(out.split("\n")).toEqual([
      "x = 1",
      "__enclave_ipy__.system('echo {x}', globals(), locals())",
      "files = __enclave_ipy__.getoutput('ls', globals(), locals())",
      "for i in range(2):",
      "    __enclave_ipy__.line_magic('time', 'i + 1', globals(), locals())",
      "y = __enclave_ipy__.line_magic('pwd', '', globals(), locals())",
    ]);
  });

  it("leaves strings, brackets and continuations alone", () => {
    const code = 's = """\n!not a command\n%not a magic\n"""\nd = {\n  "k": 1,\n}\nv = 1 + \\\n  2';
    expect(rewrite(code)).toBe(code);
  });

  it("turns a cell magic into one call and keeps the line count", () => {
    const out = rewrite("%%bash\necho a\necho b");
    expect(out.split("\n")).toHaveLength(3);
    expect(out.split("\n")[0]).toBe("__enclave_ipy__.cell_magic('bash', '', 'echo a\\necho b', globals(), locals())");
  });

  it("refuses unknown and misplaced magics before anything runs", async () => {
    const log = new TranscriptLog();
    for (const cell of ["print(1)\n%load_ext autoreload", "x = 1\n%%bash\necho", "%%perl\nprint 1"]) log.add(JSON.stringify(cell), rewrite(cell));
    await log.expect("transcripts/python-rewrite/refused-magics.txt");
  });
});
