// The egress audit's "seccomp" item: system calls pass a seccomp filter (gVisor's own, under runsc).
import type { EnclosureCheck } from "./check.js";
import { bad, every, hostProcessLabel, list } from "./view.js";

export const seccompCheck: EnclosureCheck = {
  id: "seccomp",
  proves: "system calls pass a seccomp filter (gVisor's own, under runsc)",
  run(view) {
    const { gv, host, hostError, gvisor, gvisorError, ins, insideText, seccompUnconfined } = view;
    const engine = seccompUnconfined ? "seccomp=unconfined" : "default profile (no override)";
    const hostSide = host
      ? every(
          host.processes,
          (p) => p.seccomp === 2,
          "in seccomp filter mode",
          hostProcessLabel,
          (p) => `Seccomp ${p.seccomp}`,
        )
      : { ok: false, text: bad(hostError) };
    // Under gVisor the enclosure's calls go to gVisor's kernel, which runs under its own filter on the
    // host; the engine's profile is not applied inside (Debian's runsc cannot start threads under it),
    // so its processes show Seccomp 0 there, and the agent must say the same.
    const gvisorModes = gvisor ? [...new Set(gvisor.processes.map((p) => p.seccomp))] : [];
    const gvisorText = gvisor ? `processes in seccomp mode ${list(gvisorModes.map(String))}` : bad(gvisorError);
    return {
      item: "seccomp",
      expected: gv
        ? "gVisor's kernel answers the enclosure's system calls, and gVisor runs under its own seccomp filter on the host"
        : "the engine's default seccomp profile, in filter mode",
      outside: gv ? `${engine}; host kernel, gVisor's processes: ${hostSide.text}; gVisor's kernel: ${gvisorText}` : `${engine}; host kernel: ${hostSide.text}`,
      inside: insideText((i) => `Seccomp ${i.seccompMode} (${["disabled", "strict", "filter"][i.seccompMode] ?? "?"}); ${i.seccompFilters} filter(s)`),
      ok: gv
        ? !seccompUnconfined && hostSide.ok && gvisorModes.length === 1 && ins?.seccompMode === gvisorModes[0]
        : !seccompUnconfined && hostSide.ok && ins?.seccompMode === 2,
    };
  },
};
