// Assembles the agent's gRPC services on one unix socket, never TCP. In an enclosure the socket lives
// in the container's own /run (the control plane reaches it through a relay it runs over the engine's
// exec); on the host the control plane hands the sandboxed agent an already-listening socket, so the
// agent never names, creates or exposes a host path.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import { createServer, type Server as NetServer } from "node:net";
import { dirname } from "node:path";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { AstService } from "@enclave/proto/gen/enclave/agent/v1/ast.js";
import { FilesService } from "@enclave/proto/gen/enclave/agent/v1/files.js";
import { AgentInfoService } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { ProcessService } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import { KernelsService } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { KernelPool } from "./kernels/kernel-pool.js";
import { kernelsService } from "./kernels/kernel-service.js";
import { filesService } from "./fs/files-service.js";
import { WorkspacePaths } from "./fs/workspace-paths.js";
import { WorkspaceWriter } from "./fs/workspace-writer.js";
import { processService } from "./exec/exec-service.js";
import { Assignment } from "./info/assignment.js";
import { infoService } from "./info/info-service.js";
import { LIMITS } from "./limits.js";
import { AstEngine, astCacheComponent } from "./ast/ast-engine.js";
import { astService } from "./ast/ast-service.js";
import { LspService } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { CallMuxService } from "@enclave/proto/gen/enclave/agent/v1/mux.js";
import { callMuxService, UnaryMethods } from "./grpc/call-mux.js";
import { lspService } from "./lsp/lsp-service.js";
import { LspSupervisor } from "./lsp/supervisor.js";
import { DebugService } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { debugService } from "./dap/debug-service.js";
import { DebugSupervisor } from "./dap/debug-supervisor.js";
import { openStateFolder, type StateFolder } from "./state/state-folder.js";
import { within } from "@enclave/proto/wait.js";
import { EgressService } from "@enclave/proto/gen/enclave/agent/v1/egress.js";
import { egressService } from "./egress/egress-service.js";

export interface AgentOptions {
  /** Where to listen: a socket path the agent binds, or a listening socket it inherited as a file descriptor. */
  listen: { socketPath: string } | { fd: number };
  workspaceRoot: string;
  placement: "host" | "enclosure";
  grammarDir: string;
  /** Folder of the kernel runners (kernels/ beside the bundle). */
  kernelDir: string;
  /**
   * The agent's private state folder (write journal, kernel environments), outside the workspace and
   * mode 0700. Give one that survives restarts so an interrupted change is finished; when absent the
   * agent makes one with an unpredictable name and removes it when it stops.
   */
  stateDir?: string;
  /** Made before the rest of the agent loads (main.ts), when a kernel is started ahead. */
  early?: { state: StateFolder; kernels: KernelPool };
}

export interface RunningAgent {
  server: Server;
  close(): Promise<void>;
}

/** Clears the socket's path: a socket left by a previous agent, or anything planted there (a link
 * included: bind() would refuse the name, and the agent must come back after a restart). */
function removeStaleSocket(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) unlinkSync(path);
  } catch {
    // Nothing there.
  }
}

export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const paths = new WorkspacePaths(opts.workspaceRoot);
  const state = opts.early?.state ?? openStateFolder(opts.stateDir, paths.root);
  const server = new Server({
    "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
    "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
    // Nothing reads channelz here; left on, grpc-js keeps statistics and traces on every call.
    "grpc.enable_channelz": 0,
  });
  const assignment = new Assignment(state.root, () => {
    // A warm-pool enclosure's workspace was mounted over the folder opened at start: follow it.
    paths.reopenRoot();
    if (opts.placement === "enclosure") process.chdir(paths.root);
  });
  // Made before the info service, which reports the memory its parse cache holds.
  const ast = new AstEngine(paths, opts.grammarDir);
  // Made before the info service too, which ends its sessions before a checkpoint.
  const debug = new DebugSupervisor(paths);
  // Every service is also reachable through the call mux (its unary methods, over one stream).
  const methods = new UnaryMethods();
  methods.serve(
    server,
    AgentInfoService,
    infoService(
      {
        placement: opts.placement,
        workspaceRoot: paths.root,
        grammarDir: opts.grammarDir,
        socketPath: "socketPath" in opts.listen ? opts.listen.socketPath : "",
        caches: () => [astCacheComponent(ast.cacheUsage())],
        endDebugSessions: () => debug.endForCheckpoint(),
      },
      assignment,
    ),
  );
  const writer = new WorkspaceWriter(paths, state.journalDir);
  // A change a crash interrupted is finished (or undone) before anything else reads the files.
  for (const line of await writer.recover()) process.stderr.write(`enclave-agent: ${line}\n`);
  methods.serve(server, FilesService, filesService(paths, writer));
  methods.serve(server, ProcessService, processService(paths));
  // A tree kept for a file's old text is dead weight once the agent rewrites the file.
  writer.onCommitted((rels) => ast.forget(rels));
  methods.serve(server, AstService, astService(paths, ast, writer));
  const lsp = new LspSupervisor(paths, { stateDir: state.lspDir });
  methods.serve(server, LspService, lspService(paths, lsp, writer));
  methods.serve(server, DebugService, debugService(debug));
  const kernels = opts.early?.kernels ?? new KernelPool(paths.root, opts.kernelDir, state.kernelsDir);
  methods.serve(server, KernelsService, kernelsService(kernels));

  server.addService(CallMuxService, callMuxService(methods));
  // Not through the mux: a stream, opened only while the conversation has an egress policy.
  server.addService(EgressService, egressService());

  const stopListening = await listen(server, opts.listen);
  return {
    server,
    close: async () => {
      // Open Eval streams end only when their cells do: kill the kernels so they can.
      const kernelsClosed = kernels.close();
      ast.close();
      // Language servers (and every process they started) and debug sessions go with the agent, all
      // at once (debug bounded: a stuck adapter is killed).
      await Promise.all([lsp.stopAll(), within(debug.closeAll(), 4_000, undefined)]);
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 2_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          stopListening();
          resolve();
        });
      });
      await kernelsClosed;
      state.dispose();
    },
  };
}

/** Starts serving; returns what undoes the listening (the socket file, or the inherited listener). */
async function listen(server: Server, where: AgentOptions["listen"]): Promise<() => void> {
  if ("fd" in where) {
    const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
    const listener: NetServer = createServer((conn) => injector.injectConnection(conn));
    await new Promise<void>((resolve, reject) => {
      listener.once("error", reject);
      listener.listen({ fd: where.fd }, () => resolve());
    });
    return () => {
      listener.close();
      injector.destroy();
    };
  }
  const { socketPath } = where;
  mkdirSync(dirname(socketPath), { recursive: true, mode: 0o700 });
  removeStaleSocket(socketPath);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  // Only the agent's own user may connect (the relay runs as that user).
  chmodSync(socketPath, 0o600);
  return () => removeStaleSocket(socketPath);
}
