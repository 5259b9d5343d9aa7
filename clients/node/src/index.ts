// The Node client's public entry point, `import { EnclaveClient } from "enclave/client"`: the
// control-plane API with every RPC as a method, streams as callbacks or async iterables, an
// AbortSignal per call, and TLS and token options. The message types are the generated ones.
export {
  abortError,
  type CallOptions,
  type ClientOptions,
  ControlPlaneClient as EnclaveClient,
  ControlPlaneUnreachable,
  resultText,
} from "./control-plane-client.js";
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
  ContentPart,
  Conversation,
  Enclosure,
  EnclosureAudit,
  EnclosureLimits,
  EnclosureOptions,
  ImagePart,
  ListToolsResponse,
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
} from "@enclave/proto/gen/enclave/control/v1/control.js";
