// eval inside a real enclosure (Docker, network none, read-only root, non-root): the same behaviours
// as on the host, plus what only an enclosure can show: the bridge is egress-free (no listening
// socket, no route out, while a bridge call is pending and succeeds). Kernel faults (out of memory,
// fork bombs, network attempts) are in test/security/kernel-faults.test.ts. Runs under every runtime
// in ENCLAVE_TEST_RUNTIMES.
import { NODE_RUNTIME } from "@enclave/control-plane/placement/node-runtime.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { type EvalPlace, evalCases, evalOk } from "../helpers/eval-cases.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const MEMORY = 1024 * 1024 ** 2;

describe.each(TEST_RUNTIMES)("eval in an enclosure under %s", (runtime) => {
  let fx: Fixture;
  let place: EvalPlace;

  beforeAll(async () => {
    fx = await startFixture();
    const conv = await fx.client.createConversation("evalenc");
    const started = await fx.client.startEnclosure("evalenc", { runtime, memoryBytes: MEMORY });
    expect(started.placement).toBe("enclosure");
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  });
  afterAll(async () => fx?.close());

  evalCases(() => place);

  it("runs its kernels inside the enclosure, on the image's Python and the agent's pinned Node", async () => {
    // The enclosure's own uid from the reserved range, not the image's 1000.
    const { base, count } = loadConfig().enclosure.uids;
    const seen = await evalOk(place, {
      code: "import os, sys\n(os.getuid() - " + base + ", os.path.exists('/.dockerenv'), sys.prefix.startswith('/tmp/enclave-agent-'))",
    });
    const offset = Number(/^\((\d+), True, True\)$/.exec(seen)?.[1] ?? -1);
    expect(offset, seen).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(count);
    expect(await evalOk(place, { language: "javascript", code: "process.version.split('.')[0]" })).toBe(`'v${NODE_RUNTIME.version.split(".")[0]}'`);
  });

  it("has no listening socket and no route out while a bridge call is pending and succeeds", async () => {
    const code = `
import errno, os, socket, threading, time
result = {}
def slow_bridge_call():
    result['out'] = tool('exec', {'command': 'sleep 2; echo bridged'})
caller = threading.Thread(target=slow_bridge_call)
caller.start()
time.sleep(0.5)  # the bridge call is pending now
def rows(path):
    return open(path).read().splitlines()[1:]
tcp_listening = [r for r in rows('/proc/net/tcp') + rows('/proc/net/tcp6') if r.split()[3] == '0A']
udp_bound = rows('/proc/net/udp') + rows('/proc/net/udp6')
unix_listening = [r.split()[-1] for r in rows('/proc/net/unix') if int(r.split()[3], 16) & 0x10000]
routes = rows('/proc/net/route') + [r for r in rows('/proc/net/ipv6_route') if not r.endswith('lo')]
interfaces = [l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:]]
try:
    socket.create_connection(('1.1.1.1', 80), timeout=3)
    outbound = 'connected'
except OSError as e:
    outbound = errno.errorcode.get(e.errno, str(e))
secrets = [k for k in os.environ if any(w in k.upper() for w in ('TOKEN', 'SECRET', 'PASSWORD', 'KEY'))]
pending = caller.is_alive()
caller.join()
print(len(tcp_listening), len(udp_bound), unix_listening, len(routes), interfaces, outbound, secrets, pending, result['out'].splitlines()[0])
`;
    const out = await evalOk(place, { code });
    // No route out: Linux says ENETUNREACH, gVisor's network stack EHOSTUNREACH.
    expect(out).toBe(`0 0 ['/run/enclave/agent.sock'] 0 ['lo'] ${runtime === "runsc" ? "EHOSTUNREACH" : "ENETUNREACH"} [] True bridged`);
    const bridged = fx.cp.audit
      .history("evalenc")
      .filter((e) => e.origin === "bridge" && e.tool === "exec")
      .at(-1);
    expect(bridged?.outcome).toBe("ok");
    await expectTranscript(bridged?.placement ?? "", `transcripts/eval-enclosure/bridged-placement-${runtime}.txt`, [[/\b[0-9a-f]{12}\b/g, "<container>"]]);
    expect(bridged?.kernelId).toMatch(/^py-/);
  });
});
