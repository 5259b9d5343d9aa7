// What every command gets (its words, the options, the client), how a command fails, and the run a
// tool command uses.
import { status } from "@grpc/grpc-js";
import type { Run } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { ControlPlaneCallError, type ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import type { ApprovalPolicy, Surface } from "@enclave/client/run-options.js";
import type { CliOptions } from "./options.js";
import { CliFailure } from "./exit-codes.js";

export interface CommandContext {
  /** The word after the command (`list` in `enclave runs list`), "" when none. */
  sub: string;
  /** The words after that. */
  rest: string[];
  opts: CliOptions;
  client: ControlPlaneClient;
}

/** Fails the command: the control plane or a tool refused, or something is missing (exit status 1). */
export function fail(message: string): never {
  throw new CliFailure("refused", message);
}

/** Fails the command line as written: a missing or wrong argument (exit status 2). */
export function usage(message: string): never {
  throw new CliFailure("usage", message);
}

async function ensureConversation(client: ControlPlaneClient, id: string): Promise<void> {
  try {
    await client.getConversation(id);
  } catch (err) {
    if (!(err instanceof ControlPlaneCallError && err.grpcCode === status.NOT_FOUND)) throw err;
    await client.createConversation(id);
  }
}

/** The run a command uses: the one named by --run, else the one the control plane keeps for the CLI. */
export async function cliRun(client: ControlPlaneClient, opts: CliOptions): Promise<Run> {
  if (opts.run) {
    const run = (await client.listRuns()).find((r) => r.id === opts.run);
    if (!run) fail(`no open run \`${opts.run}\`; \`enclave runs list\` shows the open ones`);
    return run;
  }
  const conversation = opts.conversation ?? "default";
  await ensureConversation(client, conversation);
  // The flags' text goes as typed: the control plane checks it and answers invalid_arguments with the names it takes.
  const surface = opts.surface as Surface | undefined;
  const approvalPolicy = opts.approval as ApprovalPolicy | undefined;
  return client.attachCliRun(conversation, { surface, approvalPolicy, vibeMode: opts.vibe, newRun: opts["new-run"] });
}
