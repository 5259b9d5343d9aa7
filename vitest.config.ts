import { defineConfig } from "vitest/config";

// Tests import the packages by name (@enclave/…): the "@enclave/source" export condition resolves
// them to their TypeScript sources, so `npx vitest run <file>` needs no rebuild after an edit (tsc -b
// uses the same condition; Node at run time takes the compiled dist/).
const conditions = ["@enclave/source"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    maxWorkers: 2,
    // Control planes made inside the tests log warnings only (a test that reads their lines asks for more).
    env: { TESTCONTAINERS_RYUK_DISABLED: "true", ENCLAVE_LOG_LEVEL: process.env.ENCLAVE_LOG_LEVEL ?? "warn" },
  },
});
