// Whether each debug adapter can start for a checkout: both conditions must hold. A root marker
// must exist *and* the adapter's binary must resolve; either alone means no session starts, and the
// answer says which half is missing and how to fix it.
import { dirname, relative } from "node:path";
import { describeBinary, findBinary } from "../exec/resolve-binary.js";
import { foldersUp, markerFolders, markersIn, markersUp } from "../fs/project-roots.js";
import { DEBUG_ADAPTERS, type DebugAdapterSpec } from "@enclave/proto/adapter-registry.js";
import { type PythonPurpose, resolvePython } from "./python-interpreter.js";

export type AdapterState = "usable" | "missing_marker" | "missing_binary";

export interface AdapterAvailability {
  spec: DebugAdapterSpec;
  state: AdapterState;
  /** Workspace-relative paths of the root markers found. */
  markers: string[];
  /** The folder of the nearest marker (absolute); the project root a launch runs in. */
  projectRoot?: string;
  /** The argv that starts the adapter, when the binary resolves. */
  command?: string[];
  /** debugpy: the interpreter that runs the program. */
  interpreter?: string;
  /** The command or interpreter is the project's own, named but not run to check it (overviews). */
  unchecked?: boolean;
  detail: string;
}

async function resolveCommand(
  spec: DebugAdapterSpec,
  projectFolders: string[],
  purpose: PythonPurpose,
): Promise<{ ok: true; command: string[]; interpreter?: string; unchecked: boolean; detail: string } | { ok: false; detail: string }> {
  if (spec.pythonModule) {
    const py = await resolvePython(projectFolders, purpose);
    if (!py.ok) return { ok: false, detail: py.detail };
    return {
      ok: true,
      command: [py.choice.adapterPython, "-m", `${spec.pythonModule}.adapter`],
      interpreter: py.choice.interpreter,
      unchecked: py.choice.unchecked === true,
      detail: `interpreter ${py.choice.interpreter} (${py.choice.origin})`,
    };
  }
  for (const argv of spec.commands) {
    const found = findBinary(argv[0] ?? "", projectFolders[0]);
    if (found) return { ok: true, command: [found.path, ...argv.slice(1)], unchecked: found.projectLocal, detail: describeBinary(found) };
  }
  const names = spec.commands.map((c) => `\`${c[0]}\``).join(" or ");
  return { ok: false, detail: `${names} ${spec.commands.length > 1 ? "are" : "is"} not on PATH here; ${spec.install}` };
}

function markerHint(spec: DebugAdapterSpec): string {
  return spec.rootMarkers.join(", ");
}

/**
 * Availability of one adapter. With `start` (a launch: the program's folder), markers are looked for
 * from there up to the workspace root; without (an overview), at the root and one level below. Only
 * a launch may run the project's own interpreter to check it; an overview runs nothing from the workspace.
 */
export async function adapterAvailability(spec: DebugAdapterSpec, workspaceRoot: string, start?: string): Promise<AdapterAvailability> {
  const purpose: PythonPurpose = start === undefined ? "describe" : "launch";
  // A launch looks from the program's folder up; an overview at the root and one folder below.
  const markerPaths = start
    ? markersUp(spec.rootMarkers, start, workspaceRoot)
    : markerFolders(spec.rootMarkers, workspaceRoot, 1).flatMap((d) => markersIn(d, spec.rootMarkers));
  const markers = markerPaths.map((p) => relative(workspaceRoot, p));
  const projectRoot = markerPaths[0] ? dirname(markerPaths[0]) : undefined;
  const folders = projectRoot ? foldersUp(workspaceRoot, projectRoot) : [start ?? workspaceRoot, workspaceRoot];
  const cmd = await resolveCommand(spec, [...new Set(folders)], purpose);
  const base = { spec, markers, projectRoot };
  if (!cmd.ok) {
    const markerNote = markers.length ? `root marker ${markers.join(", ")} found, but ` : `no root marker (${markerHint(spec)}) and `;
    return { ...base, state: "missing_binary", detail: `${markerNote}${cmd.detail}` };
  }
  if (!markers.length) {
    const where = start
      ? `in \`${relative(workspaceRoot, start) || "."}\` or any folder above it in the workspace`
      : "at the workspace root or one folder below";
    return {
      ...base,
      state: "missing_marker",
      command: cmd.command,
      interpreter: cmd.interpreter,
      unchecked: cmd.unchecked,
      detail: `no root marker (${markerHint(spec)}) ${where}; ${cmd.command.join(" ")} resolves, but the adapter only starts for a project that has one`,
    };
  }
  return {
    ...base,
    state: "usable",
    command: cmd.command,
    interpreter: cmd.interpreter,
    unchecked: cmd.unchecked,
    detail: `${cmd.command.join(" ")}; ${cmd.detail}`,
  };
}

export function allAdapterAvailability(workspaceRoot: string): Promise<AdapterAvailability[]> {
  return Promise.all(DEBUG_ADAPTERS.map((a) => adapterAvailability(a, workspaceRoot)));
}
