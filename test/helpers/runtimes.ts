// The container runtimes the enclosure-facing suites run under: ENCLAVE_TEST_RUNTIMES, comma-separated
// (default "runc,runsc"). `make docker` registers runsc (gVisor) with the engine.
import { ENCLOSURE_RUNTIMES, type EnclosureRuntime, isEnclosureRuntime } from "@enclave/control-plane/model/enclosure.js";

function fromEnv(): EnclosureRuntime[] {
  const raw = process.env.ENCLAVE_TEST_RUNTIMES ?? "";
  if (raw.trim() === "") return [...ENCLOSURE_RUNTIMES];
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) if (!isEnclosureRuntime(n)) throw new Error(`ENCLAVE_TEST_RUNTIMES names \`${n}\`, not one of ${ENCLOSURE_RUNTIMES.join(", ")}`);
  return names as EnclosureRuntime[];
}

export const TEST_RUNTIMES: readonly EnclosureRuntime[] = fromEnv();
