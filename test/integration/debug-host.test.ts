// The debug tool on host placement: real debugpy, lldb-vscode-15 and delve on this machine
// (installed by scripts/ensure-host-debuggers.sh, which `make test` runs).
import { debugScenarios } from "../helpers/debug-scenarios.js";

debugScenarios("host");
