// Runs one cell over the agent's Eval stream. Output and displays are passed on as they stream and
// gathered for the result; bridge calls the cell makes come down the same stream and are dispatched
// for the same run (same registry, surface, approval gate, audit) before their answer goes back up.
// Their surface is the narrowest of this cell's and of every earlier cell's in the same kernel.
import { joinLines } from "../../text/wording.js";
import type { ServiceError } from "@grpc/grpc-js";
import type { EvalDone, EvalEvent, KernelInfo } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import type { AgentClient } from "../../agent-client/agent-client.js";
import { AgentOutputBudget } from "../../agent-client/output-budget.js";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import type { Surface } from "../../model/run.js";
import type { ToolContext } from "../tool.js";
import { CellTranscript, renderDisplay } from "./cell-transcript.js";
import { kernelCeilings, surfaceWithin } from "./kernel-ceiling.js";
import type { CellData } from "./eval-details.js";

/**
 * The bridge call tools() in a cell makes: answered here with what the cell may call (JSON), never
 * dispatched. No tool can have this name (tool names start with a letter).
 */
export const LIST_TOOLS_CALL = "@tools";

export interface CellRequest {
  language: "python" | "javascript";
  code: string;
  reset: boolean;
  timeoutSeconds: number;
  bridgeSurface: Surface | undefined;
}

export interface CellOutcome {
  kernel: KernelInfo | undefined;
  done: EvalDone;
  transcript: CellTranscript;
  /** What the cell sent, kept apart for the result's details. */
  data: CellData;
  bridgeCalls: number;
  /** The cell had no code (a reset alone). */
  emptyCell: boolean;
}

export function runCell(client: AgentClient, req: CellRequest, ctx: ToolContext): Promise<CellOutcome> {
  const call = client.eval();
  const transcript = new CellTranscript();
  const data: CellData = { stdout: [], stderr: [], displays: [] };
  let kernel: KernelInfo | undefined;
  /** What this cell's bridge calls may reach, known once the agent names the kernel. */
  let ceiling: Surface | undefined;
  const ownSurface = req.bridgeSurface ?? ctx.run.surface;
  let bridgeCalls = 0;
  const bridgeAbort = new AbortController();
  const onAbort = (): void => {
    call.write({ message: { $case: "interrupt", value: true } });
    bridgeAbort.abort();
  };

  const refuse = (callId: string, errorCode: string, text: string): void => {
    call.write({ message: { $case: "bridgeReply", value: { callId, isError: true, errorCode, text } } });
  };

  const bridge = async (callId: string, tool: string, argumentsJson: string): Promise<void> => {
    // The agent stops a cell at the same limit; this side holds it whatever the agent sends.
    if (bridgeCalls >= LIMITS.bridgeCallsPerCell) {
      refuse(callId, "bridge_limit", `this cell has made ${LIMITS.bridgeCallsPerCell} bridge calls, the most one cell may make, so further tool() calls fail`);
      return;
    }
    if (!ceiling) {
      refuse(callId, "failed", "the agent sent a bridge call before naming the kernel that runs the cell; the call was not run");
      return;
    }
    bridgeCalls += 1;
    if (tool === LIST_TOOLS_CALL) {
      const listed = ctx.callable(ceiling).map((t) => ({ name: t.name, tier: t.tier, description: t.description, input_schema: t.inputSchema }));
      call.write({ message: { $case: "bridgeReply", value: { callId, isError: false, errorCode: "", text: JSON.stringify(listed) } } });
      return;
    }
    ctx.emit({ kind: "progress", text: `the cell calls \`${tool}\`` });
    const res = await ctx.dispatch({
      tool,
      argumentsJson,
      origin: "bridge",
      kernelId: kernel?.kernelId ?? "",
      surface: ceiling,
      signal: bridgeAbort.signal,
    });
    let text = joinLines(
      res.parts.map((p) => (p.type === "text" ? p.text : p.type === "image" ? `[image ${p.mimeType}, ${p.data.length} bytes]` : "")).filter(Boolean),
    );
    if (res.errorCode === "unknown_tool" && !surfaceWithin(ownSurface, ceiling)) {
      text +=
        `. This kernel's tool() calls are limited to surface \`${ceiling}\` because an earlier cell in it ran with bridge_surface \`${ceiling}\` ` +
        "(code such a cell leaves in the kernel could be making this call). Reset the kernel (eval with reset: true) to call tools with a wider surface.";
    }
    call.write({ message: { $case: "bridgeReply", value: { callId, isError: res.isError, errorCode: res.errorCode, text } } });
  };

  return new Promise<CellOutcome>((resolve, reject) => {
    let done: EvalDone | undefined;
    const budget = new AgentOutputBudget("cell");
    let stopped = false;
    call.on("data", (ev: EvalEvent) => {
      const e = ev.event;
      if (!e || stopped) return;
      try {
        if (e.$case === "stdout" || e.$case === "stderr") budget.take(e.value.length);
        else if (e.$case === "display") budget.take(e.value.items.reduce((n, item) => n + item.data.length + item.mimeType.length, 0));
      } catch (err) {
        stopped = true;
        ctx.signal.removeEventListener("abort", onAbort);
        bridgeAbort.abort();
        call.cancel();
        reject(err as EnclaveError);
        return;
      }
      switch (e.$case) {
        case "kernel":
          // Named once per cell: a second name must not start a fresh ceiling mid-cell.
          if (kernel) break;
          kernel = e.value;
          ceiling = kernelCeilings.enter(ctx.run.conversationId, req.language, kernel.kernelId, ownSurface);
          break;
        case "stdout":
        case "stderr":
          transcript.output(e.$case, e.value);
          data[e.$case].push(e.value);
          ctx.emit({ kind: "output", stream: e.$case, data: e.value });
          break;
        case "display": {
          transcript.display(e.value);
          data.displays.push(e.value);
          const shown = renderDisplay(e.value);
          if (shown.text) ctx.emit({ kind: "output", stream: "stdout", data: Buffer.from(`${shown.text}\n`) });
          for (const p of shown.parts) if (p.type === "image") ctx.emit({ kind: "progress", text: `[image ${p.mimeType}, ${p.data.length} bytes]` });
          break;
        }
        case "bridgeCall":
          void bridge(e.value.callId, e.value.tool, e.value.argumentsJson).catch((err: unknown) => refuse(e.value.callId, "failed", (err as Error).message));
          break;
        case "done":
          done = e.value;
          break;
      }
    });
    call.on("error", (err) => {
      ctx.signal.removeEventListener("abort", onAbort);
      bridgeAbort.abort();
      reject(client.translate(err as ServiceError));
    });
    call.on("end", () => {
      ctx.signal.removeEventListener("abort", onAbort);
      bridgeAbort.abort();
      call.end();
      if (done) resolve({ kernel, done, transcript, data, bridgeCalls, emptyCell: req.code.trim() === "" });
      else reject(new EnclaveError("agent_lost", "the kernel's stream ended without saying how the cell ended"));
    });
    ctx.signal.addEventListener("abort", onAbort);
    call.write({
      message: {
        $case: "start",
        value: { language: req.language, code: req.code, reset: req.reset, idleTimeoutMs: req.timeoutSeconds * 1000 },
      },
    });
    if (ctx.signal.aborted) onAbort();
  });
}
