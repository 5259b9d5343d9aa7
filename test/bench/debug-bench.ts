// Debug figures for `make bench`: launch-to-first-stop and a step round trip through the whole path
// (control plane → agent → debugpy), beside a peer: the same adapter driven directly by a minimal
// DAP client (mini-dap-peer.mjs: no gRPC, no agent), measured in the same run on the same program and
// placement, making the same DAP requests per stop (the step, then the top frame that says where).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row } from "./measure.js";

const PROGRAM = `total = 0
for i in range(1000000):
    total += i
print(total)
`;
const BREAK_LINE = 3;
const LAUNCHES = 10;
const STEPS = 50;

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const PEER_SCRIPT = join(repoRoot, "test", "bench", "mini-dap-peer.mjs");

type Samples = { launch: number[]; steps: number[] };

/** The peer on the host: test/bench/mini-dap-peer.mjs, the same adapter and requests, no agent. */
function peerOnHost(dir: string, python: string, launches: number): Samples {
  const out = execFileSync(process.execPath, [PEER_SCRIPT, python, join(dir, "prog.py"), String(BREAK_LINE), String(launches), String(STEPS)], {
    timeout: 600_000,
  });
  return JSON.parse(out.toString()) as Samples;
}

/** The same peer inside the enclosure (the script is written into its workspace and run there). */
async function peerInEnclosure(fx: Fixture, runId: string, launches: number): Promise<Samples> {
  await fx.client.callTool(runId, "write", { path: "mini-dap-peer.mjs", content: readFileSync(PEER_SCRIPT, "utf8") });
  const r = await fx.client.callTool(runId, "exec", {
    command: `node mini-dap-peer.mjs /usr/bin/python3 "$PWD/prog.py" ${BREAK_LINE} ${launches} ${STEPS}`,
    timeout_seconds: 600,
  });
  const line = resultText(r)
    .split("\n")
    .find((l) => l.startsWith("{"));
  if (r.isError || !line) throw new Error(`the peer failed in the enclosure: ${resultText(r)}`);
  return JSON.parse(line) as Samples;
}

async function oursRun(fx: Fixture, runId: string): Promise<{ launch: number; steps: number[] }> {
  const call = async (args: Record<string, unknown>): Promise<string> => {
    const r = await fx.client.callTool(runId, "debug", args);
    if (r.isError) throw new Error(`debug ${JSON.stringify(args)}: ${resultText(r)}`);
    return resultText(r);
  };
  const t0 = now();
  const launched = await call({ op: "launch", program: "prog.py" });
  const launch = now() - t0;
  if (!/stopped at prog\.py:3/.test(launched)) throw new Error(`bench launch did not stop at the breakpoint: ${launched}`);
  const steps: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const s0 = now();
    await call({ op: "step_over" });
    steps.push(now() - s0);
  }
  await call({ op: "terminate" });
  return { launch, steps };
}

/** Host placement, then the same inside an enclosure. */
export async function debugBenchRows(): Promise<BenchRow[]> {
  const fx = await startFixture();
  const dir = mkdtempSync(join(tmpdir(), "enclave-bench-debug-"));
  const enclosed = "bench-debug-enc";
  try {
    writeFileSync(join(dir, "pyproject.toml"), '[project]\nname = "bench"\n');
    writeFileSync(join(dir, "prog.py"), PROGRAM);
    await fx.client.createConversation("bench-debug", dir);
    const runId = (await fx.client.openRun("bench-debug", { approvalPolicy: "never", resources: ["debug"] })).id;
    await fx.client.callTool(runId, "debug", { op: "breakpoints", file: "prog.py", lines: [BREAK_LINE] });
    const adapters = resultText(await fx.client.callTool(runId, "debug", { op: "adapters" }));
    const python = /^debugpy: usable.*\n\s+(\S+) -m debugpy\.adapter/m.exec(adapters)?.[1];
    if (!python) throw new Error(`debugpy is not usable on the host: ${adapters}`);

    const ours: Samples = { launch: [], steps: [] };
    const peer: Samples = { launch: [], steps: [] };
    // Interleaved, one launch each at a time, so both see the same machine load.
    for (let i = 0; i < LAUNCHES; i++) {
      const o = await oursRun(fx, runId);
      ours.launch.push(o.launch);
      ours.steps.push(...o.steps);
      const p = peerOnHost(dir, python, 1);
      peer.launch.push(...p.launch);
      peer.steps.push(...p.steps);
    }
    const peerName = "direct DAP client, same adapter and requests";
    const rows = [
      row("debug launch-to-first-stop, debugpy, host", ours.launch, { name: peerName, samples: peer.launch }, { digits: 1 }),
      row("debug step_over round trip, debugpy, host", ours.steps, { name: peerName, samples: peer.steps }, { digits: 1 }),
    ];

    {
      await fx.client.createConversation(enclosed);
      await fx.client.startEnclosure(enclosed);
      const encRun = (await fx.client.openRun(enclosed, { approvalPolicy: "never", resources: ["workspace", "shell", "debug"] })).id;
      await fx.client.callTool(encRun, "write", { path: "pyproject.toml", content: '[project]\nname = "bench"\n' });
      await fx.client.callTool(encRun, "write", { path: "prog.py", content: PROGRAM });
      await fx.client.callTool(encRun, "debug", { op: "breakpoints", file: "prog.py", lines: [BREAK_LINE] });
      const enc: Samples = { launch: [], steps: [] };
      const encPeer: Samples = { launch: [], steps: [] };
      for (let i = 0; i < LAUNCHES; i++) {
        const o = await oursRun(fx, encRun);
        enc.launch.push(o.launch);
        enc.steps.push(...o.steps);
        const p = await peerInEnclosure(fx, encRun, 1);
        encPeer.launch.push(...p.launch);
        encPeer.steps.push(...p.steps);
      }
      const encPeerName = "direct DAP client in the enclosure";
      rows.push(row("debug launch-to-first-stop, debugpy, enclosure", enc.launch, { name: encPeerName, samples: encPeer.launch }, { digits: 1 }));
      rows.push(row("debug step_over round trip, debugpy, enclosure", enc.steps, { name: encPeerName, samples: encPeer.steps }, { digits: 1 }));
    }
    return rows;
  } finally {
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
