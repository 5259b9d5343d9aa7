// The launch and attach arguments each adapter understands, for a program in a project. Kept as
// data-shaping only: no processes, no protocol.
import { extname, join } from "node:path";
import type { DebugAdapterSpec } from "@enclave/proto/adapter-registry.js";

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
  /**
   * The program's standard input: undefined when not connected (reads get end-of-file), else how it
   * is fed: debugpy through a runInTerminal launch whose stdin the agent writes; lldb from a file.
   */
  stdin?: { text: string; file?: string };
  /**
   * lldb: folders the program's debug information names otherwise than this placement does (the
   * workspace's host path, for a binary built outside the sandbox), each with where it is here.
   */
  sourcePrefixes?: readonly SourcePrefix[];
}

/** A folder as a binary's debug information records it, and where that folder is in this placement. */
export interface SourcePrefix {
  recorded: string;
  here: string;
}

/** An lldb settings value, quoted. */
function lldbQuoted(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
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
        // Output arrives as DAP output events either way. Given stdin text, the launcher is started
        // through runInTerminal so the agent owns its stdin; otherwise it inherits the adapter's
        // (end-of-file at once).
        console: t.stdin ? "integratedTerminal" : "internalConsole",
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
        // Its stdin is otherwise a pseudo-terminal nobody writes to: a read would wait forever.
        initCommands: [
          "settings set target.disable-aslr false",
          `settings set target.input-path ${lldbQuoted(t.stdin?.file ?? "/dev/null")}`,
          // Breakpoints are set by this placement's paths; lldb matches them against the recorded ones
          // (the compile folder in DWARF) only through the source map.
          ...(t.sourcePrefixes?.length
            ? [`settings set target.source-map ${t.sourcePrefixes.map((m) => `${lldbQuoted(m.recorded)} ${lldbQuoted(m.here)}`).join(" ")}`]
            : []),
        ],
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

/** Attach arguments for a DAP server already listening (debugpy --listen; a headless delve), or lldb's for a pid. */
export function attachArguments(spec: DebugAdapterSpec, cwd: string, pid = 0): Record<string, unknown> {
  if (spec.id === "lldb") return { name: "enclave", type: "lldb", request: "attach", pid, stopOnEntry: false };
  if (spec.id === "delve") return { name: "enclave", type: "go", request: "attach", mode: "remote", cwd };
  return { name: "enclave", type: "python", request: "attach", justMyCode: true, cwd };
}
