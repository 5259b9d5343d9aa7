// The egress audit's "listening sockets" item: nothing listens or is bound, inside or on a published
// port — but for the egress proxy's one loopback listener while the conversation has an egress policy.
import type { EnclosureCheck } from "./check.js";
import { bad, list } from "./view.js";

export const listeningSocketsCheck: EnclosureCheck = {
  id: "listening sockets",
  proves: "nothing listens or is bound, inside or on a published port (but the egress proxy's listener while a policy is set)",
  run(view) {
    const { hc, gv, host, hostError, gvisor, gvisorError, ins, insideText, hostListening, expectedListening } = view;
    const same = (xs: readonly string[], want: readonly string[]): boolean => [...xs].sort().join(",") === [...want].sort().join(",");
    const published = Object.keys(hc.PortBindings ?? {});
    const kernelListening = gv ? gvisor?.listening : host ? hostListening : undefined;
    const outsideText = gv
      ? `gVisor's kernel: ${gvisor ? list(gvisor.listening) : bad(gvisorError)}; gVisor's host network namespaces: ${host ? list(hostListening) : bad(hostError)}; published ports ${list(published)}`
      : `host kernel: ${host ? list(hostListening) : bad(hostError)}; published ports ${list(published)}`;
    return {
      item: "listening sockets",
      expected: expectedListening.length
        ? `only the egress proxy's listener ${expectedListening.join(", ")} (the conversation's egress policy); no other TCP socket listening and no UDP socket bound (/proc/net/{tcp,tcp6,udp,udp6})`
        : "no TCP socket listening and no UDP socket bound (/proc/net/{tcp,tcp6,udp,udp6})",
      outside: outsideText,
      inside: insideText((i) => list(i.listeningSockets)),
      ok:
        !!kernelListening &&
        same(kernelListening, expectedListening) &&
        !!host &&
        // gVisor's loopback is its own kernel's: its host network namespaces show nothing either way.
        same(hostListening, gv ? [] : expectedListening) &&
        published.length === 0 &&
        !!ins &&
        same(ins.listeningSockets, expectedListening),
    };
  },
};
