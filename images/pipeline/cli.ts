// `enclave images …`: bin/enclave runs this entry for the images command (the control plane's CLI
// cannot: nothing imports the image pipeline). The command line is parsed and reported exactly as the
// rest of the CLI does it, so arguments, output and exit statuses are the same.
import { fail } from "@enclave/control-plane/cli/context.js";
import { HELP } from "@enclave/control-plane/cli/help.js";
import { parseCommandLine } from "@enclave/control-plane/cli/options.js";
import { say } from "@enclave/control-plane/cli/terminal-text.js";
import { imagesCommand } from "./images-command.js";

async function main(): Promise<void> {
  const { values: opts, positionals } = parseCommandLine();
  const [, sub = "", ...rest] = positionals;
  if (opts.help) {
    say(HELP.images ?? HELP.main ?? "");
    return;
  }
  await imagesCommand({ sub, rest, opts });
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
