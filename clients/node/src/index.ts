// The Node client's public entry point, `import { EnclaveClient } from "enclave/client"`: the
// control-plane API with every RPC as a method, streams as callbacks or async iterables, an
// AbortSignal per call, and TLS and token options. The message types are the generated ones.
export {
  abortError,
  type AttachCliRunOptions,
  type AuditOptions,
  type CallOptions,
  type CallToolOptions,
  type ClientOptions,
  ControlPlaneCallError,
  ControlPlaneClient as EnclaveClient,
  ControlPlaneUnreachable,
  type OpenRunOptions,
  resultText,
  type ToolCallResult,
  withDetails,
} from "./control-plane-client.js";
// Callers branch on a failure's stable code (ControlPlaneCallError.code), never on its text.
export { ENCLAVE_ERROR_CODES, ENCLAVE_ERROR_STATUS, type EnclaveErrorCode, isEnclaveErrorCode } from "@enclave/proto/control-errors.js";
// ControlPlaneCallError.grpcCode's type, so a caller can compare it without importing grpc-js itself.
export { status as GrpcStatus } from "@grpc/grpc-js";
export { runTools, type RunTools, type ToolCaller, type TypedToolResult } from "./run-tools.js";
export { type EvalOptions, type ExecOptions, Sandbox, type SandboxOptions, ToolCallFailed } from "./sandbox.js";
export type * from "./generated/tool-types.js";
export { TOOL_NAMES } from "./generated/tool-types.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
export { APPROVAL_POLICIES, type ApprovalPolicy, type Surface, SURFACES } from "./run-options.js";
export { SyncedFileState } from "@enclave/proto/gen/enclave/control/v1/control.js";
export type { HarnessAnswer, HarnessCallInfo, HarnessToolSpec, HarnessVerdict, ToolHostConnection, ToolHostHandlers } from "./tool-host-client.js";
export type {
  AuditCheck,
  AuditEvent,
  Card,
  CardAnswer,
  CardArguments,
  CardEvent,
  CardOption,
  CgroupUsage,
  ContentPart,
  Conversation,
  ConversationUsage,
  Enclosure,
  EnclosureAudit,
  EnclosureLimits,
  EnclosureOptions,
  EngineUsage,
  ImagePart,
  ListToolsResponse,
  PendingState,
  PlacementComponent,
  PlacementDescription,
  RichPart,
  Run,
  ToolEvent,
  ToolInfo,
  ToolOutput,
  ToolResult,
  WorkerAssignment,
  WorkerHostCommand,
  WorkerHostHello,
  WorkerHostMessage,
  WorkerKill,
  WorkerProgress,
  WorkerResult,
  WorkspaceUsage,
} from "@enclave/proto/gen/enclave/control/v1/control.js";
