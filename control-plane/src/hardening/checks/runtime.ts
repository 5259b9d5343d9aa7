// The egress audit's "runtime" item: the container runs under the runtime its record names, and on the host only that runtime's processes run.
import type { EnclosureCheck } from "./check.js";
import { bad, gvisorRole, hostProcessLabel, NOT_ASKED } from "./view.js";

export const runtimeCheck: EnclosureCheck = {
  id: "runtime",
  proves: "the container runs under the runtime its record names, and on the host only that runtime's processes run",
  run(view) {
    const { outside, hc, gv, host, hostError, reg, sandbox } = view;
    let outsideText: string;
    let ok: boolean;
    if (!host) {
      outsideText = `engine runtime ${hc.Runtime || "(default)"}; host processes ${bad(hostError)}`;
      ok = false;
    } else if (!gv) {
      const foreign = host.processes.filter((p) => /^runsc-/.test(p.argv[0] ?? ""));
      outsideText = `engine runtime ${hc.Runtime || "(default)"}; host kernel: ${host.processes.length} process(es) of the enclosure${foreign.length ? `, ${foreign.length} of them gVisor's` : ""}`;
      ok = hc.Runtime === "runc" && !foreign.length;
    } else {
      const roles = host.processes.map(gvisorRole);
      const notRunsc = host.processes.filter((p) => !reg || p.exe !== reg.binary);
      outsideText =
        `engine runtime ${hc.Runtime || "(default)"}${reg ? ` (${reg.path}${reg.binary !== reg.path ? ` running ${reg.binary}` : ""} ${reg.runtimeArgs.join(" ")})` : outside.runsc instanceof Error ? ` (registration ${bad(outside.runsc)})` : ""}; ` +
        `host kernel: ${host.processes.length} process(es), ${roles.filter((r) => r === "sandbox").length} sandbox, ${roles.filter((r) => r === "file proxy").length} file proxy, ${roles.filter((r) => r === "stub").length} platform stub(s)` +
        (notRunsc.length ? `; not the runsc binary: ${notRunsc.map((p) => `${hostProcessLabel(p)} ${p.exe || "?"}`).join(", ")}` : "");
      ok = hc.Runtime === "runsc" && !!reg && !notRunsc.length && sandbox?.argv[0] === "runsc-sandbox";
    }
    return {
      item: "runtime",
      expected: gv
        ? "runsc (gVisor): the enclosure runs on gVisor's user-space kernel; on the host only the registered runsc binary runs (its sandbox and file proxy)"
        : "runc: the enclosure's processes run on the host's kernel, in namespaces of their own",
      outside: outsideText,
      inside: NOT_ASKED,
      ok,
    };
  },
};
