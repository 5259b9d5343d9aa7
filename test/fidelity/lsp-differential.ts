// lsp against a direct client of the same language server: the same binary, spoken to with
// vscode-jsonrpc the way an editor (or an agent without Enclave) would, on the same files, at the same
// positions. Each probe (hover, definition, references at one identifier) is asked of both; answers
// are normalized to what Enclave shows (workspace-relative paths, 1-based lines, code-point columns
// inside the workspace) and compared. A disagreement is classified: a deliberate cap of Enclave's,
// or one that went away when both were asked again (a server still loading); anything else is
// unknown, and the suite fails on it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { compileCommandsFor } from "@enclave/agent/lsp/compile-commands.js";
import type { Fixture } from "../helpers/control-plane-fixture.js";
import type { CorpusProject, Language } from "./lsp-debug-corpus.js";

export type Action = "hover" | "definition" | "references";
export const ACTIONS: readonly Action[] = ["hover", "definition", "references"];

export interface Probe {
  language: Language;
  file: string;
  /** 1-based. */
  line: number;
  name: string;
  /** 1-based, among the whole-word occurrences of name on the line. */
  occurrence: number;
  /** UTF-16 offset of the occurrence on its line. */
  character: number;
}

export type Answer =
  { kind: "locations"; total: number; locations: string[] } | { kind: "hover"; text: string; cut: boolean } | { kind: "error"; text: string };

export interface ProbeResult {
  probe: Probe;
  action: Action;
  /** "agree", a known class (cap, hover-cut, settling), or "unknown". */
  verdict: string;
  enclave: Answer;
  direct: Answer;
  /** The first answers, when they disagreed and both were asked again. */
  first?: { enclave: Answer; direct: Answer };
}

const KEYWORDS: Record<Language, Set<string>> = {
  python: new Set(
    "def class return if else elif for while import from as pass in not and or is None True False with try except finally raise lambda yield global nonlocal assert del break continue async await self cls".split(
      " ",
    ),
  ),
  typescript: new Set(
    "const let var function return if else for while import export from class interface type new this extends implements public private protected readonly static async await true false null undefined of in as void number string boolean any unknown never typeof instanceof case switch default break continue throw try catch finally super enum declare keyof".split(
      " ",
    ),
  ),
  go: new Set(
    "func package import return if else for range var const type struct interface map chan go defer select switch case default break continue nil true false int string bool byte rune error len cap append make new".split(
      " ",
    ),
  ),
  c: new Set(
    "int char void return if else for while struct static const unsigned long short signed sizeof typedef enum union extern case switch break continue default do goto volatile register include define ifdef ifndef endif NULL uintptr_t size_t".split(
      " ",
    ),
  ),
};

const COMMENT = /^\s*(#|\/\/|\/\*|\*)/;
const IDENT = /[\p{L}_$][\p{L}\p{N}_$]*/gu;
const WORD = /[\p{L}\p{N}_$]/u;

/** Identifier positions on a line outside string literals (a plain quote scan). */
function identifiers(line: string): Array<{ name: string; at: number }> {
  const inString = new Array<boolean>(line.length).fill(false);
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      inString[i] = true;
      if (c === "\\") {
        inString[i + 1] = true;
        i++;
      } else if (c === quote) quote = "";
    } else if (c === '"' || c === "'" || c === "`") {
      quote = c;
      inString[i] = true;
    }
  }
  return [...line.matchAll(IDENT)].filter((m) => !inString[m.index ?? 0]).map((m) => ({ name: m[0], at: m.index ?? 0 }));
}

/** The occurrence number locateSymbol would need for `name` at `at` (whole-word matches, 1-based). */
function occurrenceOf(line: string, name: string, at: number): number {
  let n = 0;
  for (let i = line.indexOf(name); i !== -1; i = line.indexOf(name, i + 1)) {
    const before = i > 0 ? ([...line.slice(0, i)].pop() ?? "") : "";
    const after = line.codePointAt(i + name.length);
    const whole = !(before && WORD.test(before)) && !(after !== undefined && WORD.test(String.fromCodePoint(after)));
    if (whole) n++;
    if (i === at) return n;
  }
  return n;
}

/** `count` probes spread evenly over every identifier of the project's files (deterministic). */
export function pickProbes(workspace: string, project: CorpusProject, count: number): Probe[] {
  const all: Probe[] = [];
  const keywords = KEYWORDS[project.language];
  for (const file of project.files) {
    const lines = readFileSync(join(workspace, file), "utf8").split(/\r\n|\r|\n/);
    lines.forEach((text, i) => {
      if (COMMENT.test(text) || text.length > 300) return;
      for (const { name, at } of identifiers(text)) {
        if (name.length < 2 || keywords.has(name)) continue;
        all.push({ language: project.language, file, line: i + 1, name, occurrence: occurrenceOf(text, name, at), character: at });
      }
    });
  }
  if (all.length <= count) return all;
  return Array.from({ length: count }, (_, k) => all[Math.floor(((k + 0.5) * all.length) / count)] as Probe);
}

// ---- the direct client ------------------------------------------------------------------------

interface Position {
  line: number;
  character: number;
}
interface Range {
  start: Position;
  end: Position;
}
type LocationAnswer =
  null | { uri: string; range: Range } | Array<{ uri: string; range: Range } | { targetUri: string; targetRange: Range; targetSelectionRange?: Range }>;
type Marked = string | { language: string; value: string };

const LANGUAGE_IDS: Record<Language, string> = { python: "python", typescript: "typescript", go: "go", c: "c" };

/** The environment host placement gives its servers (PATH, a private HOME), for a like-for-like start. */
function serverEnv(home: string): NodeJS.ProcessEnv {
  const tools = join(repoRoot, ".enclave", "host-tools", "node_modules", ".bin");
  return { PATH: `${tools}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`, HOME: home, LANG: "C.UTF-8", TMPDIR: tmpdir() };
}

export class DirectLsp {
  private readonly opened = new Set<string>();
  private progress = 0;
  private lastProgressAt = 0;

  private constructor(
    private readonly proc: ChildProcess,
    private readonly conn: MessageConnection,
    readonly root: string,
    private readonly language: Language,
    /** Folders made for it (its HOME, a compilation database), removed when it stops. */
    private readonly scratch: string[],
  ) {}

  static async start(language: Language, root: string): Promise<DirectLsp> {
    const home = mkdtempSync(join(tmpdir(), "enclave-fid-home-"));
    const scratch = [home];
    let argv: string[];
    if (language === "python") argv = ["pyright-langserver", "--stdio"];
    else if (language === "typescript") argv = ["typescript-language-server", "--stdio"];
    else if (language === "go") argv = ["gopls"];
    else {
      // The same compilation database Enclave derives, in a folder of the client's own.
      const cdb = mkdtempSync(join(tmpdir(), "enclave-fid-cdb-"));
      scratch.push(cdb);
      const mode = compileCommandsFor(root, root, cdb, true);
      argv = ["clangd", "--log=error", ...mode.args];
    }
    const proc = spawn(argv[0] as string, argv.slice(1), { cwd: root, env: serverEnv(home), stdio: ["pipe", "pipe", "pipe"] });
    proc.stderr?.resume();
    const conn = createMessageConnection(
      new StreamMessageReader(proc.stdout as NonNullable<typeof proc.stdout>),
      new StreamMessageWriter(proc.stdin as NonNullable<typeof proc.stdin>),
    );
    const client = new DirectLsp(proc, conn, root, language, scratch);
    const rootUri = pathToFileURL(root).href;
    conn.onRequest("workspace/configuration", (p: { items?: unknown[] }) => (p.items ?? []).map(() => null));
    conn.onRequest("workspace/workspaceFolders", () => [{ uri: rootUri, name: "root" }]);
    conn.onRequest(() => null);
    conn.onNotification("$/progress", (p: { value?: { kind?: string } }) => {
      client.lastProgressAt = Date.now();
      if (p.value?.kind === "begin") client.progress++;
      else if (p.value?.kind === "end") client.progress = Math.max(0, client.progress - 1);
    });
    conn.onNotification(() => undefined);
    conn.listen();
    await conn.sendRequest("initialize", {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: "root" }],
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { configuration: true, workspaceFolders: true },
        textDocument: {
          hover: { contentFormat: ["markdown", "plaintext"] },
          definition: { linkSupport: true },
          references: {},
          publishDiagnostics: { versionSupport: true },
        },
      },
    });
    await conn.sendNotification("initialized", {});
    await conn.sendNotification("workspace/didChangeConfiguration", { settings: {} });
    return client;
  }

  /** Opens a file (once), then waits until the server has announced no work for a moment. */
  async open(abs: string): Promise<string> {
    const uri = pathToFileURL(abs).href;
    if (!this.opened.has(uri)) {
      this.opened.add(uri);
      await this.conn.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: LANGUAGE_IDS[this.language], version: 1, text: readFileSync(abs, "utf8") },
      });
      this.lastProgressAt = Date.now();
      await this.settle(30_000);
    }
    return uri;
  }

  async settle(maxMs: number): Promise<void> {
    const until = Date.now() + maxMs;
    while (Date.now() < until && (this.progress > 0 || Date.now() - this.lastProgressAt < 400)) await new Promise((r) => setTimeout(r, 50));
  }

  async ask(action: Action, probe: Probe, workspace: string): Promise<Answer> {
    const uri = await this.open(join(workspace, probe.file));
    const params = { textDocument: { uri }, position: { line: probe.line - 1, character: probe.character } };
    try {
      if (action === "hover") {
        const h = await this.conn.sendRequest<{ contents?: Marked | Marked[] | { kind: string; value: string } } | null>("textDocument/hover", params);
        return { kind: "hover", text: hoverText(h?.contents).trim(), cut: false };
      }
      const method = action === "definition" ? "textDocument/definition" : "textDocument/references";
      const extra = action === "references" ? { context: { includeDeclaration: true } } : {};
      const answer = await this.conn.sendRequest<LocationAnswer>(method, { ...params, ...extra });
      const list = answer === null ? [] : Array.isArray(answer) ? answer : [answer];
      const locations = list.map((l) =>
        "targetUri" in l ? shown(l.targetUri, l.targetSelectionRange ?? l.targetRange, workspace) : shown(l.uri, l.range, workspace),
      );
      return { kind: "locations", total: locations.length, locations };
    } catch (err) {
      return { kind: "error", text: (err as Error).message };
    }
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest("shutdown"), new Promise((r) => setTimeout(r, 2_000))]);
    } catch {
      // Going anyway.
    }
    this.conn.dispose();
    this.proc.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
    for (const dir of this.scratch) rmSync(dir, { recursive: true, force: true });
  }
}

function hoverText(c: Marked | Marked[] | { kind: string; value: string } | undefined): string {
  if (!c) return "";
  const one = (m: Marked): string => (typeof m === "string" ? m : `\`\`\`${m.language}\n${m.value}\n\`\`\``);
  if (Array.isArray(c)) return c.map(one).join("\n\n");
  if (typeof c === "object" && "kind" in c) return c.value;
  return one(c);
}

// ---- normalization ------------------------------------------------------------------------------

const HOST_TOOLS = [join(repoRoot, ".enclave", "host-tools"), safeRealpath(join(repoRoot, ".enclave", "host-tools"))];

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** A path outside the workspace, with the installation prefixes that differ between the two sides. */
function outsidePath(abs: string): string {
  for (const prefix of [...HOST_TOOLS, "/opt/enclave/host-tools"]) if (abs.startsWith(`${prefix}/`)) return `<host-tools>/${abs.slice(prefix.length + 1)}`;
  return abs.replace(/^\/tmp\/enclave-fid-home-[^/]+\//, "<home>/").replace(/^\/home\/enclave\//, "<home>/");
}

/** What Enclave shows for a location: workspace-relative path, 1-based line, code-point column inside the workspace. */
function shown(uri: string, range: Range, workspace: string): string {
  let abs: string;
  try {
    abs = fileURLToPath(uri);
  } catch {
    return `${uri}:${range.start.line + 1}:${range.start.character + 1}`;
  }
  const rel = relative(workspace, abs);
  if (!rel.startsWith("..") && !rel.startsWith("/")) {
    let col = range.start.character + 1;
    try {
      const line = readFileSync(abs, "utf8").split(/\r\n|\r|\n/)[range.start.line] ?? "";
      col = [...line.slice(0, range.start.character)].length + 1;
    } catch {
      // Unreadable: the raw column.
    }
    return `${rel}:${range.start.line + 1}:${col}`;
  }
  return `${outsidePath(abs)}:${range.start.line + 1}:${range.start.character + 1}`;
}

/** Enclave's answer, read back from the lsp tool's text. */
export async function askEnclave(fx: Fixture, runId: string, action: Action, probe: Probe): Promise<Answer> {
  const symbol = probe.occurrence > 1 ? `${probe.name}#${probe.occurrence}` : probe.name;
  const r = await fx.client.callTool(runId, "lsp", { action, file: probe.file, line: probe.line, symbol });
  const text = resultText(r);
  if (r.isError) return { kind: "error", text };
  const body = text.replace(/\n\([^()]*is still indexing[^]*$/, "");
  if (action === "hover") {
    if (/has no hover information for/.test(body.split("\n")[0] ?? "")) return { kind: "hover", text: "", cut: false };
    const rest = body.slice(body.indexOf("\n") + 1);
    const cut = /\n\[… cut at \d+ characters\]$/.test(rest);
    return { kind: "hover", text: rest.replace(/\n\[… cut at \d+ characters\]$/, "").trim(), cut };
  }
  const first = body.split("\n")[0] ?? "";
  if (/^No (definition|reference)s? found/.test(first)) return { kind: "locations", total: 0, locations: [] };
  const total = Number(/^(\d+) /.exec(first)?.[1] ?? Number.NaN);
  const locations = body
    .split("\n")
    .slice(1)
    .map((l) => /^ {2}(.+?):(\d+):(\d+)(?: {2}.*)?$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]?.startsWith("/") ? outsidePath(m[1]) : m[1]}:${m[2]}:${m[3]}`);
  return { kind: "locations", total, locations };
}

// ---- comparison ---------------------------------------------------------------------------------

const same = (a: Answer, b: Answer): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Agreement, a deliberate difference of Enclave's, or nothing known. */
export function classify(enclave: Answer, direct: Answer): string | undefined {
  if (enclave.kind === "error" && direct.kind === "error") return "agree";
  if (enclave.kind === "hover" && direct.kind === "hover") {
    if (enclave.text === direct.text) return "agree";
    // Enclave cuts a hover at lspHoverChars.
    if (enclave.cut && direct.text.startsWith(enclave.text)) return "hover-cut";
    return undefined;
  }
  if (enclave.kind === "locations" && direct.kind === "locations") {
    if (same(enclave, direct)) return "agree";
    // Enclave lists the first N of the server's answer and says how many there are.
    if (
      enclave.total === direct.total &&
      enclave.locations.length < direct.total &&
      JSON.stringify(enclave.locations) === JSON.stringify(direct.locations.slice(0, enclave.locations.length))
    )
      return "cap";
    // The same locations in another order: the server's own (clangd merges its index in no fixed
    // order from one process to the next); Enclave keeps whatever order the server gives.
    const sorted = (l: string[]): string => JSON.stringify([...l].sort());
    if (enclave.total === direct.total && enclave.locations.length === direct.locations.length && sorted(enclave.locations) === sorted(direct.locations))
      return "server-order";
    // The same locations in the workspace, and outside it (system headers) one side lists a few the
    // other does not: clangd's merged index shows a header as one including file saw it (its macros
    // decide which of two guarded typedefs is there), and which one depends on the server's history.
    const inside = (l: string[]): string => JSON.stringify(l.filter((x) => !x.startsWith("/") && !x.startsWith("<")));
    const outside = (l: string[]): string[] => l.filter((x) => x.startsWith("/") || x.startsWith("<"));
    const subset = (a: string[], b: string[]): boolean => a.every((x) => b.includes(x));
    const [eo, dout] = [outside(enclave.locations), outside(direct.locations)];
    const complete = enclave.locations.length === enclave.total && direct.locations.length === direct.total;
    // Or each lists one guarded typedef the other does not (gid_t at unistd.h's or sys/types.h's), as many each.
    const systemHeaders = (l: string[]): boolean => l.every((x) => x.startsWith("/usr/include/"));
    const swapped = eo.length === dout.length && systemHeaders(eo) && systemHeaders(dout);
    if (complete && inside(enclave.locations) === inside(direct.locations) && (subset(eo, dout) || subset(dout, eo) || swapped)) return "header-view";
    // In an enclosure the server is the runtime image's, installed under its own prefix: its bundled
    // files (pyright's typeshed) are the host tools' same files at another path.
    const imagePaths = enclave.locations.map((l) => l.replace(/^\/opt\/enclave\/node-tools\//, "<host-tools>/"));
    if (imagePaths.some((l, i) => l !== enclave.locations[i]) && classify({ ...enclave, locations: imagePaths }, direct)) return "image-path";
  }
  return undefined;
}

export interface LanguageRun {
  language: Language;
  results: ProbeResult[];
}

/** Every probe of one language through both; a disagreement is asked once more of both before it counts. */
export async function runLanguage(fx: Fixture, runId: string, workspace: string, project: CorpusProject, probes: Probe[]): Promise<LanguageRun> {
  // The two sides are separate processes: each probe is asked of both at once.
  const starting = DirectLsp.start(project.language, join(workspace, project.root));
  starting.catch(() => undefined);
  const results: ProbeResult[] = [];
  const both = async (action: Action, probe: Probe): Promise<[Answer, Answer]> => {
    const direct = await starting;
    return Promise.all([askEnclave(fx, runId, action, probe), direct.ask(action, probe, workspace)]);
  };
  try {
    for (const probe of probes) {
      for (const action of ACTIONS) {
        const t0 = Date.now();
        let [enclave, theirs] = await both(action, probe);
        if (process.env.FIDELITY_TRACE) process.stderr.write(`${probe.language} ${action} ${probe.file}:${probe.line} ${Date.now() - t0} ms\n`);
        let verdict = classify(enclave, theirs);
        let first: ProbeResult["first"];
        if (!verdict) {
          first = { enclave, direct: theirs };
          // A server still loading answers differently; both are asked again once it has settled.
          await (await starting).settle(10_000);
          [enclave, theirs] = await both(action, probe);
          const again = classify(enclave, theirs);
          verdict = again ? (again === "agree" ? "settling" : again) : "unknown";
        }
        results.push({ probe, action, verdict, enclave, direct: theirs, ...(first ? { first } : {}) });
      }
    }
  } finally {
    await starting.then(
      (d) => d.stop(),
      () => undefined,
    );
  }
  return { language: project.language, results };
}

export function summarize(runs: readonly LanguageRun[]): { probes: number; agree: number; known: Record<string, number>; unknown: ProbeResult[] } {
  const all = runs.flatMap((r) => r.results);
  const known: Record<string, number> = {};
  for (const r of all) if (r.verdict !== "agree" && r.verdict !== "unknown") known[r.verdict] = (known[r.verdict] ?? 0) + 1;
  return { probes: all.length, agree: all.filter((r) => r.verdict === "agree").length, known, unknown: all.filter((r) => r.verdict === "unknown") };
}
