// The egress audit's checks of an enclosure, in the order the report lists them. Each is a file of its
// own; the origin check (which asks the agent) and the remote engine's verdict are added by the audit.
import { runtimeCheck } from "./runtime.js";
import { networkCheck } from "./network.js";
import { listeningSocketsCheck } from "./listening-sockets.js";
import { capabilitiesCheck } from "./capabilities.js";
import { noNewPrivilegesCheck } from "./no-new-privileges.js";
import { readOnlyRootCheck } from "./read-only-root.js";
import { mountsCheck } from "./mounts.js";
import { userCheck } from "./user.js";
import { pidsLimitCheck } from "./pids-limit.js";
import { memoryLimitCheck } from "./memory-limit.js";
import { cpuLimitCheck } from "./cpu-limit.js";
import { seccompCheck } from "./seccomp.js";
import { agentSocketCheck } from "./agent-socket.js";
import { workspaceDiskLimitCheck } from "./workspace-disk-limit.js";
import type { EnclosureCheck } from "./check.js";

export const ENCLOSURE_CHECKS: readonly EnclosureCheck[] = [
  runtimeCheck,
  networkCheck,
  listeningSocketsCheck,
  capabilitiesCheck,
  noNewPrivilegesCheck,
  readOnlyRootCheck,
  mountsCheck,
  userCheck,
  pidsLimitCheck,
  memoryLimitCheck,
  cpuLimitCheck,
  seccompCheck,
  agentSocketCheck,
  workspaceDiskLimitCheck,
];
