// adapters: every debug adapter the agent knows (it owns their ids), and whether it can start for
// this checkout (and why not).
import { z } from "zod";
import { DebugAdapterState } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { defineOp } from "../debug-op.js";

const STATE_TEXT: Partial<Record<DebugAdapterState, string>> = {
  [DebugAdapterState.DEBUG_ADAPTER_STATE_USABLE]: "usable",
  [DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_MARKER]: "missing root marker",
  [DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_BINARY]: "missing binary",
};

const STATES = ["usable", "missing_marker", "missing_binary", "unknown"] as const;
const STATE: Partial<Record<DebugAdapterState, (typeof STATES)[number]>> = {
  [DebugAdapterState.DEBUG_ADAPTER_STATE_USABLE]: "usable",
  [DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_MARKER]: "missing_marker",
  [DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_BINARY]: "missing_binary",
};

export const ADAPTERS_DETAILS = z.object({
  op: z.literal("adapters"),
  adapters: z.array(
    z.object({
      id: z.string().describe("what launch and attach take as `adapter`"),
      state: z.enum(STATES),
      markers: z.array(z.string()).describe("workspace-relative root markers found"),
      attach: z.boolean().describe("it can attach by port to a program already listening"),
      extensions: z.array(z.string()).describe("program file extensions that pick it when launch names no adapter"),
    }),
  ),
});

export const adaptersOp = defineOp({
  op: "adapters",
  args: z.strictObject({ op: z.literal("adapters") }),
  // The command and interpreter the text gives are paths of the machine: left out here.
  details: ADAPTERS_DETAILS,
  async run(_args, ctx) {
    const { adapters } = await ctx.agent.adapters();
    const lines = adapters.map((a) => {
      const markers = a.markers.length ? ` [markers: ${a.markers.join(", ")}]` : "";
      const interp = a.interpreter ? `\n    interpreter: ${a.interpreter}` : "";
      const uses = [a.extensions.length ? `launch picks it for ${a.extensions.join(", ")}` : "", a.attach ? "attach by port" : ""].filter(Boolean);
      const usage = uses.length ? `\n    ${uses.join("; ")}` : "";
      return `${a.id}: ${STATE_TEXT[a.state] ?? "state unknown to this control plane"}${markers}\n    ${a.detail}${interp}${usage}`;
    });
    const details = {
      op: "adapters" as const,
      adapters: adapters.map((a) => ({ id: a.id, state: STATE[a.state] ?? "unknown", markers: a.markers, attach: a.attach, extensions: a.extensions })),
    };
    return { parts: [{ type: "text", text: lines.join("\n") }], details };
  },
});
