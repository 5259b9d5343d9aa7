// cgroup limits: read from the host for both runtimes (under runsc they bound the whole sandbox).
import { runscHostTasks } from "../../model/enclosure.js";
import type { EnclosureCheck } from "./check.js";
import { bad, cgroupText } from "./view.js";

export const pidsLimitCheck: EnclosureCheck = {
  id: "pids limit",
  proves: "the number of processes is bounded (the cgroup under runc, gVisor's RLIMIT_NPROC under runsc)",
  run(view) {
    const { record, hc, gv, host, hostError, gvisor, gvisorError, ins, insideText } = view;
    const hostPids = host?.cgroup.pidsMax;
    const pidsText = (n: number | undefined): string => (n === undefined ? "?" : n < 0 ? "unlimited" : String(n));
    const cgroupSide = host ? cgroupText(host, `pids.max ${pidsText(hostPids)}`) : `host cgroup ${bad(hostError)}`;
    if (!gv) {
      return {
        item: "pids limit",
        expected: `at most ${record.limits.pids} processes`,
        outside: `PidsLimit ${hc.PidsLimit ?? "unset"}; ${cgroupSide}`,
        inside: insideText((i) => `pids.max ${i.pidsMax < 0 ? "unlimited" : i.pidsMax} (cgroup ${i.cgroupVersion})`),
        ok: (hc.PidsLimit ?? 0) > 0 && hostPids === hc.PidsLimit && !!ins && ins.pidsMax === hostPids,
      };
    } else {
      // Under gVisor the limit is gVisor's RLIMIT_NPROC; the cgroup bounds gVisor's own host tasks.
      const nproc = (hc.Ulimits ?? []).find((u) => u.Name === "nproc");
      const wantHost = runscHostTasks(record.limits.pids);
      const inGvisor = gvisor ? (gvisor.nprocHard === -2 ? "not read" : pidsText(gvisor.nprocHard)) : bad(gvisorError);
      return {
        item: "pids limit",
        expected: `at most ${record.limits.pids} processes, enforced by gVisor (RLIMIT_NPROC); gVisor's own host tasks at most ${wantHost} (cgroup)`,
        outside: `nproc ulimit ${nproc ? `${nproc.Soft}/${nproc.Hard}` : "unset"}; PidsLimit ${hc.PidsLimit ?? "unset"}; ${cgroupSide}; gVisor's kernel: a process started inside is limited to ${inGvisor}`,
        inside: insideText((i) =>
          i.pidsMax < 0 ? "pids.max not shown (gVisor has no cgroup files inside)" : `pids.max ${i.pidsMax} (cgroup ${i.cgroupVersion})`,
        ),
        ok:
          nproc?.Soft === record.limits.pids &&
          nproc.Hard === record.limits.pids &&
          gvisor?.nprocHard === record.limits.pids &&
          hc.PidsLimit === wantHost &&
          hostPids === wantHost &&
          !!ins &&
          ins.pidsMax < 0,
      };
    }
  },
};
