// The launch and attach arguments each adapter understands, for a program in a project. Kept as
// data-shaping only: no processes, no protocol.
import { extname, join } from "node:path";
import type { DebugAdapterSpec } from "./adapter-registry.js";

/** The binary delve builds for a source launch, in the project folder. */
export const DELVE_BUILD_OUTPUT = "__debug_bin_enclave";

export interface LaunchTarget {
  /** Absolute program path (file or, for Go, a package folder). */
  program: string;
  args: string[];
  /** The project root (the marker's folder): the program's working directory. */
  cwd: string;
  /** debugpy: the interpreter that runs the program. */
  interpreter?: string;
  /** The program is a folder (a Go package), as the path resolver found it. */
  programIsFolder?: boolean;
}

export function launchArguments(spec: DebugAdapterSpec, t: LaunchTarget): Record<string, unknown> {
  switch (spec.id) {
    case "debugpy":
      return {
        name: "enclave",
        type: "python",
        request: "launch",
        program: t.program,
        args: t.args,
        cwd: t.cwd,
        python: t.interpreter ? [t.interpreter] : undefined,
        // Output arrives as DAP output events; stdin is not a terminal.
        console: "internalConsole",
        redirectOutput: true,
        justMyCode: true,
        stopOnEntry: false,
      };
    case "lldb":
      return {
        name: "enclave",
        type: "lldb",
        request: "launch",
        program: t.program,
        args: t.args,
        cwd: t.cwd,
        stopOnEntry: false,
        // Disabling ASLR needs personality(2), which Docker's default seccomp profile refuses
        // ("'A' packet returned an error: 8"); the target setting wins over the launch flag.
        disableASLR: false,
        initCommands: ["settings set target.disable-aslr false"],
      };
    case "delve": {
      const isSource = t.programIsFolder === true || extname(t.program) === ".go";
      return {
        name: "enclave",
        type: "go",
        request: "launch",
        mode: isSource ? "debug" : "exec",
        program: t.program,
        // Where delve builds the binary, named so the session can remove it whatever happens to dlv
        // (in the project: /tmp is noexec in an enclosure).
        ...(isSource ? { output: join(t.cwd, DELVE_BUILD_OUTPUT) } : {}),
        args: t.args,
        cwd: t.cwd,
        stopOnEntry: false,
      };
    }
    case "dart":
      return { name: "enclave", type: "dart", request: "launch", program: t.program, args: t.args, cwd: t.cwd };
    default:
      return { request: "launch", program: t.program, args: t.args, cwd: t.cwd };
  }
}

/** Attach arguments for a DAP server already listening (debugpy --listen; a headless delve). */
export function attachArguments(spec: DebugAdapterSpec, cwd: string): Record<string, unknown> {
  if (spec.id === "delve") return { name: "enclave", type: "go", request: "attach", mode: "remote", cwd };
  return { name: "enclave", type: "python", request: "attach", justMyCode: true, cwd };
}
