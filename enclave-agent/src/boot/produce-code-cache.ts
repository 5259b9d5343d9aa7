// Build step, run by scripts/build.mjs under the Node the agent runs on in enclosures: starts the
// bundle as an agent on an empty workspace in a private temporary folder until it listens, then
// writes V8's code cache for the bundle, which then holds every function the start compiled.
//   produce-code-cache BUNDLE OUT
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileBundle } from "./code-cache.js";

const [bundle, out] = process.argv.slice(2);
if (!bundle || !out) {
  process.stderr.write("usage: produce-code-cache BUNDLE OUT\n");
  process.exit(2);
}
const tmp = mkdtempSync(join(tmpdir(), "enclave-code-cache-"));
const socket = join(tmp, "agent.sock");
mkdirSync(join(tmp, "workspace"));
mkdirSync(join(tmp, "state"), { mode: 0o700 });
process.argv = [process.argv[0] ?? "node", bundle, "--socket", socket, "--workspace", join(tmp, "workspace"), "--placement", "enclosure", "--state-dir", join(tmp, "state")];
const compiled = compileBundle(bundle, undefined);
compiled.run();
const deadline = Date.now() + 60_000;
const poll = setInterval(() => {
  if (existsSync(socket) || Date.now() > deadline) {
    clearInterval(poll);
    const ok = existsSync(socket);
    if (ok) writeFileSync(out, compiled.script.createCachedData());
    rmSync(tmp, { recursive: true, force: true });
    if (!ok) process.stderr.write("produce-code-cache: the agent did not listen within 60 s\n");
    process.exit(ok ? 0 : 1);
  }
}, 5);
