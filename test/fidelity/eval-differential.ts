// The eval differential suite: every session of the corpus run through Enclave's eval (a real control
// plane, the real kernels, on host placement and in an enclosure) and through the reference (Jupyter
// for Python, Node's REPL for JavaScript), each cell's output made comparable (the reference's through
// the same transcript rules Enclave's results use) and classified by eval-compare.ts.
import { joinLines } from "@enclave/control-plane/text/wording.js";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { CellTranscript } from "@enclave/control-plane/tools/eval/cell-transcript.js";
import type { ContentPart } from "@enclave/control-plane/tools/tool.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { type CellVerdict, classify, DISPLAY_UPDATED, normalize, OUTPUT_CLEARED, type Part } from "./eval-compare.js";
import { placementDifference, rewriteParts, rulesChanging } from "./eval-placement.js";
import type { Placement } from "./tool-placements.js";
import { fidelityDir, type Language, prepareWorkspace, type Session } from "./eval-corpus.js";

export interface CellResult extends Omit<CellVerdict, "verdict"> {
  /** "placement": differs from the reference only as an enclosure is expected to (see placementDifferences). */
  verdict: CellVerdict["verdict"] | "placement";
  session: string;
  index: number;
  code: string;
  /** Enclave's output before any rule (normalised alone: its own workspace, addresses, timings). */
  raw: Part[];
}

export interface LanguageReport {
  language: Language;
  placement: Placement;
  /** The interpreter versions of each side (an enclosure's image has its own Python). */
  interpreter: { enclave: string; reference: string };
  cells: CellResult[];
  identical: number;
  deliberate: number;
  /** Cells that differ from the reference only as the enclosure is expected to differ from host
   * placement (its interpreter's version, its paths), host placement's same cell agreeing. */
  placementDifferences: number;
  unknown: number;
  /** How many cells each deliberate rule was needed for. */
  rules: Record<string, number>;
}

const LABEL = "a cell of the eval differential suite";
/** The pause before each JavaScript cell, the same as eval-node-peer.mjs's. */
const SETTLE_MS = 50;

/** Adjacent text parts as the one text they read as: which of them repeat the stream is not compared. */
function mergeTexts(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    const prev = out[out.length - 1];
    if (p.kind === "text" && prev?.kind === "text") prev.text = joinLines([prev.text, p.text]);
    else out.push({ ...p });
  }
  return out;
}

function enclaveParts(r: ToolResult): Part[] {
  const parts: Part[] = [];
  for (const p of r.parts) {
    const part = p.part;
    if (part?.$case === "text") parts.push({ kind: "text", text: part.value });
    else if (part?.$case === "image") parts.push({ kind: "image", mime: part.value.mimeType });
    else if (part?.$case === "rich") parts.push({ kind: "rich", mime: part.value.mimeType, text: part.value.text });
  }
  return mergeTexts(parts);
}

function fromContent(parts: ContentPart[]): Part[] {
  const out: Part[] = parts.map((p) =>
    p.type === "text"
      ? { kind: "text", text: p.text }
      : p.type === "image"
        ? { kind: "image", mime: p.mimeType }
        : { kind: "rich", mime: p.mimeType, text: p.text },
  );
  return out.length ? mergeTexts(out) : [{ kind: "text", text: "(no output)" }];
}

type JupyterOutput =
  | { type: "stream"; name: "stdout" | "stderr"; text: string }
  | { type: "display" | "result" | "update"; data: Record<string, string> }
  | { type: "clear" }
  | { type: "error"; ename: string; evalue: string; traceback: string };

const BINARY = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A Jupyter cell's outputs through the transcript rules an Enclave result is made with. */
function jupyterParts(outputs: JupyterOutput[]): Part[] {
  const t = new CellTranscript();
  for (const o of outputs) {
    if (o.type === "stream") t.output(o.name, Buffer.from(o.text));
    else if (o.type === "error") t.line(o.traceback.trimEnd());
    else if (o.type === "clear") t.line(OUTPUT_CLEARED);
    else {
      if (o.type === "update") t.line(DISPLAY_UPDATED);
      const items = Object.entries(o.data).map(([mimeType, v]) => ({ mimeType, data: BINARY.has(mimeType) ? Buffer.from(v, "base64") : Buffer.from(v) }));
      t.display({ echo: o.type === "result", items });
    }
  }
  return fromContent(t.parts());
}

interface JupyterCell {
  count: number | null;
  outputs: JupyterOutput[];
}

function jupyter(sessions: Array<{ name: string; workspace: string; cells: string[] }>): JupyterCell[][] {
  const out = execFileSync(hostPython(), [join(fidelityDir(), "eval_jupyter_peer.py")], {
    input: JSON.stringify({ sessions }),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 30 * 60_000,
  });
  return (JSON.parse(out) as { sessions: Array<{ cells: JupyterCell[] }> }).sessions.map((s) => s.cells);
}

function nodeRepl(workspace: string, cells: string[]): Part[][] {
  const out = execFileSync(process.execPath, [join(fidelityDir(), "eval-node-peer.mjs")], {
    cwd: workspace,
    input: JSON.stringify({ cells }),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 30 * 60_000,
  });
  const res = JSON.parse(out) as { cells: Array<{ before: string; text: string }> };
  return res.cells.map(({ before, text }) => {
    const shown = `${before ? `[printed by the kernel between cells]\n${before}` : ""}${text}`.replace(/\n+$/, "");
    return [{ kind: "text", text: shown === "" ? "(no output)" : shown }];
  });
}

async function enclave(fx: Fixture, language: Language, workspace: string, runId: string, session: Session): Promise<Part[][]> {
  prepareWorkspace(workspace);
  const out: Part[][] = [];
  for (const [i, code] of session.cells.entries()) {
    // As the REPL reference does: what a cell left running has a moment to print before the next one.
    if (language === "javascript" && i > 0) await new Promise((r) => setTimeout(r, SETTLE_MS));
    const r = await fx.client.callTool(runId, "eval", { description: LABEL, code, language, reset: i === 0, timeout_seconds: 60 });
    out.push(enclaveParts(r));
  }
  return out;
}

const VERSION_CODE: Record<Language, string> = { python: "import sys\nprint(sys.version.split()[0])", javascript: "console.log(process.version)" };

function referenceVersion(language: Language): string {
  if (language === "javascript") return process.version;
  return execFileSync(hostPython(), ["-c", VERSION_CODE.python], { encoding: "utf8" }).trim();
}

/** An enclosure's kernels get the memory the corpus's pandas and multiprocessing cells need. */
const ENCLOSURE_MEMORY = 1024 * 1024 ** 2;

/** Runs the sessions of one language on host placement only (the bounded run of `make test`). */
export async function runDifferential(language: Language, sessions: Session[]): Promise<LanguageReport> {
  const [report] = await runDifferentials(language, sessions, ["host"]);
  if (!report) throw new Error("no report");
  return report;
}

/** Runs the sessions of one language through the reference once and through Enclave on each
 * placement (host first: an enclosure's cell is compared with host placement's too), and classifies
 * every cell. */
export async function runDifferentials(language: Language, sessions: Session[], placements: Placement[]): Promise<LanguageReport[]> {
  const scratch = mkdtempSync(join(tmpdir(), "enclave-eval-fidelity-"));
  process.env.ENCLAVE_PYTHON = hostPython();
  const fx = await startFixture();
  try {
    const peerWorkspaces = sessions.map((s) => {
      const dir = join(scratch, "reference", s.name);
      mkdirSync(dir, { recursive: true });
      prepareWorkspace(dir);
      return dir;
    });
    // The reference's own number for each cell (Jupyter counts a cell IPython's tokenizer refused twice).
    let refCounts: Array<Array<number | null>> = sessions.map((s) => s.cells.map((_, i) => i + 1));
    let refs: Part[][][];
    if (language === "python") {
      const cells = jupyter(sessions.map((s, i) => ({ name: s.name, workspace: peerWorkspaces[i] as string, cells: s.cells })));
      refs = cells.map((session) => session.map((c) => jupyterParts(c.outputs)));
      refCounts = cells.map((session) => session.map((c) => c.count));
    } else {
      refs = sessions.map((s, i) => nodeRepl(peerWorkspaces[i] as string, s.cells));
    }
    const reference = referenceVersion(language);
    const reports: LanguageReport[] = [];
    for (const placement of [...placements].sort((a, b) => (a === b ? 0 : a === "host" ? -1 : 1))) {
      mkdirSync(join(scratch, placement));
      const conv = await fx.client.createConversation(`fidelity-${language}-${placement}`, join(scratch, placement));
      if (placement === "enclosure") await fx.client.startEnclosure(conv.id, { memoryBytes: ENCLOSURE_MEMORY });
      const runId = (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id;
      const version = enclaveParts(await fx.client.callTool(runId, "eval", { description: LABEL, code: VERSION_CODE[language], language, reset: true }));
      const interpreter = { enclave: version[0]?.kind === "text" ? version[0].text.trim() : "?", reference };
      const host = reports.find((r) => r.placement === "host");
      const report: LanguageReport = {
        language,
        placement,
        interpreter,
        cells: [],
        identical: 0,
        deliberate: 0,
        placementDifferences: 0,
        unknown: 0,
        rules: {},
      };
      for (const [si, session] of sessions.entries()) {
        const mine = await enclave(fx, language, conv.workspacePath, runId, session);
        for (const [index, code] of session.cells.entries()) {
          const ctx = {
            enclaveWorkspace: conv.workspacePath,
            referenceWorkspace: peerWorkspaces[si] as string,
            enclaveCell: index + 1,
            referenceCell: refCounts[si]?.[index] ?? index + 1,
          };
          let verdict: Omit<CellResult, "session" | "index" | "code" | "raw"> = classify(language, code, mine[index] ?? [], refs[si]?.[index] ?? [], ctx);
          if (verdict.verdict === "unknown" && host) {
            // Where host placement's same cell agreed, the enclosure's may differ from it only as expected.
            const onHost = host.cells.find((c) => c.session === session.name && c.index === index);
            const why =
              onHost && onHost.verdict !== "unknown"
                ? placementDifference(language, code, normalize(mine[index] ?? [], [conv.workspacePath]), onHost.raw, interpreter)
                : undefined;
            if (why) {
              verdict = { ...verdict, verdict: "placement", rules: why };
            } else {
              // Or: with what the enclosure's interpreter changes rewritten on both sides, the cell is as the reference's.
              const again = classify(
                language,
                code,
                rewriteParts(mine[index] ?? [], interpreter, code),
                rewriteParts(refs[si]?.[index] ?? [], interpreter, code),
                ctx,
              );
              if (again.verdict !== "unknown")
                verdict = {
                  ...again,
                  verdict: "placement",
                  rules: [...rulesChanging([mine[index] ?? [], refs[si]?.[index] ?? []], interpreter, code), ...again.rules],
                };
            }
          }
          report.cells.push({ session: session.name, index, code, raw: normalize(mine[index] ?? [], [conv.workspacePath]), ...verdict });
          if (verdict.verdict === "placement") report.placementDifferences += 1;
          else report[verdict.verdict] += 1;
          for (const rule of verdict.rules) report.rules[rule] = (report.rules[rule] ?? 0) + 1;
        }
      }
      reports.push(report);
      await fx.client.deleteConversation(conv.id).catch(() => undefined);
    }
    return reports;
  } finally {
    await fx.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function pct(n: number, of: number): string {
  return of ? `${((100 * n) / of).toFixed(1)} %` : "-";
}

export function summary(r: LanguageReport): string {
  const n = r.cells.length;
  const rules = Object.entries(r.rules)
    .sort((a, b) => b[1] - a[1])
    .map(([id, count]) => `${id} ${count}`)
    .join(", ");
  const versions = `${r.language === "python" ? "Python" : "Node"} ${r.interpreter.enclave}${r.interpreter.enclave === r.interpreter.reference ? ", as the reference's" : `, the reference's ${r.interpreter.reference}`}`;
  return `${r.language} on ${r.placement} (${versions}): ${n} cells — identical ${r.identical} (${pct(r.identical, n)}), deliberate ${r.deliberate} (${pct(r.deliberate, n)}), enclosure differences ${r.placementDifferences}, unknown ${r.unknown}${rules ? `\n  deliberate differences by rule (a cell may need several): ${rules}` : ""}`;
}
