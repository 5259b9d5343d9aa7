// proto/gen must be what buf + ts-proto make from proto/ today.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";

it("proto/gen is not stale", () => {
  // --check exits 1 when the committed output differs, which execFileSync throws on.
  expect(() => execFileSync("node", ["scripts/gen-proto.mjs", "--check"], { encoding: "utf8", stdio: "pipe" })).not.toThrow();
});
