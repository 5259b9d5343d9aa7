// The egress audit's "memory limit" item: memory is bounded, with no swap beyond it.
import type { EnclosureCheck } from "./check.js";
import { bad, cgroupText, notShown } from "./view.js";

export const memoryLimitCheck: EnclosureCheck = {
  id: "memory limit",
  proves: "memory is bounded, with no swap beyond it",
  run(view) {
    const { record, hc, gv, host, hostError, ins, insideText } = view;
    const c = host?.cgroup;
    const swapOk = !!c && (c.swapBytes === undefined || c.swapBytes === 0);
    const insideAgrees = !!ins && (ins.memoryMaxBytes === c?.memoryBytes || (gv && ins.memoryMaxBytes < 0));
    return {
      item: "memory limit",
      expected: `${record.limits.memoryBytes} bytes, no swap beyond it`,
      outside: `Memory ${hc.Memory ?? 0}; MemorySwap ${hc.MemorySwap ?? 0}; ${c && host ? cgroupText(host, `memory limit ${c.memoryBytes < 0 ? "unlimited" : c.memoryBytes}, swap beyond it ${c.swapBytes === undefined ? "not accounted" : c.swapBytes < 0 ? "unlimited" : c.swapBytes}`) : `host cgroup ${bad(hostError)}`}`,
      inside: insideText((i) =>
        gv && i.memoryMaxBytes < 0 ? `memory limit ${notShown}` : `memory limit ${i.memoryMaxBytes < 0 ? "unlimited" : i.memoryMaxBytes}`,
      ),
      ok: (hc.Memory ?? 0) > 0 && hc.MemorySwap === hc.Memory && c?.memoryBytes === hc.Memory && swapOk && insideAgrees,
    };
  },
};
