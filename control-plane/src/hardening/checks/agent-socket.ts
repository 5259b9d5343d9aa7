// agent socket: on the container's own tmpfs, reached through the engine's exec; no host folder.
import { IN_ENCLOSURE } from "../../model/enclosure.js";
import type { EnclosureCheck } from "./check.js";
import { bad, tmpfsAt } from "./view.js";

export const agentSocketCheck: EnclosureCheck = {
  id: "agent socket",
  proves: "the agent's socket is on the container's own tmpfs, reached through exec, no host folder",
  run(view) {
    const { info, hc, gv, host, gvisor, ins, insideText, kernelError, kernelName } = view;
    const runDir = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.runDir);
    const engineTmpfs = Object.keys(hc.Tmpfs ?? {}).includes(IN_ENCLOSURE.runDir);
    const mounts = gv ? gvisor?.mounts : host?.mounts;
    const kernelTmpfs = !!mounts && tmpfsAt(mounts, IN_ENCLOSURE.runDir);
    return {
      item: "agent socket",
      expected:
        "the agent's unix socket on the container's own tmpfs, only its user can open it; reached through the engine's exec, no host folder mounted for it",
      outside: runDir
        ? `${IN_ENCLOSURE.runDir} is mounted from the host (${runDir.Source})!`
        : `${IN_ENCLOSURE.runDir} ${engineTmpfs ? "is a tmpfs" : "is not a tmpfs"}; no host mount; ${kernelName}: ${mounts ? `${IN_ENCLOSURE.runDir} ${kernelTmpfs ? "tmpfs" : "NOT tmpfs"}` : bad(kernelError)}`,
      inside: insideText((i) => `${i.socketPath} mode ${i.socketMode} owner uid ${i.socketUid}`),
      ok: !runDir && engineTmpfs && kernelTmpfs && !!ins && ins.socketMode === "600" && ins.socketUid === ins.uid,
    };
  },
};
