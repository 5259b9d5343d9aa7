// The static half of "rewording never changes behaviour": the enclave/no-message-branching rule
// flags control flow on an error's text, caught on the forms the code base used to have, and the
// control plane's and the agent's sources hold none (the few reads of foreign text that carry no
// code at all are marked where they are, with why).
import { ESLint, RuleTester } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import enclaveRules, { noMessageBranching } from "../../scripts/lint-rules/no-message-branching.mjs";

RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const flagged = { messageId: "matched" };

tester.run("no-message-branching", noMessageBranching, {
  valid: [
    `if (err instanceof AgentError && err.code === "lsp_timeout") return undefined;`,
    `if (!this.active && this.endedKind === DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED) return;`,
    `if (!(err instanceof ControlPlaneCallError && err.grpcCode === status.NOT_FOUND)) throw err;`,
    `const text = d.message.replace(/\\s+/g, " ");`,
    `lines.push(\`ended: \${s.endedReason}\`);`,
    `if (body.reason === "breakpoint") stop();`,
  ],
  invalid: [
    // The forms this code base had, as they were written.
    { code: `if (/did not answer/.test((err as Error).message)) return undefined;`, errors: [flagged] },
    { code: `if (!this.active && this.endedReason.startsWith("the program")) return;`, errors: [flagged] },
    { code: `const t = s.hasExitCode && !/exit/.test(s.endedReason) ? "x" : "";`, errors: [flagged] },
    { code: `if (!/no conversation/.test((err as Error).message)) throw err;`, errors: [flagged] },
    { code: `if (err.code === status.INTERNAL && /connection|stream|RST_STREAM/i.test(details)) lost();`, errors: [flagged] },
    { code: `if (err.code === status.UNAVAILABLE && /ECONNREFUSED|ENOENT|No connection/i.test(err.details)) gone();`, errors: [flagged] },
    { code: `if (/EPIPE|closed|disposed/i.test(e.message ?? "")) wait();`, errors: [flagged] },
    { code: `if (conn.deathReason === "stopped") return;`, errors: [flagged] },
    { code: `if (this.endedReason === "the program ended") again();`, errors: [flagged] },
    // Other spellings of the same thing.
    { code: `if (err.message.includes("not found")) create();`, errors: [flagged] },
    { code: `if (String(err.message).toLowerCase().match(/gone/)) retry();`, errors: [flagged] },
    { code: `const message = (err as Error).message; if (/no space/.test(message)) full();`, errors: [flagged] },
    { code: `switch (e.message) { case "x": break; }`, errors: [flagged] },
    { code: `if ("timeout" === err?.message) retry();`, errors: [flagged] },
  ],
});

describe("the sources", () => {
  it("hold no control flow on an error's text", async () => {
    const eslint = new ESLint({
      cwd: `${import.meta.dirname}/../..`,
      overrideConfigFile: true,
      overrideConfig: [
        { ignores: ["dist/**", "node_modules/**", "proto/gen/**", "test/fixtures/**", "test/fidelity/eval-corpus/**"] },
        {
          files: ["**/*.ts"],
          languageOptions: { parser: tseslint.parser },
          plugins: { enclave: enclaveRules },
          linterOptions: { reportUnusedDisableDirectives: "off" },
          rules: { "enclave/no-message-branching": "error" },
        },
      ],
    });
    const results = await eslint.lintFiles(["control-plane/src", "enclave-agent/src"]);
    const found = results.flatMap((r) => r.messages.filter((m) => m.ruleId === "enclave/no-message-branching").map((m) => `${r.filePath}:${m.line}`));
    expect(found).toEqual([]);
    expect(results.length).toBeGreaterThan(100);
  });
});
