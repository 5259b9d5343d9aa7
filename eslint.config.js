// Lint for bugs, not style: typescript-eslint's recommended rules plus the type-aware promise rules
// (a forgotten await is the bug this codebase is most exposed to, with processes and streams everywhere).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import enclaveRules from "./scripts/lint-rules/no-message-branching.mjs";

// The workspace packages and what each may import (tsc -b refuses the rest too, through each
// package's project references): images → control-plane → client → proto, enclave-agent → proto; the
// tests may import every package; nothing imports images.
const PACKAGES = [
  { dir: "proto", name: "@enclave/proto", uses: ["@enclave/test-kit"] },
  { dir: "enclave-agent", name: "@enclave/agent", uses: ["@enclave/proto", "@enclave/test-kit"] },
  { dir: "clients/node", name: "@enclave/client", uses: ["@enclave/proto", "@enclave/test-kit"] },
  { dir: "control-plane", name: "@enclave/control-plane", uses: ["@enclave/proto", "@enclave/client", "@enclave/test-kit"] },
  { dir: "images", name: "@enclave/images", uses: ["@enclave/proto", "@enclave/control-plane", "@enclave/test-kit"] },
  {
    dir: "test",
    name: "@enclave/test",
    uses: ["@enclave/proto", "@enclave/agent", "@enclave/client", "@enclave/control-plane", "@enclave/images", "@enclave/test-kit"],
  },
  // What every package's tests share (recorded transcripts): vitest only. Last, so its rules win over test/**.
  { dir: "test/kit", name: "@enclave/test-kit", uses: [] },
];
/** The import patterns a package's files may not use: another package by a relative path, or one it may not use at all. */
function packagePatterns({ name, uses }) {
  const folders = ["proto", "enclave-agent", "clients", "control-plane", "images", "test"].join("|");
  return [
    { regex: `^(\\.\\./)+(${folders})/`, message: "a package imports another by its name (@enclave/…), never by a relative path into its folder" },
    ...PACKAGES.filter((p) => p.name !== name && !uses.includes(p.name)).map((p) => ({
      regex: `^${p.name}(/|$)`,
      message: `${name} may import only ${uses.join(", ") || "its own modules"}: imports go down (images → control-plane → client → proto, enclave-agent → proto)`,
    })),
  ];
}
const corePatterns = [{ regex: "(^|/)(console|server|cli)/", message: "the transport-free core must not import a transport (console, server, cli)" }];

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "**/dist/**",
      "node_modules/**",
      ".cache/**",
      ".enclave/**",
      "proto/gen/**",
      "test/artifacts/**",
      "test/fixtures/**",
      "test/fidelity/eval-corpus/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ["vitest.config.ts"] }, tsconfigRootDir: import.meta.dirname },
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
      // tsc's noUnusedLocals catches unused locals too; an underscore marks a parameter kept for its position.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  ...PACKAGES.map((pkg) => ({
    files: [`${pkg.dir}/**/*.ts`],
    ignores: [`${pkg.dir}/**/fixtures/**`],
    rules: { "no-restricted-imports": ["error", { patterns: packagePatterns(pkg) }] },
  })),
  {
    // The core has no transport: the console, the gRPC service and the CLI depend on it, never the reverse.
    files: ["control-plane/src/**/*.ts"],
    ignores: ["control-plane/src/console/**", "control-plane/src/server/**", "control-plane/src/cli/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [...corePatterns, ...packagePatterns(PACKAGES[3])] }] },
  },
  { files: ["**/*.js", "**/*.mjs"], languageOptions: { globals: globals.node } },
  { files: ["control-plane/src/console/assets/**/*.js"], languageOptions: { globals: globals.browser } },
);
