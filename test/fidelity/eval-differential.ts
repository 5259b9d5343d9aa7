// The eval differential suite: every session of the corpus run through Enclave's eval (a real control
// plane, host placement, the real kernels) and through the reference (Jupyter for Python, Node's REPL
// for JavaScript), each cell's output made comparable (the reference's through the same transcript
// rules Enclave's results use) and classified by eval-compare.ts.
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
import { type CellVerdict, classify, DISPLAY_UPDATED, OUTPUT_CLEARED, type Part } from "./eval-compare.js";
import { fidelityDir, type Language, prepareWorkspace, type Session } from "./eval-corpus.js";

export interface CellResult extends CellVerdict {
  session: string;
  index: number;
  code: string;
}

export interface LanguageReport {
  language: Language;
  cells: CellResult[];
  identical: number;
  deliberate: number;
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

/** Runs the sessions of one language on both sides and classifies every cell. */
export async function runDifferential(language: Language, sessions: Session[]): Promise<LanguageReport> {
  const scratch = mkdtempSync(join(tmpdir(), "enclave-eval-fidelity-"));
  process.env.ENCLAVE_PYTHON = hostPython();
  const fx = await startFixture();
  try {
    mkdirSync(join(scratch, "enclave"));
    const conv = await fx.client.createConversation(`fidelity-${language}`, join(scratch, "enclave"));
    const runId = (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id;
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
    const report: LanguageReport = { language, cells: [], identical: 0, deliberate: 0, unknown: 0, rules: {} };
    for (const [si, session] of sessions.entries()) {
      const mine = await enclave(fx, language, conv.workspacePath, runId, session);
      for (const [index, code] of session.cells.entries()) {
        const verdict = classify(language, code, mine[index] ?? [], refs[si]?.[index] ?? [], {
          enclaveWorkspace: conv.workspacePath,
          referenceWorkspace: peerWorkspaces[si] as string,
          enclaveCell: index + 1,
          referenceCell: refCounts[si]?.[index] ?? index + 1,
        });
        report.cells.push({ session: session.name, index, code, ...verdict });
        report[verdict.verdict] += 1;
        for (const rule of verdict.rules) report.rules[rule] = (report.rules[rule] ?? 0) + 1;
      }
    }
    return report;
  } finally {
    await fx.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function pct(n: number, of: number): string {
  return of ? `${((100 * n) / of).toFixed(1)} %` : "-";
}

export function summary(r: LanguageReport): string {
  const n = r.cells.length;
  const rules = Object.entries(r.rules)
    .sort((a, b) => b[1] - a[1])
    .map(([id, count]) => `${id} ${count}`)
    .join(", ");
  return `${r.language}: ${n} cells — identical ${r.identical} (${pct(r.identical, n)}), deliberate ${r.deliberate} (${pct(r.deliberate, n)}), unknown ${r.unknown}${rules ? `\n  deliberate differences by rule (a cell may need several): ${rules}` : ""}`;
}
