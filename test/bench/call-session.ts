// The harness → control plane hop, A/B in one run: the same tool calls made over the client's
// CallTools session and over a CallTool stream each, interleaved call by call so a busy machine
// weighs on both alike. Rows: an lsp hover (the whole call), and a call to a tool that does not
// exist (the API hop and the dispatcher's refusal, no agent).
// Run: node scripts/build.mjs && N=1000 node dist/test/bench/call-session.js
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { figures, time } from "./measure.js";

async function main(): Promise<void> {
  ensureHostServers();
  const fx = await startFixture();
  const perCall = new ControlPlaneClient(fx.client.address, { toolCallSession: false });
  try {
    writeProject((await fx.client.createConversation("call-session")).workspacePath);
    const runId = (await fx.client.openRun("call-session", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
    const n = Number(process.env.N ?? 200);
    const hover = { action: "hover", file: "py/app.py", line: 3, symbol: "greet" };
    const cases: Array<[string, (c: ControlPlaneClient) => Promise<unknown>]> = [
      ["lsp hover", (c) => c.callTool(runId, "lsp", hover)],
      ["unknown tool (no agent)", (c) => c.callTool(runId, "no_such_tool", {})],
    ];
    for (const [name, call] of cases) {
      for (let i = 0; i < 20; i++) await Promise.all([call(fx.client), call(perCall)]);
      const session: number[] = [];
      const stream: number[] = [];
      for (let i = 0; i < n; i++) {
        // Alternating which goes first, so neither always follows the other.
        if (i % 2) {
          session.push(await time(() => call(fx.client)));
          stream.push(await time(() => call(perCall)));
        } else {
          stream.push(await time(() => call(perCall)));
          session.push(await time(() => call(fx.client)));
        }
      }
      const s = figures(session);
      const p = figures(stream);
      console.log(
        `${name.padEnd(26)} session median ${s.median.toFixed(3)} ms p99 ${s.p99.toFixed(3)} | CallTool median ${p.median.toFixed(3)} ms p99 ${p.p99.toFixed(3)}`,
      );
      // CPU of this process (the client and the control plane both), per call: steadier than wall time here.
      const cpu = async (c: ControlPlaneClient): Promise<number> => {
        const before = process.cpuUsage();
        for (let i = 0; i < n; i++) await call(c);
        const used = process.cpuUsage(before);
        return (used.user + used.system) / 1000 / n;
      };
      const cpuStream = await cpu(perCall);
      const cpuSession = await cpu(fx.client);
      console.log(`${"".padEnd(26)} cpu ms per call (client + control plane): session ${cpuSession.toFixed(3)} | CallTool ${cpuStream.toFixed(3)}`);
    }
  } finally {
    perCall.close();
    await fx.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
