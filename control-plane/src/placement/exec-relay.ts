// The one transport to an enclosure's agent: the engine's exec. The control plane listens on a socket
// in its own private folder (nothing of it is mounted anywhere); each connection gRPC makes there runs
// the agent's relay inside the container through an attached exec and joins the two byte streams.
// Nothing of the host is named inside the enclosure, and the enclosure holds no path the control plane
// dials, so it can neither redirect the control plane to another agent nor learn host paths. A dropped
// stream ends one relay; the agent, its kernels and language servers stay up, and gRPC's reconnect
// simply runs another relay. The same shape fits any engine that attaches to a process's stdio
// (a remote Docker engine, Kubernetes' pods/exec).
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { PassThrough, type Duplex } from "node:stream";
import type Docker from "dockerode";
import { LIMITS } from "../limits.js";
import { cappedSink } from "../observability/capped-sink.js";

export interface RelayTarget {
  container: Docker.Container;
  /** The engine's demultiplexer for attached streams (stdout and stderr share one socket). */
  demux: (stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) => void;
  /** uid:gid the relay runs as: the enclosure's user, like the agent. */
  user: string;
  /** The relay's command line inside the container. */
  command: string[];
  /** Where the relay's complaints go (its stderr). */
  log: (line: string) => void;
}

export class ExecRelay {
  private readonly server: Server;
  private readonly live = new Set<{ conn: Socket; stream?: Duplex }>();
  private closed = false;

  private constructor(
    readonly socketPath: string,
    private readonly target: RelayTarget,
  ) {
    this.server = createServer((conn) => void this.join(conn));
  }

  /** Listens at socketPath (inside a folder only the control plane can enter). */
  static async open(socketPath: string, target: RelayTarget): Promise<ExecRelay> {
    const relay = new ExecRelay(socketPath, target);
    rmSync(socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      relay.server.once("error", reject);
      relay.server.listen(socketPath, () => resolve());
    });
    return relay;
  }

  private async join(conn: Socket): Promise<void> {
    const entry: { conn: Socket; stream?: Duplex } = { conn };
    this.live.add(entry);
    conn.pause();
    const finish = (): void => {
      this.live.delete(entry);
      conn.destroy();
      entry.stream?.destroy();
    };
    conn.on("close", finish);
    conn.on("error", finish);
    try {
      const exec = await this.target.container.exec({
        Cmd: this.target.command,
        User: this.target.user,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      });
      const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
      entry.stream = stream;
      if (this.closed || conn.destroyed) {
        finish();
        return;
      }
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      this.target.demux(stream, stdout, stderr);
      const complain = cappedSink(
        (chunk) => this.target.log(chunk.toString("utf8").trimEnd()),
        LIMITS.relayLogMaxBytes,
        () =>
          this.target.log(`enclave relay: wrote more than ${LIMITS.relayLogMaxBytes / 1024} KiB on standard error; the rest of this connection's is dropped`),
      );
      stderr.on("data", complain);
      stdout.pipe(conn);
      conn.pipe(stream);
      conn.resume();
      stream.on("end", () => conn.end());
      stream.on("close", finish);
      stream.on("error", finish);
    } catch (err) {
      // The container is gone or the engine refused: gRPC sees a closed connection and reports the
      // agent unreachable; the placement layer then tells a dead enclosure from a live one.
      this.target.log(`enclave relay: the engine did not start the relay: ${(err as Error).message}`);
      finish();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.close();
    for (const entry of [...this.live]) {
      entry.conn.destroy();
      entry.stream?.destroy();
    }
    this.live.clear();
    rmSync(this.socketPath, { force: true });
  }
}
