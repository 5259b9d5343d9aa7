// Tests map host placement's sandbox pids to host pids with the control plane's own reader.
export { hostPidOf, sandboxNamespace, sandboxProcesses } from "@enclave/control-plane/placement/sandbox-processes.js";
