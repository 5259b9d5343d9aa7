// enclave --version: this package's version and the agent version both ends of the agent protocol agree on.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_VERSION } from "@enclave/proto/version.js";
import { repoRoot } from "../repo-paths.js";

export interface Versions {
  enclave: string;
  agent: string;
}

export function versions(): Versions {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "control-plane", "package.json"), "utf8")) as { version: string };
  return { enclave: pkg.version, agent: AGENT_VERSION };
}
