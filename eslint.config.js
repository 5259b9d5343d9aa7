// Lint for bugs, not style: typescript-eslint's recommended rules plus the type-aware promise rules
// (a forgotten await is the bug this codebase is most exposed to, with processes and streams everywhere).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import enclaveRules from "./scripts/lint-rules/no-message-branching.mjs";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".cache/**", ".enclave/**", "proto/gen/**", "test/artifacts/**", "test/fixtures/**", "test/fidelity/eval-corpus/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { enclave: enclaveRules },
    rules: {
      // Failures are told apart by their code; a message may be reworded without changing behaviour.
      "enclave/no-message-branching": "error",
      // A handler may read a binding that is assigned once the server is listening.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Terminal and path sanitizers match control characters on purpose.
      "no-control-regex": "off",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // tsc's noUnusedLocals is off; an underscore marks a parameter kept for its position.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // The core has no transport: the console, the gRPC service and the CLI depend on it, never the reverse.
    files: ["control-plane/src/**/*.ts"],
    ignores: ["control-plane/src/console/**", "control-plane/src/server/**", "control-plane/src/cli/**", "control-plane/src/client/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "(^|/)(console|server|cli)/", message: "the transport-free core must not import a transport (console, server, cli)" }] },
      ],
    },
  },
  { files: ["**/*.js", "**/*.mjs"], languageOptions: { globals: globals.node } },
  { files: ["control-plane/src/console/assets/**/*.js"], languageOptions: { globals: globals.browser } },
);
