// adapters: every debug adapter the agent knows (it owns their ids), and whether it can start for
// this checkout (and why not).
import { z } from "zod";
import { text } from "../../tool.js";
import { defineOp } from "../debug-op.js";

const STATE_TEXT: Record<string, string> = { usable: "usable", missing_marker: "missing root marker", missing_binary: "missing binary" };

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
      return `${a.id}: ${STATE_TEXT[a.state] ?? a.state}${markers}\n    ${a.detail}${interp}${usage}`;
    });
    return text(lines.join("\n"));
  },
});
