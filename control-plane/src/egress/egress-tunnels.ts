// The egress tunnels: for each conversation with an egress policy whose agent runs, one EgressTunnel
// stream to that agent (the control plane is the gRPC client, as for every agent call; the agent
// holds no path or address it could dial). While the stream is open the agent listens on its own
// loopback and sends each connection's bytes here; each becomes a Duplex the proxy serves. No policy,
// no stream, no listener.
import { Duplex } from "node:stream";
import { type ClientDuplexStream, type ServiceError, status } from "@grpc/grpc-js";
import type { EgressFromAgent, EgressToAgent } from "@enclave/proto/gen/enclave/agent/v1/egress.js";
import type { AgentClient } from "../agent-client/agent-client.js";
import { within } from "@enclave/proto/wait.js";
import type { EgressContext, EgressProxy } from "./egress-proxy.js";

/** Names the proxy is not used for inside (the enclosure's own loopback). */
export const NO_PROXY = ["localhost", "127.0.0.1", "::1"];

interface Tunnel {
  client: AgentClient;
  stream: ClientDuplexStream<EgressToAgent, EgressFromAgent>;
  /** The agent's loopback port, once it listens. */
  port: Promise<number | undefined>;
  connections: Map<string, Duplex>;
}

export class EgressTunnels {
  private readonly tunnels = new Map<string, Tunnel>();
  /** Agents of a build without the Egress service: not asked again on every call. */
  private readonly unsupported = new WeakSet<AgentClient>();
  private readonly ports = new Map<string, number>();

  constructor(
    private readonly proxy: EgressProxy,
    private readonly hasPolicy: (conversationId: string) => boolean,
    private readonly contextOf: (conversationId: string) => EgressContext,
  ) {}

  /** The loopback port the conversation's agent listens on for the proxy now, if any. */
  listening(conversationId: string): number | undefined {
    return this.ports.get(conversationId);
  }

  /**
   * Makes the agent's listener follow the policy: opened when the conversation has one and this agent
   * has no tunnel yet, closed when it has none. Waits until the agent listens (a process started after
   * this sees the proxy's variables).
   */
  async follow(conversationId: string, client: AgentClient | undefined): Promise<void> {
    const current = this.tunnels.get(conversationId);
    if (!this.hasPolicy(conversationId) || !client) {
      if (current) this.close(conversationId);
      return;
    }
    if (this.unsupported.has(client)) return;
    if (current?.client === client) {
      await current.port;
      return;
    }
    if (current) this.close(conversationId);
    const tunnel = this.open(conversationId, client);
    this.tunnels.set(conversationId, tunnel);
    await within(tunnel.port, 10_000, undefined);
  }

  close(conversationId: string): void {
    const t = this.tunnels.get(conversationId);
    if (!t) return;
    this.tunnels.delete(conversationId);
    this.ports.delete(conversationId);
    for (const c of t.connections.values()) c.destroy();
    t.stream.cancel();
  }

  closeAll(): void {
    for (const id of [...this.tunnels.keys()]) this.close(id);
  }

  private open(conversationId: string, client: AgentClient): Tunnel {
    const stream = client.egress.egressTunnel();
    const connections = new Map<string, Duplex>();
    let listened: (port: number | undefined) => void = () => undefined;
    const port = new Promise<number | undefined>((resolve) => (listened = resolve));
    const tunnel: Tunnel = { client, stream, port, connections };
    const ended = (): void => {
      listened(undefined);
      for (const c of connections.values()) c.destroy();
      connections.clear();
      if (this.tunnels.get(conversationId) === tunnel) {
        this.tunnels.delete(conversationId);
        this.ports.delete(conversationId);
      }
    };
    stream.on("error", (err: ServiceError) => {
      if (err.code === status.UNIMPLEMENTED) this.unsupported.add(client);
      ended();
    });
    stream.on("end", ended);
    stream.on("data", (m: EgressFromAgent) => {
      const what = m.what;
      if (!what) return;
      if (what.$case === "listening") {
        this.ports.set(conversationId, what.value.port);
        listened(what.value.port);
      } else if (what.$case === "opened") {
        const key = String(what.value.connection);
        const conn = this.connection(stream, what.value.connection, () => connections.delete(key));
        connections.set(key, conn);
        void this.proxy.serve(conn, this.contextOf(conversationId));
      } else if (what.$case === "data") {
        const conn = connections.get(String(what.value.connection));
        // A connection the proxy is behind on holds the whole stream: memory here stays bounded.
        if (conn && !conn.push(what.value.bytes)) stream.pause();
      } else if (what.$case === "close") {
        // The client is done sending; the answer may still go back until the proxy closes.
        const conn = connections.get(String(what.value.connection));
        if (conn && !conn.readableEnded) conn.push(null);
      }
    });
    stream.write({ what: { $case: "listen", value: { noProxy: NO_PROXY } } });
    return tunnel;
  }

  /** One accepted connection as a Duplex: what the proxy writes goes to the agent as that connection's bytes. */
  private connection(stream: ClientDuplexStream<EgressToAgent, EgressFromAgent>, connection: number, gone: () => void): Duplex {
    let closedSent = false;
    const sendClose = (): void => {
      if (closedSent) return;
      closedSent = true;
      gone();
      if (stream.writable) stream.write({ what: { $case: "close", value: { connection } } });
    };
    return new Duplex({
      read() {
        stream.resume();
      },
      write(chunk: Buffer, _enc, cb) {
        if (!stream.writable) return cb(new Error("the egress tunnel closed"));
        stream.write({ what: { $case: "data", value: { connection, bytes: chunk } } }, cb);
      },
      final(cb) {
        sendClose();
        cb();
      },
      destroy(err, cb) {
        sendClose();
        cb(err);
      },
    });
  }
}
