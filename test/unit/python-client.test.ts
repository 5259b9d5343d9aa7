// The Python client's sources against what they mirror: its exception classes are the control plane's
// error codes with their gRPC statuses, and the README's and the reference's Python example is
// docs/examples/quickstart.py (which test/packaging/python-package.test.ts runs).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ENCLAVE_ERROR_STATUS } from "@enclave/proto/control-errors.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

it("has an exception class for each error code, with the code's gRPC status", () => {
  const script =
    "import json, enclave_client.errors as e\n" +
    "print(json.dumps({c: [k.__name__, k.GRPC_STATUS.value[0], issubclass(k, e.EnclaveError)] for c, k in e.ERROR_CLASSES.items()}))";
  const out = execFileSync("/usr/bin/python3", ["-c", script], {
    encoding: "utf8",
    env: { ...process.env, PYTHONPATH: join(repoRoot, "clients", "python", "src"), PYTHONDONTWRITEBYTECODE: "1" },
  });
  const classes = JSON.parse(out) as Record<string, [string, number, boolean]>;
  expect(Object.keys(classes).sort()).toEqual(Object.keys(ENCLAVE_ERROR_STATUS).sort());
  for (const [code, status] of Object.entries(ENCLAVE_ERROR_STATUS)) {
    expect(classes[code]?.[1], code).toBe(status);
    expect(classes[code]?.[2], code).toBe(true);
  }
  expect(new Set(Object.values(classes).map(([name]) => name)).size).toBe(Object.keys(classes).length);
});

const example = readFileSync(join(repoRoot, "docs", "examples", "quickstart.py"), "utf8").replace(/^(#.*\n)+/, "");

it("the reference's Python quickstart is docs/examples/quickstart.py without its header comment", () => {
  const reference = readFileSync(join(repoRoot, "docs", "reference", "python-client.md"), "utf8");
  expect(/^## Quickstart\n\n```python\n([\s\S]*?)^```/m.exec(reference)?.[1]).toBe(example);
});
