// The command line as a command sees it: parsed, with the options the command does not take refused
// as usage errors that name them and the ones it takes. Shared by this CLI and the image pipeline's.
import { usage } from "./context.js";
import { COMMAND_OPTIONS, type CliOptions, parseCommandLine, refusedOptions, unknownOptions } from "./options.js";

function optionList(command: string): string {
  const names = COMMAND_OPTIONS[command] ?? [];
  return names.length ? names.map((n) => `--${n}`).join(", ") : "no options";
}

/** The usage error for options a command does not take. */
function refuse(command: string, names: string[]): never {
  const what = command && COMMAND_OPTIONS[command] ? `\`enclave ${command}\`` : "enclave";
  usage(`${what} does not take ${names.map((n) => `--${n}`).join(", ")}; it takes ${optionList(command)} (and --help)`);
}

/** The parsed line; an option no command takes is refused like one this command does not take. */
export function parsedCommandLine(args: string[] = process.argv.slice(2)): ReturnType<typeof parseCommandLine> {
  try {
    return parseCommandLine(args);
  } catch (err) {
    if ((err as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw err;
    const { command, unknown } = unknownOptions(args);
    if (unknown.length === 0) throw err;
    refuse(command, unknown);
  }
}

/** Refuses, as a usage error, the options given that `command` does not take. */
export function refuseUntakenOptions(command: string, opts: CliOptions): void {
  const refused = refusedOptions(command, opts);
  if (refused.length) refuse(command, refused);
}
