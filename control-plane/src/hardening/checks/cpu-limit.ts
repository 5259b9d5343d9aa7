// The egress audit's "CPU limit" item: CPU time is bounded to the recorded share.
import type { EnclosureCheck } from "./check.js";
import { bad, cgroupText, notShown } from "./view.js";

export const cpuLimitCheck: EnclosureCheck = {
  id: "CPU limit",
  proves: "CPU time is bounded to the recorded share",
  run(view) {
    const { record, hc, gv, host, hostError, ins, insideText, cpus } = view;
    const c = host?.cgroup;
    const hostCpus = c && c.cpuQuotaUs > 0 && c.cpuPeriodUs > 0 ? c.cpuQuotaUs / c.cpuPeriodUs : 0;
    const insideAgrees = !!ins && (Math.abs(ins.cpus - hostCpus) < 0.01 || (gv && ins.cpus === 0));
    return {
      item: "CPU limit",
      expected: `${record.limits.cpus} CPU`,
      outside: `NanoCpus ${hc.NanoCpus ?? 0} (${cpus} CPU); ${c && host ? cgroupText(host, `CFS quota ${hostCpus ? `${c.cpuQuotaUs}/${c.cpuPeriodUs} µs = ${hostCpus} CPU` : "unlimited"}`) : `host cgroup ${bad(hostError)}`}`,
      inside: insideText((i) => (gv && i.cpus === 0 ? `CFS quota ${notShown}` : `CFS quota ${i.cpus ? `${i.cpus} CPU` : "unlimited"}`)),
      ok: cpus > 0 && Math.abs(hostCpus - cpus) < 0.01 && insideAgrees,
    };
  },
};
