// enclave-agent: the resource host that runs next to the code, on the host or inside an enclosure.
//   enclave-agent (--socket PATH | --listen-fd N) --workspace DIR [--placement host|enclosure] [--grammars DIR] [--state-dir DIR] [--exit-with-stdin] [--warm-kernel LANGUAGE] [--spare]
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { KernelPool } from "./kernels/kernel-pool.js";
import { isKernelLanguage } from "./kernels/kernel-registry.js";
import { openStateFolder, type StateFolder } from "./state/state-folder.js";
import { noteVenvRefusals } from "./python/project-python.js";

const usage = `usage: enclave-agent (--socket PATH | --listen-fd N) --workspace DIR [--placement host|enclosure] [--grammars DIR] [--state-dir DIR] [--exit-with-stdin] [--warm-kernel LANGUAGE] [--spare]

Serves the enclave agent's gRPC services on a unix socket (never TCP).
  --socket PATH        unix socket to create and listen on
  --listen-fd N        an inherited, already-listening unix socket to accept on
  --workspace DIR      the workspace root; no path outside it is ever touched
  --placement NAME     "host" or "enclosure" (reported by Health)
  --grammars DIR       folder of tree-sitter .wasm grammars (default: beside the bundle)
  --state-dir DIR      the agent's private state (write journal, kernel environments): outside the
                       workspace, owned by the agent's user, mode 0700; give the same one on every
                       restart so an interrupted change is finished (default: a new folder under the
                       temporary folder, removed when the agent stops)
  --exit-with-stdin    exit when standard input closes (the host control plane's lifeline)
  --warm-kernel LANG   start the python or javascript kernel at once, while the agent loads: the
                       agent was started for a cell of that language
  --spare              started ahead of any conversation (the host's spare agents): the kernel
                       --warm-kernel starts also imports ahead what a first cell needs
  --venv-refused FOLDER<TAB>CODE<TAB>MESSAGE
                       a virtual environment whose base Python the host's control plane did not
                       show in the sandbox, and why (repeatable): said when that venv cannot run`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      socket: { type: "string" },
      "listen-fd": { type: "string" },
      workspace: { type: "string" },
      placement: { type: "string", default: "host" },
      grammars: { type: "string" },
      "state-dir": { type: "string" },
      "exit-with-stdin": { type: "boolean", default: false },
      "warm-kernel": { type: "string" },
      spare: { type: "boolean", default: false },
      "venv-refused": { type: "string", multiple: true },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  noteVenvRefusals(values["venv-refused"] ?? []);
  const listenFd = values["listen-fd"] === undefined ? undefined : Number(values["listen-fd"]);
  if (!values.workspace || (values.socket === undefined) === (listenFd === undefined) || (listenFd !== undefined && !Number.isInteger(listenFd))) {
    console.error(`enclave-agent: --workspace and exactly one of --socket PATH or --listen-fd N (a number) are required\n\n${usage}`);
    process.exit(2);
  }
  const listen = listenFd === undefined ? { socketPath: values.socket as string } : { fd: listenFd };
  const placement = values.placement === "enclosure" ? "enclosure" : "host";
  const grammarDir = values.grammars ?? join(dirname(fileURLToPath(import.meta.url)), "grammars");
  const kernelDir = join(dirname(fileURLToPath(import.meta.url)), "kernels");
  const warm = values["warm-kernel"];
  if (warm !== undefined && !isKernelLanguage(warm)) {
    console.error(`enclave-agent: --warm-kernel takes python or javascript, not \`${warm}\`\n\n${usage}`);
    process.exit(2);
  }
  // The state folder and the kernel pool come first, and a kernel asked for starts now: the rest of
  // the agent (gRPC, the language-server, debugger and structural-search services) is loaded below
  // with import(), which the bundle evaluates only then, so the kernel's start-up overlaps it.
  let early: { state: StateFolder; kernels: KernelPool } | undefined;
  if (warm) {
    const root = realpathSync(values.workspace);
    const state = openStateFolder(values["state-dir"], root);
    early = { state, kernels: new KernelPool(root, kernelDir, state.kernelsDir) };
    early.kernels.warm(warm, { spare: values.spare });
  }
  const { startAgent } = await import("./agent-server.js");
  const agent = await startAgent({
    listen,
    workspaceRoot: values.workspace,
    placement,
    grammarDir,
    kernelDir,
    stateDir: values["state-dir"],
    ...(early ? { early } : {}),
  });
  process.stderr.write(
    `enclave-agent ${process.pid}: serving ${values.workspace} on ${values.socket ? `unix:${values.socket}` : `inherited fd ${listenFd}`} (${placement})\n`,
  );

  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`enclave-agent ${process.pid}: stopping (${why})\n`);
    void agent.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  if (values["exit-with-stdin"]) {
    process.stdin.on("end", () => stop("parent closed stdin"));
    process.stdin.on("error", () => stop("parent closed stdin"));
    process.stdin.resume();
  }
}

// One stray throw in a handler (a send on a stream that just closed) must not take down every
// language server, debug session and kernel this agent hosts: log it and keep serving.
process.on("uncaughtException", (err) => process.stderr.write(`enclave-agent ${process.pid}: uncaught: ${err.stack ?? err.message}\n`));
process.on("unhandledRejection", (err) =>
  process.stderr.write(`enclave-agent ${process.pid}: unhandled rejection: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
);

main().catch((err: unknown) => {
  console.error(`enclave-agent: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
