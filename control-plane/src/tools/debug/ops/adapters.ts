// adapters: every debug adapter the agent knows (it owns their ids), and whether it can start for
// this checkout (and why not).
import { z } from "zod";
import { DebugAdapterState } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { text } from "../../tool.js";
import { defineOp } from "../debug-op.js";

const STATE_TEXT: Partial<Record<DebugAdapterState, string>> = {
  [DebugAdapterState.DEBUG_ADAPTER_STATE_USABLE]: "usable",
  [DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_MARKER]: "missing root marker",
  [DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_BINARY]: "missing binary",
};

export const adaptersOp = defineOp({
  op: "adapters",
  args: z.strictObject({ op: z.literal("adapters") }),
  async run(_args, ctx) {
    const { adapters } = await ctx.agent.adapters();
    const lines = adapters.map((a) => {
      const markers = a.markers.length ? ` [markers: ${a.markers.join(", ")}]` : "";
      const interp = a.interpreter ? `\n    interpreter: ${a.interpreter}` : "";
      const uses = [a.extensions.length ? `launch picks it for ${a.extensions.join(", ")}` : "", a.attach ? "attach by port" : ""].filter(Boolean);
      const usage = uses.length ? `\n    ${uses.join("; ")}` : "";
      return `${a.id}: ${STATE_TEXT[a.state] ?? "state unknown to this control plane"}${markers}\n    ${a.detail}${interp}${usage}`;
    });
    return text(lines.join("\n"));
  },
});
