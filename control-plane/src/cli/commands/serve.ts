// enclave serve: the control plane, its gRPC service and the operator console, in this process.
import { serveConsole } from "../../console/console-server.js";
import { resolveConsoleSettings } from "../../console/console-settings.js";
import { ControlPlane } from "../../control-plane.js";
import { configureLogging, log, resolveLogSettings } from "../../observability/log.js";
import { resolveMetricsListen, serveMetrics } from "../../server/metrics-server.js";
import { resolveApiSecurity } from "../../server/api-security.js";
import { TokenFileAuth } from "../../tenants/caller-auth.js";
import { withinDeadline } from "../../placement/engines.js";
import { serveControlPlane } from "../../server/serve.js";
import { startTracing } from "../../observability/tracing.js";
import type { CommandContext } from "../context.js";
import { exitNow } from "../exit-codes.js";
import { loadServeConfig } from "../serve-config.js";
import { say } from "../terminal-text.js";

export async function serveCommand({ opts }: Pick<CommandContext, "opts">): Promise<void> {
  configureLogging(resolveLogSettings(opts["log-format"] ?? process.env.ENCLAVE_LOG_FORMAT, process.env.ENCLAVE_LOG_LEVEL));
  const metricsListen = resolveMetricsListen(opts.metrics ?? process.env.ENCLAVE_METRICS_LISTEN);
  const config = loadServeConfig(opts);
  // Refused before anything starts: a non-loopback address without TLS and tokens, a missing key.
  resolveApiSecurity(config.listen, config.api).auth.close();
  const tracing = await startTracing(config.tracing);
  const cp = await ControlPlane.start(config);
  const server = await serveControlPlane(cp, config.listen, config.api, tracing);
  const consoleSettings = resolveConsoleSettings(opts.console ?? process.env.ENCLAVE_CONSOLE_LISTEN, process.env.ENCLAVE_CONSOLE_TOKEN);
  // With tenants, the console asks for a token even on loopback: an operator's opens it.
  const operators = config.api.tokensFile ? new TokenFileAuth(config.api.tokensFile) : undefined;
  const web = consoleSettings ? await serveConsole(cp, { ...consoleSettings, operators }) : undefined;
  if (metricsListen) cp.metrics.collectProcessMetrics();
  const metrics = metricsListen ? await serveMetrics(cp.metrics, metricsListen) : undefined;
  log().info(
    {
      api: server.address,
      console: web ? `${web.host}:${web.port}` : "off",
      metrics: metrics?.url ?? "off",
      tracing: config.tracing.otlpEndpoint || "off",
      dataDir: config.dataDir,
    },
    "control plane serving",
  );
  const engines =
    cp.engines.names().length > 1 || cp.engines.identity(cp.engines.names()[0] ?? "").remote
      ? ` (engines: ${cp.engines
          .names()
          .map((n) => `${n}${cp.engines.identity(n).remote ? " remote" : ""}`)
          .join(", ")})`
      : "";
  const docker = await cp
    .dockerDriver()
    .then((d) => withinDeadline(d.engineInfo(), "the default engine"))
    .then(
      () => `available${engines}: \`enclave enclosure start ID\` runs a conversation in an enclosure`,
      () => "not available: conversations run on host placement (`make docker` installs an engine)",
    );
  // The banner after the log lines so far, not among them (JSON lines to a pipe are written asynchronously).
  log().flush();
  say(`Enclave control plane listening on ${server.address} (data: ${config.dataDir})
API: ${server.security}
Docker engine: ${docker}
Operator console: ${web ? `${web.url}${web.tokenRequired ? ` (access token required${consoleSettings?.tokenGenerated ? ", generated for this run" : consoleSettings?.token ? ", from ENCLAVE_CONSOLE_TOKEN" : ""}${operators ? "; an operator tenant's token opens it" : ""}; bound to ${web.host}:${web.port})` : ""}` : "off"}
Metrics: ${metrics ? metrics.url : "off (--metrics 127.0.0.1:9464 serves them)"}
Traces: ${config.tracing.otlpEndpoint ? `OTLP to ${config.tracing.otlpEndpoint}` : "off (--otlp-endpoint http://127.0.0.1:4318 exports them)"}
Try it from another terminal:
  ./bin/enclave tools list
  ./bin/enclave tool call write '{"path":"hello.txt","content":"hello\\n"}'
  ./bin/enclave tool call read '{"path":"hello.txt"}'`);
  // A stop drains (see server/drain.ts) and leaves enclosures running: the next start reconnects to them.
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    operators?.close();
    log().info({ signal }, "control plane stopping: draining (new calls are refused as `draining`; calls in flight finish)");
    void Promise.all([server.drainAndClose(), web?.close(), metrics?.close()])
      .then(([finished]) => {
        if (!finished) log().warn("calls still in flight at the drain limit were cut");
        return cp.close();
      })
      // The spans of the last calls go out before the process does.
      .then(() => tracing.shutdown().catch(() => undefined))
      .then(() => exitNow("ok"));
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}
