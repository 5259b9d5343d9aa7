// lsp and lsp_rename on real servers, each class of fault found by comparing Enclave with direct
// clients of the same servers, from its minimal case. Run once on host placement (lsp-host.test.ts)
// and once in an enclosure (lsp-enclosure.test.ts): the same assertions on both. Files are written
// through a run without lsp, so they belong to the placement's user and nothing is synced early.
import { beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { Fixture } from "./control-plane-fixture.js";
import type { Mask } from "@enclave/test-kit/transcript.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

export type Placement = "host" | "enclosure";

/** A small C project of several files, only compile_flags.txt: `counter_step` is used 27 times in 8 files. */
export const C_PROJECT: Record<string, string> = {
  "c/compile_flags.txt": "-std=c11\n-Wall\n-Iinclude\n",
  "c/include/counter.h": "#ifndef COUNTER_H\n#define COUNTER_H\nint counter_step(int value);\nint counter_twice(int value);\n#endif\n",
  "c/src/counter.c":
    '#include "counter.h"\nint counter_step(int value) { return value + 1; }\nint counter_twice(int value) { return counter_step(counter_step(value)); }\n',
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
  "py/names.py": 'def greet(name: str) -> str:\n    return name\n\n\nprint(greet("x"))\n',
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

/** What differs between runs and placements in lsp's answers: server pids. */
const LSP_MASKS: readonly Mask[] = [[/\bpid \d+/g, "pid <pid>"]];

/** One server's entry in lsp status: its line and the indented lines under it. */
function serverEntry(status: string, server: string): string {
  const lines = status.split("\n");
  const start = lines.findIndex((l) => l.trimStart().startsWith(`${server} (`));
  if (start < 0) return `(no ${server} entry)\n${status}`;
  const indent = /^\s*/.exec(lines[start] ?? "")?.[0].length ?? 0;
  const end = lines.findIndex((l, i) => i > start && (/^\s*/.exec(l)?.[0].length ?? 0) <= indent);
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

/** A rename's answer up to its diagnostics: the summary line and the indented list of files under it. */
function editsOnly(answer: string): string {
  const [first = "", ...rest] = answer.split("\n");
  const end = rest.findIndex((l) => !l.startsWith(" "));
  return [first, ...(end < 0 ? rest : rest.slice(0, end))].join("\n");
}

/** The harness's calls with every answer recorded in one transcript under a header naming the call (and a refusal's code). */
function recorded(h: LspHarness) {
  const log = new TranscriptLog();
  const header = (tool: string, args: Record<string, unknown>) => `${tool} ${JSON.stringify(args)}`;
  return {
    log,
    async ok(tool: string, args: Record<string, unknown>): Promise<string> {
      return log.add(header(tool, args), await h.ok(tool, args));
    },
    async call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string; code: string }> {
      const r = await h.call(tool, args);
      log.add(`${header(tool, args)} → ${r.isError ? `error ${r.code}` : "ok"}`, r.text);
      return r;
    },
    /** Compares the transcript with transcripts/lsp-scenarios/<name>.txt (beside the running test file). */
    expect: (name: string) => log.expect(`transcripts/lsp-scenarios/${name}.txt`, LSP_MASKS),
  };
}

export function lspFidelityScenarios(placement: Placement, fixture: () => Fixture): void {
  let h: LspHarness;

  beforeAll(async () => {
    h = await openLspHarness(fixture(), `lspfid-${placement}`, placement, FILES);
  });

  describe(`lsp against real projects on ${placement} placement`, () => {
    it("lsp_rename refuses a new name that is not an identifier of the file's language, before asking the server", async () => {
      const t = recorded(h);
      for (const [file, line, symbol] of [
        ["py/names.py", 1, "greet"],
        ["ts/r.ts", 2, "alpha"],
      ] as const) {
        const r = await t.call("lsp_rename", { file, line, symbol, new_name: "not valid" });
        expect(r.isError).toBe(true);
        expect(r.code).toBe("invalid_arguments");
      }
      const reserved = await t.call("lsp_rename", { file: "py/names.py", line: 1, symbol: "greet", new_name: "class" });
      expect(reserved.code).toBe("invalid_arguments");
      expect(await h.ok("read", { path: "py/names.py" })).toContain("def greet(name: str)");
      await t.expect("rename-refusals");
    });

    it("lsp_rename reports the diagnostics the rename introduced, and not the file's older ones", async () => {
      const t = recorded(h);
      const out = await t.ok("lsp_rename", { file: "ts/r.ts", line: 2, symbol: "alpha", new_name: "beta" });
      // The file's older error, the server's words.
      expect(out).not.toMatch(/is not assignable/);
      await t.expect("rename-new-diagnostics");
    });

    it("the first write of a file reports only what it introduced, not the errors the file already had", async () => {
      const t = recorded(h);
      await t.ok("edit", { path: "py/old.py", old_text: "count: int", new_text: "# a note\ncount: int" });
      const second = await t.ok("edit", { path: "py/old.py", old_text: "# a note\n", new_text: "label: str = 1\n" });
      expect(second).not.toMatch(/many/);
      await t.expect("first-write");
    });

    it(`gopls: a write right after a Go file was opened reports the error it introduced (${GOPLS_ROUNDS} fresh servers)`, async () => {
      const t = recorded(h);
      for (let i = 0; i < GOPLS_ROUNDS; i++) {
        const path = `go${i}/lib.go`;
        // A new file (so the run knows it has no diagnostics yet), starting a gopls of its own root.
        await withDiagnosticsWait(1, () => h.ok("write", { path, content: goSource(String(i)) }));
        // Its outline is answered once gopls has loaded the workspace, a second or so before gopls's
        // unversioned report of the file as it read it from disk.
        await t.ok("lsp", { action: "symbols", file: path });
        await t.ok("write", { path, content: goSource(`"x${i}"`) });
        await h.ok("lsp", { action: "reload", file: path });
      }
      await t.expect("gopls-first-write");
    });

    it("clangd without compile_commands.json: lsp status names the derived database, and a rename changes every use in every file", async () => {
      const t = recorded(h);
      // Only clangd's entry: the other servers' states depend on the placement and the earlier tests.
      const clangdStatus = async (): Promise<void> => {
        t.log.add('lsp {"action":"status"} (clangd\'s entry)', serverEntry(await h.ok("lsp", { action: "status" }), "clangd"));
      };
      await clangdStatus();
      await t.ok("lsp_rename", { file: "c/src/main.c", line: 5, symbol: "counter_step", new_name: "step_counter" });
      await clangdStatus();
      // No database was written into the workspace.
      expect(await h.ok("exec", { command: "find c -name compile_commands.json -o -name .cache | wc -l" })).toMatch(/^0\b/m);
      // A source added behind the server's back (not through a write) is in the next rename too.
      await h.ok("exec", { command: "printf '#include \"counter.h\"\\nint use_f(void) { return step_counter(step_counter(2)); }\\n' > c/src/use_f.c" });
      // Only what the rename changed: clangd's diagnostics of a rename across files right after another
      // come before or after its index has caught up (stale implicit-declaration warnings, or none).
      const again = { file: "c/src/main.c", line: 5, symbol: "step_counter", new_name: "counter_next" };
      t.log.add(`lsp_rename ${JSON.stringify(again)} (the edits, not the diagnostics)`, editsOnly(await h.ok("lsp_rename", again)));
      expect(await h.ok("read", { path: "c/src/use_f.c" })).toContain("counter_next(counter_next(2))");
      await t.expect("clangd-derived-database");
    });

    it("a server without implementation says so", async () => {
      const t = recorded(h);
      const r = await t.call("lsp", { action: "implementation", file: "py/names.py", line: 1, symbol: "greet" });
      expect(r.isError).toBe(true);
      // Not the server's raw MethodNotFound answer (lsp_server_error), but the feature it lacks.
      expect(r.code).toBe("failed_precondition");
      await t.expect("no-implementation");
    });
  });
}
