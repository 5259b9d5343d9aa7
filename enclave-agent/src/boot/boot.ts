// The agent's entry (enclave-agent.mjs): runs the CommonJS bundle beside it through its V8 code cache
// (code-cache.ts). Processes keep the name enclave-agent.mjs in their command line.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheFileFor, compileBundle } from "./code-cache.js";

const bundle = join(dirname(fileURLToPath(import.meta.url)), "enclave-agent.cjs");
const compiled = compileBundle(bundle, cacheFileFor(bundle));
if (compiled.cache === "rejected") process.stderr.write(`enclave-agent: V8 rejected the code cache for ${process.version}; compiling from source\n`);
compiled.run();
