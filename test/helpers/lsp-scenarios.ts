// lsp and lsp_rename on real servers, each class of fault found by comparing Enclave with direct
// clients of the same servers, from its minimal case. Run once on host placement (lsp-host.test.ts)
// and once in an enclosure (lsp-enclosure.test.ts): the same assertions on both. Files are written
// through a run without lsp, so they belong to the placement's user and nothing is synced early.
import { beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { Fixture } from "./control-plane-fixture.js";

export type Placement = "host" | "enclosure";

/** A small C project of several files, only compile_flags.txt: `counter_step` is used 27 times in 8 files. */
export const C_PROJECT: Record<string, string> = {
  "c/compile_flags.txt": "-std=c11\n-Wall\n-Iinclude\n",
  "c/include/counter.h": "#ifndef COUNTER_H\n#define COUNTER_H\nint counter_step(int value);\nint counter_twice(int value);\n#endif\n",
  "c/src/counter.c": '#include "counter.h"\nint counter_step(int value) { return value + 1; }\nint counter_twice(int value) { return counter_step(counter_step(value)); }\n',
  ...Object.fromEntries(
    ["a", "b", "c", "d", "e"].map((n) => [
      `c/src/use_${n}.c`,
      `#include "counter.h"\nint use_${n}(void) {\n  int x = counter_step(1);\n  x += counter_step(x);\n  x += counter_step(counter_step(x));\n  return x + counter_twice(x);\n}\n`,
    ]),
  ),
  "c/src/main.c":
    '#include <stdio.h>\n#include "counter.h"\nint use_a(void); int use_b(void); int use_c(void); int use_d(void); int use_e(void);\n' +
    "int main(void) {\n  int total = counter_step(use_a() + use_b() + use_c() + use_d() + use_e());\n  total = counter_step(counter_step(total));\n" +
    '  printf("%d\\n", total);\n  return 0;\n}\n',
};

const FILES: Record<string, string> = {
  "py/pyproject.toml": '[project]\nname = "fid"\nversion = "0.1.0"\n',
  "py/names.py": "def greet(name: str) -> str:\n    return name\n\n\nprint(greet(\"x\"))\n",
  // An error the file had before the run touched it.
  "py/old.py": 'count: int = "many"\n',
  "ts/tsconfig.json": '{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs", "noEmit": true }, "include": ["*.ts"] }\n',
  "ts/r.ts": 'export const bad: number = "x";\nlet alpha = 1;\nlet beta = 2;\nexport const sum = alpha + beta;\n',
  ...C_PROJECT,
};

/** How many fresh gopls servers the start-up race is tried with (each takes a few seconds). */
const GOPLS_ROUNDS = 2;
for (let i = 0; i < GOPLS_ROUNDS; i++) FILES[`go${i}/go.mod`] = `module example.com/fid${i}\n\ngo 1.19\n`;
// An import to type-check (fmt) makes gopls's start-up pass last long enough for the race to happen.
const goSource = (ret: string): string => `package lib\n\nimport _ "fmt"\n\nfunc Base() int { return ${ret} }\n`;

async function withDiagnosticsWait<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const before = process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS;
  process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = String(ms);
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS;
    else process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = before;
  }
}

export interface LspHarness {
  /** A run with lsp wired. */
  run: string;
  call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string; code: string }>;
  ok(tool: string, args: Record<string, unknown>): Promise<string>;
  /** Writes a file through a run without lsp (no diagnostics, the placement's user owns it). */
  put(path: string, content: string): Promise<void>;
}

export async function openLspHarness(fx: Fixture, id: string, placement: Placement, files: Record<string, string>): Promise<LspHarness> {
  await fx.client.createConversation(id);
  if (placement === "enclosure") await fx.client.startEnclosure(id);
  const plain = (await fx.client.openRun(id, { resources: ["workspace", "shell"], approvalPolicy: "never" })).id;
  const run = (await fx.client.openRun(id, { resources: ["workspace", "shell", "lsp"], approvalPolicy: "never" })).id;
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await fx.client.callTool(run, tool, args);
    return { isError: r.isError, text: resultText(r), code: r.errorCode };
  };
  const put = async (path: string, content: string): Promise<void> => {
    const r = await fx.client.callTool(plain, "write", { path, content });
    expect(r.isError, resultText(r)).toBe(false);
  };
  for (const [path, content] of Object.entries(files)) await put(path, content);
  return {
    run,
    call,
    put,
    async ok(tool, args) {
      const r = await call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)} → ${r.text}`).toBe(false);
      return r.text;
    },
  };
}


export function lspFidelityScenarios(placement: Placement, fixture: () => Fixture): void {
  let h: LspHarness;

  beforeAll(async () => {
    h = await openLspHarness(fixture(), `lspfid-${placement}`, placement, FILES);
  });

  describe(`lsp against real projects on ${placement} placement`, () => {
    it("lsp_rename refuses a new name that is not an identifier of the file's language, before asking the server", async () => {
      for (const [file, line, symbol, lang] of [
        ["py/names.py", 1, "greet", "Python"],
        ["ts/r.ts", 2, "alpha", "TypeScript"],
      ] as const) {
        const r = await h.call("lsp_rename", { file, line, symbol, new_name: "not valid" });
        expect(r.isError).toBe(true);
        expect(r.code).toBe("invalid_arguments");
        expect(r.text).toMatch(new RegExp(`new_name \`not valid\` cannot be used: it is not a ${lang} identifier.*nothing was changed`));
      }
      const reserved = await h.call("lsp_rename", { file: "py/names.py", line: 1, symbol: "greet", new_name: "class" });
      expect(reserved.code).toBe("invalid_arguments");
      expect(reserved.text).toMatch(/`class` is a reserved word in Python/);
      expect(await h.ok("read", { path: "py/names.py" })).toContain("def greet(name: str)");
    });

    it("lsp_rename reports the diagnostics the rename introduced, and not the file's older ones", async () => {
      const out = await h.ok("lsp_rename", { file: "ts/r.ts", line: 2, symbol: "alpha", new_name: "beta" });
      expect(out).toMatch(/Renamed `alpha` .* to `beta`: 2 edits in 1 file \(typescript\)/);
      expect(out).toMatch(/2 new diagnostics in `ts\/r\.ts` \(typescript\):\n {2}ts\/r\.ts:2:5 error \[2451\] Cannot redeclare block-scoped variable 'beta'/);
      expect(out).not.toMatch(/is not assignable/);
    });

    it("the first write of a file reports only what it introduced, not the errors the file already had", async () => {
      const first = await h.ok("edit", { path: "py/old.py", old_text: "count: int", new_text: "# a note\ncount: int" });
      expect(first).toMatch(/No new diagnostics \(pyright\)/);
      const second = await h.ok("edit", { path: "py/old.py", old_text: "# a note\n", new_text: "label: str = 1\n" });
      expect(second).toMatch(/1 new diagnostic in `py\/old\.py` \(pyright\):\n {2}py\/old\.py:1:\d+ error .*"Literal\[1\]" is not assignable to "str"/);
      expect(second).not.toMatch(/many/);
    });

    it(`gopls: a write right after a Go file was opened reports the error it introduced (${GOPLS_ROUNDS} fresh servers)`, async () => {
      for (let i = 0; i < GOPLS_ROUNDS; i++) {
        const path = `go${i}/lib.go`;
        // A new file (so the run knows it has no diagnostics yet), starting a gopls of its own root.
        await withDiagnosticsWait(1, () => h.ok("write", { path, content: goSource(String(i)) }));
        // Its outline is answered once gopls has loaded the workspace, a second or so before gopls's
        // unversioned report of the file as it read it from disk.
        expect(await h.ok("lsp", { action: "symbols", file: path })).toMatch(/function Base/);
        const out = await h.ok("write", { path, content: goSource(`"x${i}"`) });
        expect(out, `round ${i}`).toMatch(new RegExp(`1 new diagnostic in \`${path}\` \\(gopls\\):\\n {2}${path}:5:\\d+ error .*cannot use "x${i}"`));
        await h.ok("lsp", { action: "reload", file: path });
      }
    });

    it("clangd without compile_commands.json: lsp status names the derived database, and a rename changes every use in every file", async () => {
      const before = await h.ok("lsp", { action: "status" });
      expect(before).toMatch(/clangd \(c, cpp\): available\. roots: `c`\..*\n {6}`c`: a compile_commands\.json derived from compile_flags\.txt for its 7 C\/C\+\+ sources, kept in the agent's state folder/);
      const out = await h.ok("lsp_rename", { file: "c/src/main.c", line: 5, symbol: "counter_step", new_name: "step_counter" });
      expect(out).toMatch(/Renamed `counter_step` .* to `step_counter`: 27 edits in 8 files \(clangd\)/);
      expect(out).toMatch(/No new diagnostics \(clangd\)/);
      const status = await h.ok("lsp", { action: "status" });
      expect(status).toMatch(/clangd \(c, cpp\): running\. roots: `c`\..*\n {6}`c`: a compile_commands\.json derived from compile_flags\.txt for its 7 C\/C\+\+ sources/);
      // No database was written into the workspace.
      expect(await h.ok("exec", { command: "find c -name compile_commands.json -o -name .cache | wc -l" })).toMatch(/^0\b/m);
      // A source added behind the server's back (not through a write) is in the next rename too.
      await h.ok("exec", { command: "printf '#include \"counter.h\"\\nint use_f(void) { return step_counter(step_counter(2)); }\\n' > c/src/use_f.c" });
      const again = await h.ok("lsp_rename", { file: "c/src/main.c", line: 5, symbol: "step_counter", new_name: "counter_next" });
      expect(again).toMatch(/29 edits in 9 files \(clangd\)/);
      expect(await h.ok("read", { path: "c/src/use_f.c" })).toContain("counter_next(counter_next(2))");
    });

    it("a server without implementation says so", async () => {
      const r = await h.call("lsp", { action: "implementation", file: "py/names.py", line: 1, symbol: "greet" });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/the pyright language server does not support implementation/);
      expect(r.text).not.toMatch(/Unhandled method/);
    });
  });
}
