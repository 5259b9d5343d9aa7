import { defineConfig } from "vitest/config";

export default defineConfig({
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
