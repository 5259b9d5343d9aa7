import { defineConfig } from "vitest/config";

// Tests import the packages by name (@enclave/…): the "@enclave/source" export condition resolves
// them to their TypeScript sources, so `npx vitest run <file>` needs no rebuild after an edit (tsc -b
// uses the same condition; Node at run time takes the compiled dist/).
const conditions = ["@enclave/source"];
// Unit tests sit beside the module they test in each package (control-plane/src/placement/engines.test.ts);
// test/unit keeps those that cross packages, use test/helpers, or check the whole repository.
const unit = ["test/unit/**/*.test.ts", "{proto,enclave-agent,clients,control-plane,images}/**/*.test.ts"];
const exclude = ["**/node_modules/**", "**/dist/**"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    // `vitest run --project unit` is `make check`'s lane; `vitest run` runs both projects, each file once.
    projects: [
      { extends: true, test: { name: "unit", include: unit, exclude } },
      { extends: true, test: { name: "suites", include: ["test/**/*.test.ts"], exclude: [...exclude, "test/unit/**"] } },
    ],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    maxWorkers: 2,
    // Control planes made inside the tests log warnings only (a test that reads their lines asks for more).
    // No spare host agent unless a test asks for one (ENCLAVE_HOST_SPARES=1 runs them with the default's):
    // a spare is taken by whichever conversation a test makes first, racing tests that say when an agent starts.
    env: {
      TESTCONTAINERS_RYUK_DISABLED: "true",
      ENCLAVE_LOG_LEVEL: process.env.ENCLAVE_LOG_LEVEL ?? "warn",
      ENCLAVE_HOST_SPARES: process.env.ENCLAVE_HOST_SPARES ?? "0",
    },
  },
});
