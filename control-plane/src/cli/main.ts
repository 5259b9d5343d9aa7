// enclave: the command line a person uses to run and try the control plane. Each command is a small
// handler in commands/; this file parses the line, refuses options the command does not take, picks
// the handler and turns how it ended into the exit status (exit-codes.ts).
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { DEFAULT_LISTEN } from "../config.js";
import { answerCommand } from "./commands/answer.js";
import { auditCommand } from "./commands/audit.js";
import { cardsCommand } from "./commands/cards.js";
import { configCommand } from "./commands/config.js";
import { conversationsCommand } from "./commands/conversations.js";
import { tenantsCommand } from "./commands/tenants.js";
import { doctorCommand } from "./commands/doctor.js";
import { enclosureCommand } from "./commands/enclosure.js";
import { placementCommand } from "./commands/placement.js";
import { callsCommand, hostAgentCommand, kernelCommand } from "./commands/operator-hands.js";
import { runsCommand } from "./commands/runs.js";
import { serveCommand } from "./commands/serve.js";
import { toolCallCommand } from "./commands/tool-call.js";
import { toolsCommand } from "./commands/tools.js";
import { tokensCommand } from "./commands/tokens.js";
import { clientOptions } from "./client-options.js";
import { type CommandContext, usage } from "./context.js";
import { type Outcome, runCli } from "./exit-codes.js";
import { HELP } from "./help.js";
import { COMMAND_OPTIONS } from "./options.js";
import { parsedCommandLine, refuseUntakenOptions } from "./command-line.js";
import { say, sayJson } from "./terminal-text.js";
import { versions } from "./version.js";

/** The commands that talk to a running control plane. */
const CLIENT_COMMANDS: Record<string, (ctx: CommandContext) => Promise<Outcome | void>> = {
  conversations: conversationsCommand,
  tenants: tenantsCommand,
  enclosure: enclosureCommand,
  tools: toolsCommand,
  tool: toolCallCommand,
  runs: runsCommand,
  placement: placementCommand,
  cards: cardsCommand,
  answer: answerCommand,
  audit: auditCommand,
  calls: callsCommand,
  kernel: kernelCommand,
  "host-agent": hostAgentCommand,
};

async function main(): Promise<Outcome | void> {
  const { values: opts, positionals } = parsedCommandLine();
  const [command = "", sub = "", ...rest] = positionals;
  if (opts.version && command === "") {
    const v = versions();
    if (opts.json) sayJson(v);
    else say(`enclave ${v.enclave} (agent ${v.agent})`);
    return;
  }
  if (opts.help || command === "" || command === "help") {
    say(HELP[command === "help" ? sub : command] ?? HELP.main ?? "");
    return;
  }
  // bin/enclave runs the image pipeline's own entry for `images` (images/pipeline/cli.ts).
  if (command === "images") usage("`enclave images` runs through bin/enclave (the image pipeline's entry), not this module");
  if (!command || !COMMAND_OPTIONS[command] || !HELP[command]) usage(`unknown command \`${command}\`\n\n${HELP.main}`);
  refuseUntakenOptions(command, opts);
  if (command === "serve") return serveCommand({ opts });
  if (command === "tokens") return tokensCommand({ sub, rest, opts });
  if (command === "doctor") return doctorCommand({ opts });
  if (command === "config") return configCommand({ opts });
  const handler = CLIENT_COMMANDS[command];
  if (!handler) usage(`unknown command \`${command}\`\n\n${HELP.main}`);
  const client = new ControlPlaneClient(opts.address ?? process.env.ENCLAVE_ADDRESS ?? DEFAULT_LISTEN, clientOptions(opts));
  try {
    return await handler({ sub, rest, opts, client });
  } finally {
    client.close();
  }
}

runCli(main);
