// What the transports (the gRPC service, the operator console, the serve command) may use of the
// control plane: an allow-list of its operations, so a part or member added to ControlPlane stays
// out of every transport's reach until it is named here on purpose.
import type { ControlPlane } from "./control-plane.js";
import type { ToolHost } from "./toolhost/tool-host.js";

export type ControlPlaneApi = Pick<
  ControlPlane,
  // conversations and their placement
  | "createConversation"
  | "setConversationEgress"
  | "egressMaximum"
  | "setEgressMaximumSource"
  | "getConversation"
  | "conversationUsage"
  | "listConversations"
  | "conversationPage"
  | "deleteConversation"
  | "forkConversation"
  | "conversationTenant"
  | "liveEnclosures"
  | "startEnclosure"
  | "stopEnclosure"
  | "pauseEnclosure"
  | "resumeEnclosure"
  | "enclosureDefaults"
  | "describePlacement"
  | "describeRunningPlacement"
  | "startHostAgent"
  | "hostAgentPid"
  | "hostSparesReady"
  | "liveHostAgents"
  | "runningConversations"
  | "agentRunning"
  | "liveKernels"
  | "auditEnclosure"
  // the idle policy, and paused tenants
  | "setConversationLifecycle"
  | "sleepConversation"
  | "tenantPause"
  | "pausedTenants"
  | "pauseTenant"
  | "resumeTenant"
  // runs and tools
  | "openRun"
  | "attachCliRun"
  | "run"
  | "listRuns"
  | "closeRun"
  | "setVibeMode"
  | "cliRunState"
  | "pendingCount"
  | "requiredNextTool"
  | "listTools"
  | "toolNames"
  | "isEnclaveTool"
  | "customToolFailures"
  | "callTool"
  | "syncWrites"
  | "subscribeCalls"
  // the operator's hands (the transports check the caller is an operator)
  | "listCallsInFlight"
  | "callInFlight"
  | "cancelCall"
  | "stopKernel"
  | "stopHostAgent"
  // harness tool hosts and worker hosts
  | "connectToolHost"
  | "disconnectToolHost"
  | "addWorkerHost"
  | "removeWorkerHost"
  | "runningWorkerCount"
  // cards
  | "cards"
  | "answerCard"
  | "cardArgumentsPage"
  | "cardArgumentsText"
  | "subscribeCards"
  // the audit log and live status
  | "auditHistory"
  | "auditHistoryStart"
  | "auditPage"
  | "subscribeAudit"
  | "recordAudit"
  | "liveStatusSources"
  // tenants' accounts
  | "quotas"
  | "streams"
  | "dataDir"
>;

/** What the ConnectToolHost stream needs of the control plane. */
export interface ToolHostPort {
  /** The run's id, or not_found when no such run is open. */
  runIdFor(runId: string): string;
  isEnclaveTool(name: string): boolean;
  connectToolHost(host: ToolHost, onRefused: (why: string) => void): void;
  disconnectToolHost(host: ToolHost, why: string): void;
}
