// The egress audit's "mounts" item: /tmp and home are tmpfs, no engine socket is mounted, /workspace is the one writable mount.
import { IN_ENCLOSURE } from "../../model/enclosure.js";
import { engineSocketMounts } from "../../procfs/proc-tables.js";
import type { EnclosureCheck } from "./check.js";
import { bad, list, NOT_ASKED, tmpfsAt } from "./view.js";

export const mountsCheck: EnclosureCheck = {
  id: "mounts",
  proves: "/tmp and home are tmpfs, no engine socket is mounted, /workspace is the one writable mount",
  run(view) {
    const { info, gv, host, gvisor, kernelError, kernelName } = view;
    const engineMounts = (info.Mounts ?? []).map((m) => ({ root: m.Source ?? "", mountPoint: m.Destination ?? "", rw: m.RW, type: m.Type }));
    const engineSockets = engineSocketMounts(engineMounts);
    const mounts = gv ? gvisor?.mounts : host?.mounts;
    const kernelSockets = mounts && !gv ? engineSocketMounts(mounts) : [];
    const tmpfs = mounts ? ["/tmp", IN_ENCLOSURE.home].map((p) => `${p} ${tmpfsAt(mounts, p) ? "tmpfs" : "NOT tmpfs"}`) : [];
    const kernelOk = !!mounts && ["/tmp", IN_ENCLOSURE.home].every((p) => tmpfsAt(mounts, p)) && kernelSockets.length === 0;
    // The workspace is the one writable mount the engine holds that Enclave makes; any other (an
    // image's VOLUME, say) is disk nothing bounds. Tmpfs mounts are bounded and not listed here.
    const foreign = engineMounts.filter((m) => m.rw && m.mountPoint !== IN_ENCLOSURE.workspace);
    return {
      item: "mounts",
      expected: "/tmp and the home folder on tmpfs; no container engine socket mounted; no writable mount but /workspace",
      outside:
        `engine: ${list(engineMounts.map((m) => `${m.mountPoint} (${m.type}, ${m.rw ? "rw" : "ro"})`))}; ` +
        `writable mounts not Enclave's: ${list(foreign.map((m) => m.mountPoint))}; ` +
        `${kernelName}: ${mounts ? `${tmpfs.join(", ")}; engine sockets ${list([...engineSockets, ...kernelSockets])}` : bad(kernelError)}`,
      inside: NOT_ASKED,
      ok: kernelOk && engineSockets.length === 0 && foreign.length === 0,
    };
  },
};
