// Assembles the agent's gRPC services on one unix socket. Never TCP: the socket's folder is the only
// way in, bind-mounted from the host when the agent runs in an enclosure.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { ArchiveService } from "../../proto/gen/enclave/agent/v1/archive.js";
import { AstService } from "../../proto/gen/enclave/agent/v1/ast.js";
import { FilesService } from "../../proto/gen/enclave/agent/v1/files.js";
import { AgentInfoService } from "../../proto/gen/enclave/agent/v1/info.js";
import { ProcessService } from "../../proto/gen/enclave/agent/v1/process.js";
import { KernelsService } from "../../proto/gen/enclave/agent/v1/kernel.js";
import { KernelFactory } from "./kernels/kernel-factory.js";
import { kernelsService } from "./kernels/kernel-service.js";
import { archiveService } from "./fs/archive-service.js";
import { filesService } from "./fs/files-service.js";
import { WorkspacePaths } from "./fs/workspace-paths.js";
import { processService } from "./exec/exec-service.js";
import { infoService } from "./info/info-service.js";
import { LIMITS } from "./limits.js";
import { AstEngine } from "./ast/ast-engine.js";
import { astService } from "./ast/ast-service.js";
import { recoverJournals } from "./ast/apply-journal.js";
import { LspService } from "../../proto/gen/enclave/agent/v1/lsp.js";
import { lspService } from "./lsp/lsp-service.js";
import { LspSupervisor } from "./lsp/supervisor.js";
import { DebugService } from "../../proto/gen/enclave/agent/v1/debug.js";
import { debugService } from "./dap/debug-service.js";
import { DebugSupervisor } from "./dap/debug-supervisor.js";

export interface AgentOptions {
  socketPath: string;
  workspaceRoot: string;
  placement: "host" | "enclosure";
  grammarDir: string;
  /** Folder of the kernel runners (kernels/ beside the bundle). */
  kernelDir: string;
}

export interface RunningAgent {
  server: Server;
  close(): Promise<void>;
}

function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Nothing there.
  }
}

export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const paths = new WorkspacePaths(opts.workspaceRoot);
  const server = new Server({
    "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
    "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  });
  server.addService(AgentInfoService, infoService({ placement: opts.placement, workspaceRoot: paths.root, grammarDir: opts.grammarDir, socketPath: opts.socketPath }));
  server.addService(FilesService, filesService(paths));
  server.addService(ArchiveService, archiveService(paths));
  server.addService(ProcessService, processService(paths));
  // An apply a crash interrupted is finished (or undone) before anything else reads the files.
  for (const line of await recoverJournals(paths.root)) process.stderr.write(`enclave-agent: ${line}\n`);
  server.addService(AstService, astService(paths, new AstEngine(paths, opts.grammarDir)));
  const lsp = new LspSupervisor(paths);
  server.addService(LspService, lspService(paths, lsp));
  const debug = new DebugSupervisor(paths);
  server.addService(DebugService, debugService(debug));
  const kernels = new KernelFactory(paths.root, opts.kernelDir);
  server.addService(KernelsService, kernelsService(kernels));

  mkdirSync(dirname(opts.socketPath), { recursive: true });
  removeStaleSocket(opts.socketPath);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${opts.socketPath}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  // Only the agent's own user (and root, which the host control plane is) may connect.
  chmodSync(opts.socketPath, 0o600);
  return {
    server,
    close: async () => {
      // Open Eval streams end only when their cells do: kill the kernels so they can.
      const kernelsClosed = kernels.close();
      // Language servers (and every process they started) and debug sessions go with the agent, all
      // at once (debug bounded: a stuck adapter is killed).
      await Promise.all([lsp.stopAll(), Promise.race([debug.closeAll(), new Promise((r) => setTimeout(r, 4_000).unref())])]);
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 2_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          removeStaleSocket(opts.socketPath);
          resolve();
        });
      });
      await kernelsClosed;
    },
  };
}
