// enclave-relay SOCKET: joins its own stdin/stdout to the agent's unix socket inside an enclosure.
// The control plane runs one per connection through the engine's exec (an attached, hijacked
// stream), so the agent is reached without a host folder, a host socket or a network: a dropped
// stream ends only this relay, never the agent or the kernels it hosts. Kept apart from the agent
// bundle so that starting it costs Node's start-up and nothing more.
import { connect, type Socket } from "node:net";

const socketPath = process.argv[2] ?? "";
if (!socketPath) {
  process.stderr.write("usage: enclave-relay SOCKET\n");
  process.exit(2);
}

// The agent may be starting (a new enclosure) or restarting (its supervisor brings it back within a
// second): wait for its socket rather than fail the first connection.
const WAIT_FOR_AGENT_MS = 15_000;
const RETRY_MS = 20;
const deadline = Date.now() + WAIT_FOR_AGENT_MS;

function join(sock: Socket): void {
  process.stdin.pipe(sock);
  sock.pipe(process.stdout);
  sock.on("close", () => process.exit(0));
  sock.on("error", () => process.exit(0));
  // The control plane hung up: let the agent see the connection end.
  process.stdin.on("end", () => sock.end());
  process.stdout.on("error", () => sock.destroy());
}

function attempt(): void {
  const sock = connect(socketPath);
  sock.once("connect", () => {
    sock.removeAllListeners("error");
    join(sock);
  });
  sock.once("error", (err: NodeJS.ErrnoException) => {
    const notYet = err.code === "ENOENT" || err.code === "ECONNREFUSED";
    if (notYet && Date.now() < deadline) {
      setTimeout(attempt, RETRY_MS);
      return;
    }
    process.stderr.write(`enclave-relay: cannot reach the agent at ${socketPath}: ${err.message}\n`);
    process.exit(1);
  });
}

attempt();
