// proto/gen must be what buf + ts-proto make from proto/ today.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";

it("proto/gen is not stale", () => {
  const out = execFileSync("node", ["scripts/gen-proto.mjs", "--check"], { encoding: "utf8" });
  expect(out).toMatch(/up to date/);
});
