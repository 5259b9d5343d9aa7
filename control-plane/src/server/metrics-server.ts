// The metrics endpoint: GET /metrics on its own address (off unless --metrics or
// ENCLAVE_METRICS_LISTEN names one), apart from the API and the console so a scraper needs
// neither's credentials and reaches nothing else. It serves counts only: no label carries a
// conversation, a run or an argument (see metrics.ts), so what it shows is the same for every reader.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseListen } from "../console/console-settings.js";
import { EnclaveError } from "../errors.js";
import type { EnclaveMetrics } from "../observability/metrics.js";

export interface ServingMetrics {
  url: string;
  close(): Promise<void>;
}

/** --metrics / ENCLAVE_METRICS_LISTEN: host:port, or off (the default) for no endpoint. */
export function resolveMetricsListen(raw: string | undefined): { host: string; port: number } | undefined {
  const value = (raw ?? "").trim();
  if (value === "" || value === "off" || value === "none") return undefined;
  try {
    return parseListen(value);
  } catch {
    throw new EnclaveError("invalid_arguments", `metrics address \`${value}\` is not host:port (e.g. 127.0.0.1:9464) or off`);
  }
}

export async function serveMetrics(metrics: EnclaveMetrics, listen: { host: string; port: number }): Promise<ServingMetrics> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end("only GET /metrics is served here\n");
      return;
    }
    if (path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found: the metrics are at /metrics\n");
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" }).end(req.method === "HEAD" ? undefined : body),
      (err: unknown) => res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end(`metrics could not be collected: ${(err as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(new EnclaveError("invalid_arguments", `cannot listen for metrics on ${listen.host}:${listen.port}: ${err.message}`)));
    server.listen(listen.port, listen.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
