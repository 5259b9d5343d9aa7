// Starts a debug adapter and opens its DAP connection: over its stdio (debugpy, lldb-vscode), or over
// a loopback TCP port it prints once ready (delve: `dlv dap --listen 127.0.0.1:0` says
// "DAP server listening at: 127.0.0.1:PORT"). Delve runs the debuggee with dlv's own stdio, so for a
// TCP adapter everything dlv prints after that line is program output.
import { type ChildProcess, spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import type { DebugAdapterSpec } from "@enclave/proto/adapter-registry.js";
import { DapConnection } from "./dap-connection.js";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { killProcessTree } from "../process/process-tree.js";

export interface AdapterProcess {
  child: ChildProcess;
  connection: DapConnection;
  /** The adapter's own diagnostics (its stderr for stdio adapters), last few KiB, for error messages. */
  diagnostics(): string;
  /** Kills the adapter and everything in its process group (the debuggee with it). */
  kill(): void;
  exited: Promise<string>;
}

export type ProgramOutputSink = (stream: "stdout" | "stderr", text: string) => void;

const LISTENING = /DAP server listening at:\s*\[?([0-9a-fA-F.:]+?)\]?:(\d+)/;

export async function startAdapter(
  spec: DebugAdapterSpec,
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  onProgramOutput: ProgramOutputSink,
  /** TCP adapters run the program with their own stdin: this text, then end-of-file. */
  programStdin = "",
): Promise<AdapterProcess> {
  // Its own process group: terminate (and the TTL) reach the adapter and the debuggee it started.
  const child = spawn(argv[0] ?? "", argv.slice(1), { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  let tail = "";
  const keep = (text: string): void => {
    tail = (tail + text).slice(-LIMITS.debugDiagnosticsBytes);
  };
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ? `killed by ${signal}` : `exited with code ${code}`));
    child.once("error", (err) => resolve(`could not start: ${err.message}`));
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new AgentError(
          err.code === "ENOENT" ? "not_found" : "failed_precondition",
          `could not start the ${spec.id} adapter (${argv.join(" ")}): ${err.message}`,
        ),
      ),
    );
  });
  await spawned;
  const kill = (): void => killProcessTree(child.pid);

  if (spec.transport === "stdio") {
    child.stderr?.on("data", (d: Buffer) => keep(d.toString("utf8")));
    const connection = new DapConnection(
      child.stdout as NonNullable<typeof child.stdout>,
      child.stdin as NonNullable<typeof child.stdin>,
      LIMITS.debugMaxMessageBytes,
    );
    void exited.then((why) => connection.close(`the ${spec.id} adapter ${why}`));
    return { child, connection, diagnostics: () => tail, kill, exited };
  }

  // TCP: read stdout until the adapter says where it listens; from then on its stdio is the program's
  // (its stdin too: given text, then end-of-file, so a read never waits on nobody).
  child.stdin?.on("error", () => undefined);
  child.stdin?.end(programStdin);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new AgentError(
          "failed_precondition",
          `the ${spec.id} adapter did not say where it listens within ${LIMITS.debugAdapterStartMs} ms; it printed: ${seen.slice(-500) || "nothing"}`,
        ),
      );
    }, LIMITS.debugAdapterStartMs);
    const onData = (d: Buffer): void => {
      seen += d.toString("utf8");
      const m = LISTENING.exec(seen);
      if (!m) return;
      cleanup();
      const rest = seen.slice((m.index ?? 0) + m[0].length).replace(/^\r?\n/, "");
      if (rest) onProgramOutput("stdout", rest);
      resolve(Number(m[2]));
    };
    const onExit = (): void => {
      cleanup();
      void exited.then((why) => reject(new AgentError("failed_precondition", `the ${spec.id} adapter ${why} before listening: ${(seen + tail).slice(-500)}`)));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (d: Buffer) => keep(d.toString("utf8")));
    child.once("exit", onExit);
  }).catch((err: unknown) => {
    kill();
    throw err;
  });
  child.stdout?.on("data", (d: Buffer) => onProgramOutput("stdout", d.toString("utf8")));
  child.stderr?.on("data", (d: Buffer) => onProgramOutput("stderr", d.toString("utf8")));

  const socket: Socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => resolve(s));
    s.once("error", (err) => reject(new AgentError("failed_precondition", `could not connect to the ${spec.id} adapter on 127.0.0.1:${port}: ${err.message}`)));
  }).catch((err: unknown) => {
    kill();
    throw err;
  });
  const connection = new DapConnection(socket, socket, LIMITS.debugMaxMessageBytes);
  void exited.then((why) => {
    connection.close(`the ${spec.id} adapter ${why}`);
    socket.destroy();
  });
  return {
    child,
    connection,
    diagnostics: () => tail,
    kill: () => {
      socket.destroy();
      kill();
    },
    exited,
  };
}

/** Opens a DAP connection to a server already listening on loopback in this placement (attach by port). */
export function connectToPort(port: number): Promise<{ connection: DapConnection; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    const timer = setTimeout(() => {
      s.destroy();
      reject(new AgentError("failed_precondition", `nothing accepted a connection on 127.0.0.1:${port} within ${LIMITS.debugAdapterStartMs} ms`));
    }, LIMITS.debugAdapterStartMs);
    s.once("connect", () => {
      clearTimeout(timer);
      resolve({ connection: new DapConnection(s, s, LIMITS.debugMaxMessageBytes), socket: s });
    });
    s.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new AgentError(
          "failed_precondition",
          err.code === "ECONNREFUSED"
            ? `nothing listens on 127.0.0.1:${port} in this placement; start the program under the debugger first (for example \`python3 -m debugpy --listen 127.0.0.1:${port} --wait-for-client prog.py\`)`
            : `could not connect to 127.0.0.1:${port}: ${err.message}`,
        ),
      );
    });
  });
}
