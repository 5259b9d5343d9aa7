// proto/gen must be what buf + ts-proto make from proto/ today, the Python client's stubs what
// Debian's protoc and grpc_python_plugin make from the control API (scripts/gen-python-proto.sh), and
// its tool types what scripts/gen-python-tool-types.py makes from proto/tool-schemas.json.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

it("proto/gen is not stale", () => {
  // --check exits 1 when the committed output differs, which execFileSync throws on.
  expect(() => execFileSync("node", ["scripts/gen-proto.mjs", "--check"], { encoding: "utf8", stdio: "pipe" })).not.toThrow();
});

const committed = join(repoRoot, "clients", "python", "src", "enclave_client", "_gen");
const tmp = mkdtempSync(join(tmpdir(), "enclave-python-gen-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (name === "__pycache__") continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

it("the Python client's stubs are not stale (scripts/gen-python-proto.sh regenerates them)", () => {
  const fresh = join(tmp, "_gen");
  execFileSync("bash", [join(repoRoot, "scripts", "gen-python-proto.sh"), fresh], { stdio: "pipe" });
  const want = files(fresh);
  const have = files(committed);
  expect([...have.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [name, text] of want) expect(have.get(name) === text, `${name} differs: run \`make gen\` and commit the result`).toBe(true);
});

it("the Python client's tool types are not stale (scripts/gen-python-tool-types.py regenerates them from proto/tool-schemas.json)", () => {
  const fresh = join(tmp, "tool_types.py");
  execFileSync("/usr/bin/python3", [join(repoRoot, "scripts", "gen-python-tool-types.py"), fresh], { stdio: "pipe" });
  const committedTypes = readFileSync(join(repoRoot, "clients", "python", "src", "enclave_client", "tool_types.py"), "utf8");
  expect(committedTypes === readFileSync(fresh, "utf8"), "tool_types.py differs: run `make gen` and commit the result").toBe(true);
});
