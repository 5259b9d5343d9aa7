// The debug adapters Enclave knows, as data, one entry per adapter. Usable for a checkout only when a root
// marker exists there and the binary resolves; `binaries` are tried in order. The agent owns the
// adapters and their ids: the control plane learns them from the Debug service's Adapters answer.
import { C_FAMILY_ROOT_MARKERS } from "./server-registry.js";

export interface DebugAdapterSpec {
  id: string;
  rootMarkers: string[];
  /** Candidate argv lists, first that resolves wins (lldb-dap, then Debian's lldb-vscode-15). */
  commands: string[][];
  /** A Python module the interpreter must be able to import (debugpy). */
  pythonModule?: string;
  install: string;
  /** How the adapter talks DAP: on its stdio, or on a loopback TCP port it prints (delve). */
  transport: "stdio" | "tcp";
  /** Program file extensions that pick this adapter when launch names none. */
  extensions: string[];
  /** It can attach by port to a program already listening on 127.0.0.1. */
  attach: boolean;
}

export const DEBUG_ADAPTERS: readonly DebugAdapterSpec[] = [
  {
    id: "dart",
    rootMarkers: ["pubspec.yaml"],
    commands: [["dart", "debug_adapter"]],
    install: "install the Dart SDK and put `dart` on PATH; no Debian package provides it here",
    transport: "stdio",
    extensions: [".dart"],
    attach: false,
  },
  {
    id: "debugpy",
    rootMarkers: ["pyproject.toml", "setup.py", "requirements.txt"],
    commands: [["python3", "-m", "debugpy.adapter"]],
    pythonModule: "debugpy",
    install: "apt-get install python3-debugpy, or pip install debugpy in the project's .venv",
    transport: "stdio",
    extensions: [".py"],
    attach: true,
  },
  {
    id: "lldb",
    // Rust's, and the C/C++ project markers clangd uses: a C project with only a Makefile is one.
    rootMarkers: ["Cargo.toml", ...C_FAMILY_ROOT_MARKERS],
    commands: [["lldb-dap"], ["lldb-vscode-15"], ["lldb-vscode"]],
    install: "apt-get install lldb-15 (provides lldb-vscode-15)",
    transport: "stdio",
    extensions: [],
    attach: false,
  },
  {
    id: "delve",
    rootMarkers: ["go.mod"],
    commands: [["dlv", "dap", "--listen", "127.0.0.1:0"]],
    install: "apt-get install delve",
    transport: "tcp",
    extensions: [".go"],
    attach: true,
  },
];
