// enclave: the command line a person uses to run and try the control plane. Each command is a small
// handler in commands/; this file parses the line and picks the handler.
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { DEFAULT_LISTEN } from "../config.js";
import { answerCommand } from "./commands/answer.js";
import { auditCommand } from "./commands/audit.js";
import { cardsCommand } from "./commands/cards.js";
import { conversationsCommand } from "./commands/conversations.js";
import { enclosureCommand } from "./commands/enclosure.js";
import { placementCommand } from "./commands/placement.js";
import { runsCommand } from "./commands/runs.js";
import { serveCommand } from "./commands/serve.js";
import { toolCallCommand } from "./commands/tool-call.js";
import { toolsCommand } from "./commands/tools.js";
import { tokensCommand } from "./commands/tokens.js";
import { clientOptions } from "./client-options.js";
import { type CommandContext, fail } from "./context.js";
import { HELP } from "./help.js";
import { parseCommandLine } from "./options.js";
import { say } from "./terminal-text.js";

/** The commands that talk to a running control plane. */
const CLIENT_COMMANDS: Record<string, (ctx: CommandContext) => Promise<void>> = {
  conversations: conversationsCommand,
  enclosure: enclosureCommand,
  tools: toolsCommand,
  tool: toolCallCommand,
  runs: runsCommand,
  placement: placementCommand,
  cards: cardsCommand,
  answer: answerCommand,
  audit: auditCommand,
};

async function main(): Promise<void> {
  const { values: opts, positionals } = parseCommandLine();
  const [command = "", sub = "", ...rest] = positionals;
  if (opts.help || command === "" || command === "help") {
    say(HELP[command === "help" ? sub : command] ?? HELP.main ?? "");
    return;
  }
  if (command === "serve") return serveCommand({ opts });
  // bin/enclave runs the image pipeline's own entry for `images` (images/pipeline/cli.ts).
  if (command === "images") fail("`enclave images` runs through bin/enclave (the image pipeline's entry), not this module");
  if (command === "tokens") return tokensCommand({ sub, rest, opts });
  const handler = CLIENT_COMMANDS[command];
  if (!handler || !HELP[command]) fail(`unknown command \`${command}\`\n\n${HELP.main}`);
  const client = new ControlPlaneClient(opts.address ?? process.env.ENCLAVE_ADDRESS ?? DEFAULT_LISTEN, clientOptions(opts));
  try {
    await handler({ sub, rest, opts, client });
  } finally {
    client.close();
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
