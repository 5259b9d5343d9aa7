// enclave-relay SOCKET: joins its own stdin/stdout to the agent's unix socket inside an enclosure.
// The control plane runs one per connection through the engine's exec (an attached, hijacked
// stream), so the agent is reached without a host folder, a host socket or a network: a dropped
// stream ends only this relay, never the agent or the kernels it hosts. Kept apart from the agent
// bundle so that starting it costs Node's start-up and nothing more.
import { type FSWatcher, watch } from "node:fs";
import { connect, type Socket } from "node:net";
import { dirname } from "node:path";

const socketPath = process.argv[2] ?? "";
if (!socketPath) {
  process.stderr.write("usage: enclave-relay SOCKET\n");
  process.exit(2);
}

// The agent may be starting (a new enclosure) or restarting (its supervisor brings it back within a
// second): wait for its socket rather than fail the first connection. The wait is signalled: the
// socket's folder is watched (inotify), so the relay connects as soon as the agent's socket appears;
// a slow timer stays underneath in case the watch cannot be made or misses the moment.
const WAIT_FOR_AGENT_MS = 15_000;
/** Between tries when the socket exists but refuses (bound, not yet listening: a short moment). */
const RETRY_MS = 5;
/** Between tries while watching for the socket to appear. */
const FALLBACK_MS = 100;
const deadline = Date.now() + WAIT_FOR_AGENT_MS;
let watcher: FSWatcher | undefined;
let pending: NodeJS.Timeout | undefined;
let trying = false;
/** A watch event came during a try: try again at once after it. */
let missed = false;

function schedule(ms: number): void {
  if (pending) clearTimeout(pending);
  pending = setTimeout(() => {
    pending = undefined;
    attempt();
  }, ms);
}

function watchForSocket(): void {
  if (watcher) return;
  try {
    watcher = watch(dirname(socketPath), () => {
      if (trying) missed = true;
      else schedule(0);
    });
    watcher.on("error", () => undefined);
  } catch {
    // No watch here: the timer alone.
  }
}

function join(sock: Socket): void {
  watcher?.close();
  process.stdin.pipe(sock);
  sock.pipe(process.stdout);
  sock.on("close", () => process.exit(0));
  sock.on("error", () => process.exit(0));
  // The control plane hung up: let the agent see the connection end.
  process.stdin.on("end", () => sock.end());
  process.stdout.on("error", () => sock.destroy());
}

function attempt(): void {
  trying = true;
  missed = false;
  const sock = connect(socketPath);
  sock.once("connect", () => {
    trying = false;
    sock.removeAllListeners("error");
    join(sock);
  });
  sock.once("error", (err: NodeJS.ErrnoException) => {
    trying = false;
    const notYet = err.code === "ENOENT" || err.code === "ECONNREFUSED";
    if (notYet && Date.now() < deadline) {
      if (err.code === "ENOENT" && !watcher) {
        // The socket may have appeared before the watch began: look once more now that it watches.
        watchForSocket();
        schedule(0);
        return;
      }
      schedule(missed || err.code === "ECONNREFUSED" ? RETRY_MS : watcher ? FALLBACK_MS : RETRY_MS * 4);
      return;
    }
    process.stderr.write(`enclave-relay: cannot reach the agent at ${socketPath}: ${err.message}\n`);
    process.exit(1);
  });
}

attempt();
