// The clients' per-tool types (clients/node/src/generated/tool-types.ts, proto/tool-schemas.json) are
// the registry's own schemas: this fails when a tool's arguments or details changed and
// `node scripts/gen-tool-types.mjs` was not run.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { renderToolTypeFiles, tsType } from "@enclave/control-plane/contract/tool-types.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

it("the committed tool types equal what the registry renders", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-tool-types-"));
  const cp = await ControlPlane.start(loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` }));
  let files: Record<string, string>;
  try {
    files = renderToolTypeFiles(cp.registry.all());
  } finally {
    await cp.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const [rel, text] of Object.entries(files)) {
    expect(readFileSync(join(repoRoot, rel), "utf8"), `${rel} is stale: run node scripts/gen-tool-types.mjs after node scripts/build.mjs`).toBe(text);
  }
  const schemas = JSON.parse(files["proto/tool-schemas.json"]!) as { tools: { name: string; details: unknown }[] };
  expect(schemas.tools.find((t) => t.name === "exec")?.details).toMatchObject({ properties: { exit_code: {} } });
});

it("renders the schema shapes zod produces: nullable unions, enums, records, optional fields", () => {
  expect(
    tsType({
      type: "object",
      properties: {
        code: { anyOf: [{ type: "integer" }, { type: "null" }] },
        signal: { type: ["string", "null"], description: "the signal */ that ended it" },
        kind: { enum: ["a", "b"] },
        env: { type: "object", additionalProperties: { type: "string" } },
        "odd-key": { type: "array", items: { type: "boolean" } },
      },
      required: ["code", "kind"],
    }),
  ).toBe(
    [
      "{",
      "  code: number | null;",
      "  /** the signal *\\/ that ended it */",
      "  signal?: string | null;",
      '  kind: "a" | "b";',
      "  env?: Record<string, string>;",
      '  "odd-key"?: Array<boolean>;',
      "}",
    ].join("\n"),
  );
});
