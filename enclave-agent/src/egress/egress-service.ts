// The agent's half of egress by policy. The control plane opens an EgressTunnel stream only for a
// conversation with an egress policy; while it is open the agent listens on 127.0.0.1 (its own
// loopback: an enclosure has no other interface) and carries each accepted connection's bytes over
// the stream. The agent dials nothing and decides nothing: the control plane's proxy applies the
// policy. The proxy variables are set for what the agent starts while the listener is up (kernels,
// commands, language servers), pip's and npm's among them, and removed when it closes.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { ServerDuplexStream } from "@grpc/grpc-js";
import type { EgressFromAgent, EgressProbeRequest, EgressProbeResponse, EgressServer, EgressToAgent } from "@enclave/proto/gen/enclave/agent/v1/egress.js";
import { unary } from "../grpc/unary.js";

const PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "PIP_PROXY", "npm_config_proxy", "npm_config_https_proxy"];
const NO_PROXY_VARS = ["NO_PROXY", "no_proxy", "npm_config_noproxy"];

function setProxyVariables(port: number, noProxy: string[]): void {
  const url = `http://127.0.0.1:${port}`;
  for (const v of PROXY_VARS) process.env[v] = url;
  for (const v of NO_PROXY_VARS) process.env[v] = noProxy.join(",");
}

function clearProxyVariables(): void {
  for (const v of [...PROXY_VARS, ...NO_PROXY_VARS]) delete process.env[v];
}

/** The most connections the listener holds at once (the control plane bounds them again, per conversation and tenant). */
const MAX_CONNECTIONS = 64;

/** Asks the proxy on our own listener for a CONNECT to host:port; its status line, or what failed. */
function probe(listenerPort: number, host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: "127.0.0.1", port: listenerPort });
    let got = "";
    const done = (line: string): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(line);
    };
    const timer = setTimeout(() => done("error: no answer in 10 s"), 10_000);
    s.on("connect", () => s.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`));
    s.on("data", (b: Buffer) => {
      got += b.toString("latin1");
      const end = got.indexOf("\r\n");
      if (end >= 0) done(got.slice(0, end));
    });
    s.on("error", (err) => done(`error: ${err.message}`));
    s.on("close", () => done(got ? (got.split("\r\n")[0] ?? "") : "error: closed without an answer"));
  });
}

export function egressService(): EgressServer {
  /** The one tunnel served now: a newer one replaces it (the control plane reconnected). */
  let current: (() => void) | undefined;
  /** The port the current tunnel's listener has, once it listens. */
  let listeningPort: number | undefined;
  return {
    egressProbe: unary(async (req: EgressProbeRequest): Promise<EgressProbeResponse> => {
      if (listeningPort === undefined) return { listening: false, statusLine: "" };
      return { listening: true, statusLine: await probe(listeningPort, req.host, req.port) };
    }),
    egressTunnel(call: ServerDuplexStream<EgressToAgent, EgressFromAgent>): void {
      current?.();
      const sockets = new Map<number, Socket>();
      let server: Server | undefined;
      let next = 1;
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        if (current === end) {
          current = undefined;
          listeningPort = undefined;
        }
        server?.close();
        clearProxyVariables();
        for (const s of sockets.values()) s.destroy();
        sockets.clear();
        if (!call.writableEnded) call.end();
      };
      current = end;
      const send = (m: EgressFromAgent): void => {
        if (ended || call.writableEnded) return;
        // A control plane behind on a connection's bytes holds every socket until it catches up.
        if (!call.write(m)) {
          for (const s of sockets.values()) s.pause();
          call.once("drain", () => {
            for (const s of sockets.values()) s.resume();
          });
        }
      };
      call.on("data", (m: EgressToAgent) => {
        const what = m.what;
        if (!what) return;
        if (what.$case === "listen" && !server) {
          const noProxy = what.value.noProxy;
          // Half-open: a client done sending (FIN) still reads the answer; its end is sent on as a close,
          // and the socket ends when the control plane closes the connection.
          server = createServer({ allowHalfOpen: true }, (socket) => {
            const id = next++;
            let ended = false;
            const sendEnd = (): void => {
              if (ended) return;
              ended = true;
              send({ what: { $case: "close", value: { connection: id } } });
            };
            sockets.set(id, socket);
            socket.on("data", (bytes: Buffer) => send({ what: { $case: "data", value: { connection: id, bytes } } }));
            socket.on("end", sendEnd);
            socket.on("error", () => socket.destroy());
            socket.on("close", () => {
              sockets.delete(id);
              sendEnd();
            });
            send({ what: { $case: "opened", value: { connection: id } } });
          });
          server.maxConnections = MAX_CONNECTIONS;
          server.on("error", () => end());
          server.listen({ host: "127.0.0.1", port: 0 }, () => {
            const address = server?.address();
            const port = address && typeof address === "object" ? address.port : 0;
            setProxyVariables(port, noProxy);
            if (current === end) listeningPort = port;
            send({ what: { $case: "listening", value: { port } } });
          });
        } else if (what.$case === "data") {
          const s = sockets.get(what.value.connection);
          if (s && !s.write(what.value.bytes)) {
            call.pause();
            s.once("drain", () => call.resume());
          }
        } else if (what.$case === "close") {
          const s = sockets.get(what.value.connection);
          if (s) {
            sockets.delete(what.value.connection);
            s.end();
          }
        }
      });
      call.on("end", end);
      call.on("error", end);
      call.on("cancelled", end);
      call.on("close", end);
    },
  };
}
