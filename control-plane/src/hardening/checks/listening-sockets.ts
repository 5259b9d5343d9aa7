// The egress audit's "listening sockets" item: nothing listens or is bound, inside or on a published port.
import type { EnclosureCheck } from "./check.js";
import { bad, list } from "./view.js";

export const listeningSocketsCheck: EnclosureCheck = {
  id: "listening sockets",
  proves: "nothing listens or is bound, inside or on a published port",
  run(view) {
    const { hc, gv, host, hostError, gvisor, gvisorError, ins, insideText, hostListening } = view;
    const published = Object.keys(hc.PortBindings ?? {});
    const kernelListening = gv ? gvisor?.listening : host ? hostListening : undefined;
    const outsideText = gv
      ? `gVisor's kernel: ${gvisor ? list(gvisor.listening) : bad(gvisorError)}; gVisor's host network namespaces: ${host ? list(hostListening) : bad(hostError)}; published ports ${list(published)}`
      : `host kernel: ${host ? list(hostListening) : bad(hostError)}; published ports ${list(published)}`;
    return {
      item: "listening sockets",
      expected: "no TCP socket listening and no UDP socket bound (/proc/net/{tcp,tcp6,udp,udp6})",
      outside: outsideText,
      inside: insideText((i) => list(i.listeningSockets)),
      ok:
        !!kernelListening &&
        kernelListening.length === 0 &&
        !!host &&
        hostListening.length === 0 &&
        published.length === 0 &&
        !!ins &&
        ins.listeningSockets.length === 0,
    };
  },
};
