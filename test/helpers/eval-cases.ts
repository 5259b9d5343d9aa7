// The eval behaviours every placement must show, run against a real control plane, real agents
// and real Python/Node kernels: on host placement (eval-host.test.ts) and inside a real enclosure
// (eval-enclosure.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { resultText, type ToolCallResult } from "@enclave/client/control-plane-client.js";
import type { Fixture } from "./control-plane-fixture.js";
import type { Mask } from "@enclave/test-kit/transcript.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";
import { EVAL_DETAILS } from "@enclave/control-plane/tools/eval/eval-details.js";
import { detailsOf } from "./tool-details.js";

export { hostPython } from "./host-python.js";

export interface EvalPlace {
  fx: Fixture;
  conversationId: string;
  runId: string;
  workspace: string;
}

const LABEL = "a cell the eval tests run";

/** Cell numbers and kernel ids depend on what ran before in the kernel and on the run. */
const EVAL_MASKS: readonly Mask[] = [
  [/<cell \d+>/g, "<cell N>"],
  [/\b(py|js)-[0-9a-f]{8}\b/g, "$1-<id>"],
  // Node's own frames under an error thrown from its stream code: their lines move with its version.
  [/^ {4}at [^\n]*?\(node:[^)\n]*\)(?:\n {4}at [^\n]*?\(node:[^)\n]*\))*/gm, "    at <node internals>"],
];

/** One cell's answer as a transcript section: the code, the error code if any, and the text. */
function addCell(log: TranscriptLog, code: string, r: ToolResult): void {
  log.add(`eval ${JSON.stringify(code)} → ${r.isError ? `error ${r.errorCode}` : "ok"}`, resultText(r));
}

/** Compares a transcript with transcripts/eval-cases/<name>.txt (beside the running test file). */
function expectEvalTranscript(log: TranscriptLog, name: string): Promise<void> {
  return log.expect(`transcripts/eval-cases/${name}.txt`, EVAL_MASKS);
}

/** A pure-Python wheel, built by the test (the enclosure has no network to download one). */
export function buildWheel(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  const name = `enclave_demo-${version}-py3-none-any.whl`;
  const script = `
import base64, hashlib, sys, zipfile
version, out = sys.argv[1], sys.argv[2]
files = {
  "enclave_demo/__init__.py": ("VERSION = %r\\n" % version).encode(),
  "enclave_demo-%s.dist-info/METADATA" % version: ("Metadata-Version: 2.1\\nName: enclave-demo\\nVersion: %s\\n" % version).encode(),
  "enclave_demo-%s.dist-info/WHEEL" % version: b"Wheel-Version: 1.0\\nGenerator: enclave-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
rows = []
with zipfile.ZipFile(out, "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        rows.append("%s,sha256=%s,%d" % (n, h, len(d)))
    rows.append("enclave_demo-%s.dist-info/RECORD,," % version)
    z.writestr("enclave_demo-%s.dist-info/RECORD" % version, "\\n".join(rows) + "\\n")
`;
  execFileSync("python3", ["-c", script, version, join(dir, name)]);
  return name;
}

export async function evalCell(p: EvalPlace, args: Record<string, unknown>, runId = p.runId): Promise<ToolCallResult> {
  return p.fx.client.callTool(runId, "eval", { description: LABEL, ...args });
}

export async function evalOk(p: EvalPlace, args: Record<string, unknown>): Promise<string> {
  const r = await evalCell(p, args);
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(data.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

export function evalCases(place: () => EvalPlace): void {
  it("keeps state across cells, and reset discards it", async () => {
    const p = place();
    await evalOk(p, { code: "import math\nx = 41\ndata = [1, 2, 3]" });
    expect(await evalOk(p, { code: "x + 1" })).toBe("42");
    expect(await evalOk(p, { code: "math.sqrt(sum(data) + 10)" })).toBe("4.0");
    const r = await evalCell(p, { code: "x", reset: true });
    expect(r.errorCode).toBe("cell_error");
    expect(resultText(r)).toMatch(/NameError: name 'x' is not defined/);
    expect(resultText(r)).toMatch(/File "<cell 1>", line 1/);
  });

  it("echoes with _repr_* in notebook order, and tracebacks point at the cell", async () => {
    const p = place();
    const md = await p.fx.client.callTool(p.runId, "eval", {
      description: LABEL,
      code: "class M:\n    def _repr_markdown_(self): return '**bold**'\n    def __repr__(self): return 'plain M'\nM()",
    });
    expect(resultText(md)).toBe("**bold**");
    const err = await evalCell(p, { code: "def f(n):\n    return 10 / n\n\nf(0)" });
    const tb = resultText(err);
    expect(tb).toMatch(/File "<cell \d+>", line 4, in <module>\n {4}f\(0\)/);
    expect(tb).toMatch(/File "<cell \d+>", line 2, in f\n {4}return 10 \/ n/);
    expect(tb).not.toMatch(/_enclave_kernel|kernel\.py/);
    expect(await evalOk(p, { code: "1 + 1;" })).toBe("(no output)");
  });

  it("renders a pandas DataFrame as a markdown table with its HTML kept as a second part", async () => {
    const p = place();
    const r = await evalCell(p, { code: "import pandas as pd\npd.DataFrame({'city': ['Oslo', 'Lima'], 'temp': [3.5, 19.0]})" });
    expect(r.isError, resultText(r)).toBe(false);
    expect(resultText(r)).toBe("|  | city | temp |\n|---|---|---|\n| 0 | Oslo | 3.5 |\n| 1 | Lima | 19.0 |");
    const rich = r.parts.find((x) => x.part?.$case === "rich");
    expect(rich?.part?.$case === "rich" && rich.part.value.mimeType).toBe("text/html");
    expect(rich?.part?.$case === "rich" && rich.part.value.text).toMatch(/<table[\s\S]*Oslo/);
  });

  it("returns matplotlib figures as PNG images, in order with printed output and display()", async () => {
    const p = place();
    const r = await evalCell(p, {
      code: [
        "import matplotlib.pyplot as plt",
        "print('first')",
        "display('second')",
        "plt.plot([1, 4, 9])",
        "plt.show()",
        "print('third')",
        "plt.figure(); plt.bar(['a', 'b'], [3, 5])",
        "print('fourth')",
      ].join("\n"),
    });
    expect(r.isError, resultText(r)).toBe(false);
    const kinds = r.parts.map((x) => (x.part?.$case === "text" ? `text:${x.part.value.trim()}` : x.part?.$case));
    expect(kinds).toEqual(["text:first\n'second'", "image", "text:third\nfourth", "image"]);
    for (const part of r.parts) {
      if (part.part?.$case !== "image") continue;
      expect(part.part.value.mimeType).toBe("image/png");
      const size = pngSize(part.part.value.data);
      expect(size.width).toBeGreaterThan(100);
      expect(size.height).toBeGreaterThan(100);
    }
    expect(await evalOk(p, { code: "import matplotlib.pyplot as plt\nlen(plt.get_fignums())" })).toBe("0");
  });

  it("rewrites %pip and evicts sys.modules so the next import sees the new version", async () => {
    const p = place();
    const v1 = buildWheel(join(p.workspace, "wheels"), "1.0");
    const v2 = buildWheel(join(p.workspace, "wheels"), "2.0");
    const install1 = await evalOk(p, { code: `%pip install --no-index --no-deps wheels/${v1}` });
    expect(install1).toMatch(/Successfully installed enclave-demo-1.0/);
    expect(await evalOk(p, { code: "import enclave_demo\nenclave_demo.VERSION" })).toBe("'1.0'");
    const install2 = await evalOk(p, { code: `%pip install --no-index --no-deps --upgrade wheels/${v2}` });
    // pip's own lines vary with its version; the kernel's note after them is ours.
    const log = new TranscriptLog();
    log.add("%pip install --upgrade: the line after pip's output", install2.trimEnd().split("\n").at(-1) ?? "");
    await expectEvalTranscript(log, "pip-evicts");
    expect(await evalOk(p, { code: "import enclave_demo\nenclave_demo.VERSION" })).toBe("'2.0'");
  });

  it("rewrites !cmd, x = !cmd, %%bash, %cd and %%timeit; other magics are a clear error", async () => {
    const p = place();
    expect(await evalOk(p, { code: "name = 'enclave'\n!echo hello {name} from $name" })).toBe("hello enclave from enclave");
    expect(await evalOk(p, { code: "lines = !printf 'a\\nb\\n'\nlines" })).toBe("['a', 'b']");
    expect(await evalOk(p, { code: "%%bash\necho from bash\nexit 0" })).toBe("from bash");
    mkdirSync(join(p.workspace, "sub"), { recursive: true });
    writeFileSync(join(p.workspace, "sub", "inside.txt"), "x");
    const cd = await evalOk(p, { code: "%cd sub\nimport os\nsorted(os.listdir('.'))" });
    expect(cd).toMatch(/sub\n\['inside.txt'\]$/);
    await evalOk(p, { code: "%cd ..\n" });
    expect(await evalOk(p, { code: "%%timeit -n 5 -r 2\nsum(range(100))" })).toMatch(/per loop \(mean ± std\. dev\. of 2 runs, 5 loops each\)/);
    expect(await evalOk(p, { code: "%timeit -n 3 -r 1 sorted([3, 1, 2])" })).toMatch(/of 1 run, 3 loops each/);
    const badCode = "print('never runs')\n%load_ext autoreload";
    const bad = await evalCell(p, { code: badCode });
    expect(bad.errorCode).toBe("cell_error");
    const log = new TranscriptLog();
    addCell(log, badCode, bad);
    await expectEvalTranscript(log, "unknown-magic");
  });

  it("renders IPython.display objects as Jupyter does, with the kernel's display in charge", async () => {
    const p = place();
    const png = "b'\\x89PNG\\r\\n\\x1a\\n' + bytes(range(24))";
    const r = await evalCell(p, {
      code: [
        "from IPython.display import display, HTML, Markdown, Image, JSON",
        "display(HTML('<b>bold</b>'))",
        "display(Markdown('## Title'))",
        `display(Image(data=${png}))`,
        "JSON({'a': [1, 2]})",
      ].join("\n"),
    });
    expect(r.isError, resultText(r)).toBe(false);
    const kinds = r.parts.map((x) =>
      x.part?.$case === "text"
        ? `text:${x.part.value.trim()}`
        : x.part?.$case === "rich"
          ? `rich:${x.part.value.mimeType}:${x.part.value.text}`
          : x.part?.$case,
    );
    expect(kinds).toEqual([
      "text:<IPython.core.display.HTML object>",
      "rich:text/html:<b>bold</b>",
      "text:## Title",
      "image",
      'text:{\n  "a": [\n    1,\n    2\n  ]\n}',
    ]);
    const image = r.parts.find((x) => x.part?.$case === "image");
    expect(image?.part?.$case === "image" && image.part.value.mimeType).toBe("image/png");
    // The older import path and the raw display helpers publish through the same display.
    expect(await evalOk(p, { code: "from IPython.core.display import display_markdown\ndisplay_markdown('*raw*', raw=True)" })).toBe("*raw*");
  });

  it("elides a wide DataFrame as a notebook does (pandas' notebook display options), in text, markdown and HTML", async () => {
    const p = place();
    const r = await evalCell(p, { code: "import pandas as pd\nwide = pd.DataFrame([[r * 30 + c for c in range(30)] for r in range(3)])\nprint(wide)\nwide" });
    expect(r.isError, resultText(r)).toBe(false);
    const text = resultText(r);
    const printed = text.slice(0, text.indexOf("\n|"));
    expect(printed).toMatch(/^ +0 +1 .* 9 +\.\.\. +20 .* 26 +\\\n/);
    expect(printed).toMatch(/\[3 rows x 30 columns\]/);
    const header = text.split("\n").find((l) => l.startsWith("|  |")) ?? "";
    expect(header.split(" | ").length).toBe(22); // the index, 10 + 10 columns and the elision
    expect(header).toMatch(/\| 9 \| … \| 20 \|/);
    const html = r.parts.find((x) => x.part?.$case === "rich");
    const table = html?.part?.$case === "rich" ? html.part.value.text : "";
    expect(table.match(/<th>\.\.\.<\/th>/g)).toHaveLength(1);
    expect(table).toMatch(/3 rows × 30 columns/);
    expect(await evalOk(p, { code: "(pd.get_option('display.max_columns'), pd.get_option('display.max_rows'), pd.get_option('display.width'))" })).toBe(
      "(20, 60, 80)",
    );
  });

  it("keeps two adjacent tables apart in markdown, and text after a table off its rows", async () => {
    const p = place();
    const r = await evalCell(p, { code: "import pandas as pd\nsmall = pd.DataFrame({'n': [1, 2]})\ndisplay(small)\ndisplay(small)\nprint('after')" });
    // The text parts as a harness joins them (each table's HTML is a rich part between them).
    const text = r.parts.map((x) => (x.part?.$case === "text" ? x.part.value : "")).join("");
    const table = "|  | n |\n|---|---|\n| 0 | 1 |\n| 1 | 2 |";
    expect(text).toBe(`${table}\n\n${table}\n\nafter`);
  });

  it("keeps the last expression's echo under %%time, as IPython does", async () => {
    const p = place();
    const r = await evalOk(p, { code: "%%time\ntotal = sum(range(10))\ntotal * 2" });
    expect(r).toMatch(/^CPU times: user .*\nWall time: .*\n90$/);
    expect(await evalOk(p, { code: "%%time\ntotal * 3;" })).not.toMatch(/\n135$/);
    const err = await evalCell(p, { code: "%%time\nx = 1\n1 / 0" });
    expect(resultText(err)).toMatch(/File "<cell \d+>", line 3, in <module>\n {4}1 \/ 0\n[\s\S]*ZeroDivisionError/);
    expect(resultText(err)).not.toMatch(/CPU times/);
  });

  it("reports a SyntaxError or IndentationError at the cell's line, with none of the runner's frames", async () => {
    const p = place();
    const open = await evalCell(p, { code: "x = (1,\n" });
    expect(open.errorCode).toBe("cell_error");
    expect(resultText(open)).toMatch(/^ {2}File "<cell \d+>", line 1\n {4}x = \(1,\n {8}\^\nSyntaxError: '\(' was never closed$/);
    const indent = await evalCell(p, { code: "def f():\nreturn 1" });
    expect(resultText(indent)).toMatch(
      /^ {2}File "<cell \d+>", line 2\n {4}return 1\n {4}\^+\nIndentationError: expected an indented block after function definition on line 1$/,
    );
    const outside = await evalCell(p, { code: "print('never')\nreturn 5" });
    expect(resultText(outside)).toMatch(/^ {2}File "<cell \d+>", line 2\n {4}return 5\n {4}\^+\nSyntaxError: 'return' outside function$/);
    for (const r of [open, indent, outside]) expect(resultText(r)).not.toMatch(/Traceback|ast\.py|_enclave_kernel/);
    // A SyntaxError the cell's own code raises while running keeps the cell's frame.
    expect(resultText(await evalCell(p, { code: "eval('1 +')" }))).toMatch(/^Traceback \(most recent call last\):\n {2}File "<cell \d+>", line 1, in <module>/);
  });

  it("echoes Python values with the text/plain Jupyter shows (IPython's pretty printer), and a coroutine as a value", async () => {
    const p = place();
    expect(await evalOk(p, { code: "class Plain:\n    pass\n\nPlain()" })).toMatch(/^<__main__\.Plain at 0x[0-9a-f]+>$/);
    expect(await evalOk(p, { code: "def greet(name, punctuation='!'):\n    return name\n\ngreet" })).toBe("<function __main__.greet(name, punctuation='!')>");
    expect(await evalOk(p, { code: "import collections, re\n(int, collections.defaultdict(list), re.compile(r'a+'))" })).toBe(
      "(int, defaultdict(list, {}), re.compile(r'a+', re.UNICODE))",
    );
    expect(await evalOk(p, { code: "[n * 1000 for n in range(20)]" })).toBe(`[${Array.from({ length: 20 }, (_, n) => n * 1000).join(",\n ")}]`);
    // A coroutine the last expression makes is its value (only a top-level await is awaited).
    expect(await evalOk(p, { code: "async def fetch():\n    return 10\n\ncoro = fetch()\ncoro" })).toMatch(/^<coroutine object fetch at 0x[0-9a-f]+>$/);
    expect(await evalOk(p, { code: "await coro" })).toBe("10");
  });

  it("shows a failed top-level await with the cell's frames only, not asyncio's", async () => {
    const p = place();
    const r = await evalCell(p, {
      code: "import asyncio\nasync def failing():\n    await asyncio.sleep(0)\n    raise TimeoutError('upstream did not answer')\n\nawait failing()",
    });
    expect(resultText(r)).toMatch(
      /^Traceback \(most recent call last\):\n {2}File "<cell \d+>", line 6, in <module>\n {4}await failing\(\)\n {2}File "<cell \d+>", line 4, in failing\n/,
    );
    expect(resultText(r)).not.toMatch(/asyncio|base_events/);
  });

  it("makes its asyncio loop on first need: not at start, the same loop for get_event_loop and later awaits, and tasks made in one cell run in the next", async () => {
    const p = place();
    // A new kernel has not imported asyncio (half of its start-up when it did).
    expect(await evalOk(p, { code: "import sys\n'asyncio' in sys.modules", reset: true })).toBe("False");
    expect(
      await evalOk(p, {
        code: "import asyncio\nloop = asyncio.get_event_loop()\nticks = []\nasync def tick():\n    ticks.append(1)\n\ntask = loop.create_task(tick())\nlen(ticks)",
      }),
    ).toBe("0");
    expect(await evalOk(p, { code: "await asyncio.sleep(0)\nsame = asyncio.get_running_loop() is loop\n(same, task.done(), ticks)" })).toBe(
      "(True, True, [1])",
    );
    // asyncio imported first off the main thread: the main thread still gets the kernel's loop.
    expect(
      await evalOk(p, {
        code: "import sys, threading\nt = threading.Thread(target=lambda: __import__('asyncio'))\nt.start()\nt.join()\n'asyncio' in sys.modules",
        reset: true,
      }),
    ).toBe("True");
    expect(await evalOk(p, { code: "import asyncio\nfirst = asyncio.get_event_loop()\nfirst.is_running()" })).toBe("False");
    expect(await evalOk(p, { code: "await asyncio.sleep(0)\nsame = asyncio.get_running_loop() is first\nsame" })).toBe("True");
  });

  it("writes a DataFrame's markdown with pandas' own formatting of values, a MultiIndex's row labels once, and an empty one as its header", async () => {
    const p = place();
    const r = await evalOk(p, {
      code: "import pandas as pd\npd.DataFrame({'x': [1.5, None, 2.25], 'when': pd.to_datetime(['2024-01-01', None, '2024-03-01'])}, index=pd.Index([10, 200, 3], name='id'))",
    });
    expect(r).toBe("| id | x | when |\n|---|---|---|\n| 10 | 1.50 | 2024-01-01 |\n| 200 | NaN | NaT |\n| 3 | 2.25 | 2024-03-01 |");
    const grouped = await evalOk(p, { code: "pd.DataFrame({'k': ['a', 'a', 'b'], 'j': [1, 2, 1], 'v': [1, 2, 3]}).set_index(['k', 'j'])" });
    // As pandas' HTML spans it (and its text shows it): a label over several rows, once.
    expect(grouped).toBe("| k | j | v |\n|---|---|---|\n| a | 1 | 1 |\n|  | 2 | 2 |\n| b | 1 | 3 |");
    expect(await evalOk(p, { code: "pd.DataFrame(columns=['a', 'b'])" })).toBe("|  | a | b |\n|---|---|---|");
  });

  it("keeps a %%bash script's stderr on stderr and its stdout on stdout, as Jupyter does", async () => {
    const p = place();
    const r = await evalCell(p, { code: "%%bash\necho out1\necho err1 >&2\necho out2\necho err2 >&2" });
    const d = detailsOf(EVAL_DETAILS, r);
    expect(d).toMatchObject({ status: "ok", stdout: "out1\nout2\n", stderr: "err1\nerr2\n" });
    // A failing script: its stderr still on stderr, and the cell an error as in IPython.
    const failed = await evalCell(p, { code: "%%bash\necho before\necho broken >&2\nexit 3" });
    expect(failed.errorCode).toBe("cell_error");
    const fd = detailsOf(EVAL_DETAILS, failed);
    expect(fd.stdout).toBe("before\n");
    expect(fd.stderr).toMatch(/^broken\n/);
    expect(fd.error?.name).toBe("CalledProcessError");
  });

  it("echoes JavaScript values as Node's REPL writes them (80 columns), with none of the runner's own state", async () => {
    const p = place();
    const js = (code: string) => evalOk(p, { language: "javascript", code });
    expect(await js("Object.entries({ London: 'Ada', Arlington: 'Grace', Helsinki: 'Linus' })")).toBe(
      "[\n  [ 'London', 'Ada' ],\n  [ 'Arlington', 'Grace' ],\n  [ 'Helsinki', 'Linus' ]\n]",
    );
    const promise = await js("Promise.resolve(42)");
    // Node before 24 shows a promise's async ids (its AsyncLocalStorage runs on async hooks), as its
    // REPL does; Node 24's AsyncLocalStorage needs no hooks, so the promise shows its value alone.
    expect(promise).toMatch(/^Promise \{(\n {2}42,| 42 \}$)/);
    expect(promise).not.toMatch(/kResourceStore|'c\d+'/);
  });

  it("echoes a JavaScript last expression in parentheses, never showing the runner's rewritten source", async () => {
    const p = place();
    const js = (code: string) => evalCell(p, { language: "javascript", code });
    for (const [code, shown] of [
      ["let k = 3;\n({ a: 1 })", "{ a: 1 }"],
      ["k += 1;\n(k * 2)", "8"],
      ["({ a: k }) // a comment", "{ a: 4 }"],
      ["{ b: [1, 2] }", "{ b: [ 1, 2 ] }"],
    ] as const) {
      const r = await js(code);
      expect(r.isError, resultText(r)).toBe(false);
      expect(resultText(r)).toBe(shown);
    }
    const bad = await js("const ok = 1;\nx = )");
    expect(resultText(bad)).toMatch(/^<cell \d+>:2\nx = \)\n {4}\^\n\nSyntaxError: Unexpected token '\)'$/);
    expect(resultText(bad)).not.toMatch(/return \{ value|async \(\) =>|globalThis|void \(/);
  });

  it("keeps JavaScript stack frames of functions defined in earlier cells, at the cell's own line and column", async () => {
    const p = place();
    await evalOk(p, { language: "javascript", code: "function thrower() {\n  throw new Error('boom')\n}" });
    const r = await evalCell(p, { language: "javascript", code: "const before = 1;\nconst result = thrower();" });
    expect(r.errorCode).toBe("cell_error");
    const m = /^Error: boom\n {4}at thrower \(<cell (\d+)>:2:9\)\n {4}at <cell (\d+)>:2:16$/.exec(resultText(r));
    expect(m, resultText(r)).not.toBeNull();
    expect(Number(m?.[2])).toBe(Number(m?.[1]) + 1);
    const nested = await evalCell(p, { language: "javascript", code: "async function later() { await null; thrower() }\nawait later()" });
    expect(resultText(nested)).toMatch(/^Error: boom\n {4}at thrower \(<cell \d+>:2:9\)\n {4}at later \(<cell \d+>:1:38\)\n {4}at async <cell \d+>:2:1$/);
  });

  it("reports errors from JavaScript work left running with the cell's frames only", async () => {
    const p = place();
    await evalOk(p, {
      language: "javascript",
      code: "setTimeout(() => { throw new Error('late') }, 10);\nPromise.reject(new Error('nobody'));\n'left running'",
    });
    const code = "await new Promise((r) => setTimeout(r, 300));\n'next'";
    const r = await evalOk(p, { language: "javascript", code });
    expect(r).not.toMatch(/node:vm|node:internal|node:async_hooks|js-runner|runInThisContext|sigintHandlersWrap|execute|drain/);
    const log = new TranscriptLog();
    // The late errors come before this cell starts (under a header saying so) or while it waits,
    // as the machine's timing has it; the reports themselves are the same either way.
    log.add(`eval ${JSON.stringify(code)} → ok`, r.replace(/^\[printed by the kernel between cells\]\n/, ""));
    await expectEvalTranscript(log, "js-background-errors");
  });

  it("runs JavaScript with top-level await, redeclarations, failed declarations that do not poison, and import()", async () => {
    const p = place();
    writeFileSync(join(p.workspace, "helper.mjs"), "export const greet = (n) => `hi ${n}`;\n");
    const js = (code: string) => evalOk(p, { language: "javascript", code });
    expect(
      await js(
        "const a = await new Promise((r) => setTimeout(() => r(20), 50));\nlet b = 1;\nclass K { twice(n) { return 2 * n } }\nconsole.log('streamed');\nnew K().twice(a + b)",
      ),
    ).toBe("streamed\n42");
    expect(await js("let b = 5; const a = 1; class K { twice(n) { return 3 * n } }\nnew K().twice(a + b)")).toBe("18");
    const failed = await evalCell(p, { language: "javascript", code: "let late = (() => { throw new Error('not yet') })();" });
    expect(failed.errorCode).toBe("cell_error");
    expect(resultText(failed)).toMatch(/Error: not yet\n\s+at <cell \d+>:1/);
    expect(await js("let late = 'fine now'; late")).toBe("'fine now'");
    expect(await js("const { greet } = await import('./helper.mjs');\nconst path = await import('node:path');\ngreet(path.basename('/x/y.txt'))")).toBe(
      "'hi y.txt'",
    );
    expect(await js("display({ shown: true }); 'last'")).toBe("{ shown: true }\n'last'");
  });

  it("calls tools from Python and JavaScript cells over the bridge, audited as bridge calls", async () => {
    const p = place();
    writeFileSync(join(p.workspace, "notes.txt"), "line one\nline two\n");
    expect(await evalOk(p, { code: "text = tool('read', {'path': 'notes.txt'})\nprint(text.splitlines()[1])" })).toBe("line two");
    expect(await evalOk(p, { language: "javascript", code: "(await tool('read', { path: 'notes.txt' })).split('\\n')[0]" })).toBe("'line one'");
    const audit = p.fx.cp.audit.history(p.conversationId).filter((e) => e.origin === "bridge" && e.tool === "read");
    expect(audit.length).toBeGreaterThanOrEqual(2);
    for (const e of audit.slice(-2)) {
      expect(e.runId).toBe(p.runId);
      expect(e.tier).toBe("read");
      expect(e.outcome).toBe("ok");
      expect(e.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(audit.at(-2)?.kernelId).toMatch(/^py-[0-9a-f]{8}$/);
    expect(audit.at(-1)?.kernelId).toMatch(/^js-[0-9a-f]{8}$/);
    const evalAudit = p.fx.cp.audit
      .history(p.conversationId)
      .filter((e) => e.tool === "eval")
      .at(-1);
    expect(evalAudit?.kernelId).toBe(audit.at(-1)?.kernelId);
  });

  it("raises in the cell for a bridge call refused by the plan surface, an unknown tool, or a denied approval", async () => {
    const p = place();
    const plan = await evalCell(p, {
      code: "try:\n    tool('write', {'path': 'nope.txt', 'content': 'x'})\nexcept ToolError as e:\n    print('refused:', e.code)\n    raise",
      bridge_surface: "plan",
    });
    expect(plan.errorCode).toBe("cell_error");
    // The cell printed the ToolError's code itself.
    expect(resultText(plan)).toMatch(/refused: unknown_tool\n/);
    expect(existsSync(join(p.workspace, "nope.txt"))).toBe(false);
    const log = new TranscriptLog();
    addCell(log, "tool('write', …) on the plan surface", plan);
    const js = await evalCell(p, {
      language: "javascript",
      code: "await tool('write', { path: 'nope.txt', content: 'x' })",
      bridge_surface: "readonly_subagent",
    });
    expect(js.errorCode).toBe("cell_error");
    addCell(log, "await tool('write', …) on the readonly_subagent surface", js);
    const unknown = await evalCell(p, { code: "tool('no_such_tool', {})" });
    expect(unknown.errorCode).toBe("cell_error");
    addCell(log, "tool('no_such_tool', {})", unknown);
    const refused = p.fx.cp.audit.history(p.conversationId).filter((e) => e.origin === "bridge" && e.outcome === "refused:unknown_tool");
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused.find((e) => e.tool === "write")?.tier).toBe("write");
    expect(refused.find((e) => e.tool === "write")?.kernelId).toMatch(/^(py|js)-/);

    // Approval: an operator who allows the cell but denies the write it attempts (in a fresh kernel:
    // the one that ran the plan-only cell stays limited to read tools until it is reset).
    const gated = (await p.fx.client.openRun(p.conversationId, { approvalPolicy: "write" })).id;
    p.fx.cp.gate.connect({ approve: async (req) => req.tool.name !== "write" });
    try {
      const denied = await evalCell(p, { code: "tool('write', {'path': 'denied.txt', 'content': 'x'})", reset: true }, gated);
      expect(denied.errorCode).toBe("cell_error");
      addCell(log, "tool('write', …) denied by the operator", denied);
      expect(existsSync(join(p.workspace, "denied.txt"))).toBe(false);
    } finally {
      p.fx.cp.gate.connect(undefined);
    }
    await expectEvalTranscript(log, "bridge-refusals");
  });

  it("interrupts an infinite loop at the idle budget and keeps the output printed before it", async () => {
    const p = place();
    await evalOk(p, { code: "kept = 'still here'" });
    const r = await evalCell(p, { code: "print('before the loop', flush=True)\nwhile True:\n    pass", timeout_seconds: 2 });
    expect(r.errorCode).toBe("timeout");
    const log = new TranscriptLog();
    addCell(log, "an endless Python loop, 2 s budget", r);
    expect(await evalOk(p, { code: "kept" })).toBe("'still here'");
    const js = await evalCell(p, { language: "javascript", code: "console.log('js before'); while (true) {}", timeout_seconds: 2 });
    expect(js.errorCode).toBe("timeout");
    addCell(log, "an endless JavaScript loop, 2 s budget", js);
    await expectEvalTranscript(log, "idle-budget");
  });

  it("does not spend the idle budget while a slow bridge call is pending", async () => {
    const p = place();
    const r = await evalCell(p, {
      code: "import time\nt = time.time()\nout = tool('exec', {'command': 'sleep 4; echo slept'})\nprint(out.splitlines()[0], round(time.time() - t) >= 4)",
      timeout_seconds: 2,
    });
    expect(r.isError, resultText(r)).toBe(false);
    expect(resultText(r)).toBe("slept True");
  });

  it("reports a kernel killed from outside and replaces it", async () => {
    const p = place();
    const pid = await evalOk(p, { code: "import os\nsecret_state = 1\nos.getpid()" });
    // Killed, and dead (a zombie or reaped) before the next cell is sent.
    const kill = await p.fx.client.callTool(p.runId, "exec", {
      command: `kill -9 ${pid}; while [ -e /proc/${pid} ] && ! grep -q ') Z' /proc/${pid}/stat; do sleep 0.05; done`,
    });
    expect(kill.isError, resultText(kill)).toBe(false);
    const r = await evalCell(p, { code: "'secret_state' in globals()" });
    expect(r.isError, resultText(r)).toBe(false);
    const log = new TranscriptLog();
    addCell(log, "'secret_state' in globals(), after the kernel was killed", r);
    const diesCode = "import os\nprint('bye', flush=True)\nos._exit(7)";
    const died = await evalCell(p, { code: diesCode });
    expect(died.errorCode).toBe("kernel_died");
    addCell(log, diesCode, died);
    await expectEvalTranscript(log, "kernel-died");
    expect(await evalOk(p, { code: "2 * 21" })).toBe("42");
  });
}
