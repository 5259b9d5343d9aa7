// The host Python the kernels use in tests and benchmarks: one with pandas and matplotlib (Debian's,
// installed by scripts/ensure-host-kernels.sh, which `make test` and `make bench` run).
import { execFileSync } from "node:child_process";

export function hostPython(): string {
  for (const p of ["/usr/bin/python3", "python3"]) {
    try {
      execFileSync(p, ["-c", "import pandas, matplotlib"], { stdio: "ignore" });
      return p;
    } catch {
      // Try the next.
    }
  }
  throw new Error("no python3 with pandas and matplotlib here: run `bash scripts/ensure-host-kernels.sh` (make test does)");
}
