// The bench's peer: a minimal DAP client (no gRPC, no agent) driving debugpy's adapter directly, with
// the same requests the agent makes: launch in the parallel order, then per stop the top frame.
// Plain JavaScript with no dependencies, so it runs on the host and inside an enclosure alike.
//   node mini-dap-peer.mjs PYTHON PROGRAM LINE LAUNCHES STEPS   → prints {"launch":[ms…],"steps":[ms…]}
import { spawn } from "node:child_process";
import { dirname } from "node:path";

const [python, program, line, launches, steps] = process.argv.slice(2);
const now = () => Number(process.hrtime.bigint()) / 1e6;

function client(argv) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
  let seq = 1;
  let buf = Buffer.alloc(0);
  const waiting = new Map();
  let eventWaiters = [];
  child.stdout.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString())[1]);
      if (buf.length < end + 4 + len) return;
      const msg = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString());
      buf = buf.subarray(end + 4 + len);
      if (msg.type === "response") waiting.get(msg.request_seq)?.(msg);
      if (msg.type === "event") {
        const hit = eventWaiters.filter((w) => w.name === msg.event);
        eventWaiters = eventWaiters.filter((w) => w.name !== msg.event);
        for (const w of hit) w.resolve(msg);
      }
    }
  });
  return {
    child,
    request(command, args) {
      const s = seq++;
      const body = Buffer.from(JSON.stringify({ seq: s, type: "request", command, arguments: args }));
      child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
      return new Promise((resolve) => waiting.set(s, resolve));
    },
    event(name) {
      return new Promise((resolve) => eventWaiters.push({ name, resolve }));
    },
  };
}

async function once() {
  const t0 = now();
  const dap = client([python, "-m", "debugpy.adapter"]);
  await dap.request("initialize", { clientID: "peer", adapterID: "debugpy", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  const initialized = dap.event("initialized");
  const stopped = dap.event("stopped");
  const launched = dap.request("launch", { program, cwd: dirname(program), console: "internalConsole", justMyCode: true, python: [python] });
  await initialized;
  await dap.request("setBreakpoints", { source: { path: program }, breakpoints: [{ line: Number(line) }] });
  await dap.request("configurationDone", {});
  await launched;
  const stop = await stopped;
  const threadId = stop.body.threadId;
  await dap.request("stackTrace", { threadId, startFrame: 0, levels: 1 });
  const launch = now() - t0;
  const times = [];
  for (let i = 0; i < Number(steps); i++) {
    const s0 = now();
    const next = dap.event("stopped");
    await dap.request("next", { threadId });
    await next;
    await dap.request("stackTrace", { threadId, startFrame: 0, levels: 1 });
    times.push(now() - s0);
  }
  await dap.request("disconnect", { terminateDebuggee: true });
  dap.child.kill("SIGKILL");
  return { launch, steps: times };
}

const out = { launch: [], steps: [] };
for (let i = 0; i < Number(launches); i++) {
  const r = await once();
  out.launch.push(r.launch);
  out.steps.push(...r.steps);
}
console.log(JSON.stringify(out));
process.exit(0);
