// The AgentInfo service: Health (the agent answers, and where it runs) and Describe.
import { platform, release } from "node:os";
import type { AgentInfoServer, Component } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { unary } from "../grpc/unary.js";
import { AGENT_VERSION } from "@enclave/proto/version.js";
import type { Assignment } from "./assignment.js";
import { describeComponents } from "./describe.js";
import { establishedTcp, selfAudit } from "./self-audit.js";

export interface AgentIdentity {
  placement: string;
  workspaceRoot: string;
  grammarDir: string;
  socketPath: string;
  /** Memory the agent's caches hold now, each as a component of kind "cache". */
  caches?: () => Component[];
  /** Ends every debug session before a checkpoint; one line per session ended. */
  endDebugSessions?: () => Promise<string[]>;
}

export function infoService(identity: AgentIdentity, assignment: Assignment): AgentInfoServer {
  const startedAt = Date.now();
  return {
    health: unary(async () => ({
      version: AGENT_VERSION,
      placement: identity.placement,
      workspaceRoot: identity.workspaceRoot,
      pid: process.pid,
      uptimeMs: Date.now() - startedAt,
      nodeVersion: process.version,
      uid: process.getuid?.() ?? -1,
      conversationId: assignment.conversationId,
    })),
    assign: unary(async (req) => ({ conversationId: assignment.assign(req.conversationId) })),
    describe: unary(async () => ({
      components: [...(await describeComponents(identity.workspaceRoot, identity.grammarDir)), ...(identity.caches?.() ?? [])],
      placement: identity.placement,
      platform: `${platform()} ${release()} node ${process.version}`,
    })),
    selfAudit: unary(() => selfAudit(identity.socketPath, identity.workspaceRoot)),
    checkpointPrepare: unary(async () => {
      const endedDebugSessions = (await identity.endDebugSessions?.()) ?? [];
      return { endedDebugSessions, tcpConnections: await establishedTcp() };
    }),
  };
}
