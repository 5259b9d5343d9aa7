// The egress audit's "network" item: the enclosure has no network: mode none, only loopback, no route, in every namespace the kernels show.
import type { EnclosureCheck } from "./check.js";
import { bad, list } from "./view.js";

export const networkCheck: EnclosureCheck = {
  id: "network",
  proves: "the enclosure has no network: mode none, only loopback, no route, in every namespace the kernels show",
  run(view) {
    const { hc, gv, host, hostError, gvisor, gvisorError, ins, insideText, sandboxFlag, hostNets } = view;
    const hostNetText = host ? [...new Set(hostNets.map((n) => `interfaces ${list(n.interfaces)}; routes ${list(n.routes)}`))].join(" | ") : bad(hostError);
    const hostNetOk = !!host && hostNets.every((n) => n.interfaces.join(",") === "lo" && n.routes.length === 0);
    const gvisorOk = !gv || (!!gvisor && gvisor.interfaces.join(",") === "lo" && gvisor.routes.length === 0 && sandboxFlag("--network=none"));
    const outsideText = gv
      ? `network mode ${hc.NetworkMode}; gVisor's network stack ${sandboxFlag("--network=none") ? "off (--network=none)" : "not started with --network=none"}; ` +
        `gVisor's kernel: ${gvisor ? `interfaces ${list(gvisor.interfaces)}; routes ${list(gvisor.routes)}` : bad(gvisorError)}; gVisor's ${hostNets.length} host network namespace(s): ${hostNetText}`
      : `network mode ${hc.NetworkMode}; host kernel, ${hostNets.length} network namespace(s): ${hostNetText}`;
    return {
      item: "network",
      expected: "network mode none; only the loopback interface; no route",
      outside: outsideText,
      inside: insideText((i) => `interfaces ${list(i.interfaces)}; routes ${list(i.routes)}`),
      ok: hc.NetworkMode === "none" && hostNetOk && gvisorOk && !!ins && ins.interfaces.join(",") === "lo" && ins.routes.length === 0,
    };
  },
};
