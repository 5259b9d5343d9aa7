// `enclave images …`: bin/enclave runs this entry for the images command (the control plane's CLI
// cannot: nothing imports the image pipeline). The command line is parsed, checked and reported
// exactly as the rest of the CLI does it, so options, output and exit statuses are the same.
import { parsedCommandLine, refuseUntakenOptions } from "@enclave/control-plane/cli/command-line.js";
import { type Outcome, runCli } from "@enclave/control-plane/cli/exit-codes.js";
import { HELP } from "@enclave/control-plane/cli/help.js";
import { say } from "@enclave/control-plane/cli/terminal-text.js";
import { imagesCommand } from "./images-command.js";

async function main(): Promise<Outcome | void> {
  const { values: opts, positionals } = parsedCommandLine();
  const [, sub = "", ...rest] = positionals;
  if (opts.help) {
    say(HELP.images ?? HELP.main ?? "");
    return;
  }
  refuseUntakenOptions("images", opts);
  return imagesCommand({ sub, rest, opts });
}

runCli(main);
