// The egress audit's "capabilities" item: no process holds a capability (under gVisor, its host processes are confined too).
import { capsEmpty, capsWithin } from "../../procfs/proc-tables.js";
import type { EnclosureCheck } from "./check.js";
import { bad, confinedUserNamespace, every, GOFER_CAPS, gvisorRole, hostProcessLabel, list } from "./view.js";

export const capabilitiesCheck: EnclosureCheck = {
  id: "capabilities",
  proves: "no process holds a capability (under gVisor, its host processes are confined too)",
  run(view) {
    const { hc, gv, host, hostError, gvisor, gvisorError, ins, insideText, kernelName } = view;
    const engine = `dropped ${list(hc.CapDrop ?? [])}; added ${list(hc.CapAdd ?? [])}`;
    const engineOk = (hc.CapDrop ?? []).includes("ALL") && (hc.CapAdd ?? []).length === 0;
    let kernel: { ok: boolean; text: string };
    let sandboxSide = { ok: true, text: "" };
    if (gv) {
      kernel = gvisor
        ? every(
            gvisor.processes,
            (p) => capsEmpty(p.capEff) && capsEmpty(p.capPrm) && capsEmpty(p.capBnd),
            "with CapEff, CapPrm and CapBnd empty",
            (p) => `${p.pid} (${p.name})`,
            (p) => `CapEff ${p.capEff} CapPrm ${p.capPrm} CapBnd ${p.capBnd}`,
          )
        : { ok: false, text: bad(gvisorError) };
      sandboxSide = host
        ? every(
            host.processes,
            (p) =>
              gvisorRole(p) === "file proxy" && p.uidMap === ""
                ? capsWithin(p.capEff, GOFER_CAPS) && capsWithin(p.capPrm, GOFER_CAPS)
                : confinedUserNamespace(p),
            "in a user namespace mapping no host root, or the file proxy with file capabilities only",
            hostProcessLabel,
            (p) => `uid_map ${p.uidMap.trim().replace(/\s+/g, " ") || "(the host's)"} CapEff ${p.capEff}`,
          )
        : { ok: false, text: bad(hostError) };
    } else {
      kernel = host
        ? every(
            host.processes,
            (p) => capsEmpty(p.capEff) && capsEmpty(p.capPrm) && capsEmpty(p.capBnd),
            "with CapEff, CapPrm and CapBnd empty",
            hostProcessLabel,
            (p) => `CapEff ${p.capEff} CapPrm ${p.capPrm} CapBnd ${p.capBnd}`,
          )
        : { ok: false, text: bad(hostError) };
    }
    return {
      item: "capabilities",
      expected: "all dropped, none added; effective, permitted and bounding sets empty in every process",
      outside: `${engine}; ${kernelName}: ${kernel.text}${gv ? `; gVisor on the host: ${sandboxSide.text}` : ""}`,
      inside: insideText((i) => `CapEff ${i.capEff}; CapPrm ${i.capPrm}; CapBnd ${i.capBnd}`),
      ok: engineOk && kernel.ok && sandboxSide.ok && !!ins && capsEmpty(ins.capEff) && capsEmpty(ins.capPrm),
    };
  },
};
