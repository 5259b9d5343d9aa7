// The agent's Node flags are one table (proto/src/agent-node-flags.ts): the host sandbox passes it,
// and the enclosure's supervisor, a shell script, spells the same flags in its command line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_NODE_FLAGS } from "@enclave/proto/agent-node-flags.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

describe("the agent's Node flags", () => {
  it("are the same in the enclosure's supervisor as in the table the host sandbox uses", () => {
    const script = readFileSync(join(repoRoot, "enclave-agent", "supervise.sh"), "utf8");
    const command = script.split("\n").find((l) => l.includes("enclave-agent.mjs") && !l.trimStart().startsWith("#")) ?? "";
    const flags = command.split(/\s+/).filter((w) => w.startsWith("--") && w !== "--state-dir");
    expect(flags).toEqual([...AGENT_NODE_FLAGS]);
  });
});
