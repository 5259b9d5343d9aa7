// What each image enclosures run promises, checked by `enclave images verify`: the language servers
// and debug adapters the runtime's package lists install (ids from the agent's registries), the
// Python data stack the kernels rely on, and a Node that runs the agent.
import { DEBUG_ADAPTERS } from "@enclave/proto/adapter-registry.js";
import { LANGUAGE_SERVERS } from "@enclave/proto/server-registry.js";

export interface ImagePromises {
  languageServers: string[];
  debugAdapters: string[];
  pythonModules: string[];
  nodeMajorAtLeast: number;
}

const RUNTIME: ImagePromises = {
  languageServers: ["pyright", "pylsp", "typescript", "clangd", "gopls", "bash"],
  debugAdapters: ["debugpy", "lldb", "delve"],
  pythonModules: ["numpy", "pandas", "matplotlib", "debugpy"],
  nodeMajorAtLeast: 18,
};

/** By image name; the base image is only a build input (root, no tools) and promises nothing. */
export const IMAGE_PROMISES: Readonly<Record<string, ImagePromises>> = {
  "enclave-runtime": RUNTIME,
  "enclave-agent": RUNTIME,
};

export function languageServer(id: string) {
  const spec = LANGUAGE_SERVERS.find((s) => s.id === id);
  if (!spec) throw new Error(`no language server \`${id}\` in the agent's registry`);
  return spec;
}

export function debugAdapter(id: string) {
  const spec = DEBUG_ADAPTERS.find((a) => a.id === id);
  if (!spec) throw new Error(`no debug adapter \`${id}\` in the agent's registry`);
  return spec;
}
