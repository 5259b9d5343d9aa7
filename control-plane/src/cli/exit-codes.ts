// The CLI's exit statuses, decided here and nowhere else: commands throw or return an outcome, and
// main turns it into a status. Scripts branch on the status, so each one keeps its meaning.
import { ControlPlaneUnreachable } from "@enclave/client/control-plane-client.js";
import { sayError } from "./terminal-text.js";

export const EXIT_CODES = {
  /** The command did what it was asked. */
  ok: 0,
  /** A tool answered with an error, or the control plane refused the request. */
  refused: 1,
  /** The command line itself is wrong: an unknown command or option, a missing argument. */
  usage: 2,
  /** A check failed: the egress audit (`audit ID`), `images verify`. (doctor reports missing parts as 1.) */
  checkFailed: 3,
  /** No control plane answers at the address. */
  unreachable: 4,
} as const;

export type Outcome = keyof typeof EXIT_CODES;

/** The exit status table as --help shows it. */
export const EXIT_CODES_HELP = `exit status:
  0  ok
  1  a tool error, or the control plane refused the request (doctor: something is missing)
  2  usage: an unknown command or option, a missing argument
  3  a check failed (audit ID's egress audit, images verify)
  4  no control plane answers at the address`;

/** A failure the CLI itself raises, with the outcome it exits with. */
export class CliFailure extends Error {
  constructor(
    readonly outcome: Outcome,
    message: string,
  ) {
    super(message);
    this.name = "CliFailure";
  }
}

/** Node's parseArgs errors about the command line (unknown option, missing value, stray argument). */
const PARSE_ARGS_CODES = new Set(["ERR_PARSE_ARGS_UNKNOWN_OPTION", "ERR_PARSE_ARGS_INVALID_OPTION_VALUE", "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL"]);

/** The outcome of an error thrown out of a command. */
export function outcomeOf(err: unknown): Outcome {
  if (err instanceof CliFailure) return err.outcome;
  if (err instanceof ControlPlaneUnreachable) return "unreachable";
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && PARSE_ARGS_CODES.has(code)) return "usage";
  return "refused";
}

export function exitCodeOf(outcome: Outcome): number {
  return EXIT_CODES[outcome];
}

/** Ends the process at once with the outcome's status: for a long-running command's signal handler. */
export function exitNow(outcome: Outcome): never {
  process.exit(EXIT_CODES[outcome]);
}

/**
 * Runs a CLI's main and sets the exit status from how it ended: the one place it is decided.
 * process.exitCode (not exit()) lets output drain first; serve and the --follow commands keep the
 * process alive on their own.
 */
export function runCli(main: () => Promise<Outcome | void>): void {
  main().then(
    (outcome) => {
      process.exitCode = exitCodeOf(outcome ?? "ok");
    },
    (err: unknown) => {
      sayError(`enclave: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = exitCodeOf(outcomeOf(err));
    },
  );
}
