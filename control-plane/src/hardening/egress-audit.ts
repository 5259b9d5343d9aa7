// The egress audit's "egress" item: the policy in force, and proof from outside that the proxy is the
// only way out and holds to it. Without a policy: no tunnel, so nothing in the enclosure listens for
// the proxy (the listening-sockets item wants none). With one: exactly the tunnel's listener, and a
// probe — the agent asks the proxy, from inside, for a listener the control plane opens on the host's
// loopback for the purpose and the policy does not list — must be refused by the proxy, and that
// listener must see no connection. The proxy's refusal and the listener's silence are the outside
// half; the status line the agent reports only confirms.
import { createServer } from "node:net";
import type { AuditCheck } from "./audit-check.js";
import { allowsAddress, type EgressDestination, type EgressMaximum, formatPolicy } from "../egress/egress-policy.js";

export interface EgressAuditInput {
  policy: readonly EgressDestination[];
  maximum: EgressMaximum;
  /** The agent's listener port the tunnel reported, when a tunnel is open. */
  listenerPort: number | undefined;
  /** Asks the agent to CONNECT through the proxy; undefined when it reports no listener. */
  probe(host: string, port: number): Promise<{ listening: boolean; statusLine: string }>;
  /** The proxy's audited outcome for a destination ("refused:not_allowed"), since a time. */
  proxyOutcome(destination: string, sinceMs: number): string | undefined;
}

/** A listener on the host's loopback that counts connections, on a port the policy does not allow. */
async function canary(policy: readonly EgressDestination[]): Promise<{ port: number; accepted: () => number; close: () => void } | undefined> {
  let accepted = 0;
  const server = createServer((s) => {
    accepted++;
    s.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, () => resolve());
  });
  const address = server.address();
  const port = address && typeof address === "object" ? address.port : 0;
  if (allowsAddress(policy, "127.0.0.1", port, false)) {
    server.close();
    return undefined;
  }
  return { port, accepted: () => accepted, close: () => server.close() };
}

export async function egressCheck(input: EgressAuditInput): Promise<AuditCheck> {
  const stated = `policy ${formatPolicy(input.policy)}; operator maximum ${input.maximum ? formatPolicy(input.maximum) : "none set (no tokens)"}`;
  if (input.policy.length === 0) {
    return {
      item: "egress",
      expected: "no egress policy: no proxy tunnel, no listener, no way out",
      outside: `${stated}; tunnel ${input.listenerPort === undefined ? "none" : `OPEN on port ${input.listenerPort}`}`,
      inside: "not asked (nothing to probe)",
      ok: input.listenerPort === undefined,
    };
  }
  const expected = "only through the egress proxy, by the policy: one loopback listener for it; a probe to a host loopback listener not in the policy refused";
  if (input.listenerPort === undefined) {
    return { item: "egress", expected, outside: `${stated}; no tunnel open now (the agent listens once a call reaches it)`, inside: "not asked", ok: true };
  }
  const c = await canary(input.policy);
  if (!c) {
    return {
      item: "egress",
      expected,
      outside: `${stated}; tunnel listening on 127.0.0.1:${input.listenerPort}; the policy allows the host's 127.0.0.1 on any port, so no probe can be refused`,
      inside: "not asked",
      ok: true,
    };
  }
  const since = Date.now();
  try {
    const answer = await input.probe("127.0.0.1", c.port).catch((err: Error) => ({ listening: true, statusLine: `error: ${err.message}` }));
    const outcome = input.proxyOutcome(`CONNECT 127.0.0.1:${c.port}`, since);
    const refused = outcome?.startsWith("refused:") ?? false;
    return {
      item: "egress",
      expected,
      outside:
        `${stated}; tunnel listening on 127.0.0.1:${input.listenerPort}; probe CONNECT 127.0.0.1:${c.port} (a host listener not in the policy): ` +
        `the proxy ${outcome ? `answered ${outcome}` : "recorded nothing"}, the listener saw ${c.accepted()} connection(s)`,
      inside: answer.listening ? `the proxy answered: ${answer.statusLine}` : "the agent reports no listener",
      ok: refused && c.accepted() === 0 && !/^HTTP\/1\.[01] 200/.test(answer.statusLine),
    };
  } finally {
    c.close();
  }
}
