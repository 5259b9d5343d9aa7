// enclave serve: the control plane, its gRPC service and the operator console, in this process.
import { loadConfig } from "../../config.js";
import { serveConsole } from "../../console/console-server.js";
import { resolveConsoleSettings } from "../../console/console-settings.js";
import { ControlPlane } from "../../control-plane.js";
import { withinDeadline } from "../../placement/engines.js";
import { serveControlPlane } from "../../server/serve.js";
import type { CommandContext } from "../context.js";
import { say } from "../terminal-text.js";

export async function serveCommand({ opts }: Pick<CommandContext, "opts">): Promise<void> {
  const config = loadConfig({ dataDir: opts["data-dir"], listen: opts.listen });
  const cp = await ControlPlane.start(config);
  const server = await serveControlPlane(cp, config.listen);
  const consoleSettings = resolveConsoleSettings(opts.console ?? process.env.ENCLAVE_CONSOLE_LISTEN, process.env.ENCLAVE_CONSOLE_TOKEN);
  const web = consoleSettings ? await serveConsole(cp, consoleSettings) : undefined;
  const engines = cp.engines.names().length > 1 || cp.engines.identity(cp.engines.names()[0] ?? "").remote ? ` (engines: ${cp.engines.names().map((n) => `${n}${cp.engines.identity(n).remote ? " remote" : ""}`).join(", ")})` : "";
  const docker = await cp.dockerDriver().then((d) => withinDeadline(d.engineInfo(), "the default engine")).then(
    () => `available${engines}: \`enclave enclosure start ID\` runs a conversation in an enclosure`,
    () => "not available: conversations run on host placement (`make docker` installs an engine)",
  );
  say(`Enclave control plane listening on ${server.address} (data: ${config.dataDir})
Docker engine: ${docker}
Operator console: ${web ? `${web.url}${web.tokenRequired ? ` (access token required${consoleSettings?.tokenGenerated ? ", generated for this run" : ", from ENCLAVE_CONSOLE_TOKEN"}; bound to ${web.host}:${web.port})` : ""}` : "off"}
Try it from another terminal:
  ./bin/enclave tools list
  ./bin/enclave tool call write '{"path":"hello.txt","content":"hello\\n"}'
  ./bin/enclave tool call read '{"path":"hello.txt"}'`);
  const stop = (): void => {
    void Promise.all([server.close(), web?.close()])
      .then(() => cp.close())
      .then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
