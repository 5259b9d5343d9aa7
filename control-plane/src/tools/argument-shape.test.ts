// The one-pass shape check of a JSON text: depth and items counted outside strings only, stopping at
// the first excess, and no recursion whatever the nesting.
import { describe, expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { checkJsonShape } from "./argument-shape.js";

const limits = { maxDepth: 3, maxItems: 10 };

function codeOf(json: string): string {
  try {
    checkJsonShape("arguments", json, limits);
    return "ok";
  } catch (err) {
    return err instanceof EnclaveError ? err.code : "thrown";
  }
}

describe("checkJsonShape", () => {
  it.each([
    ["{}", "ok"],
    ['{"a":{"b":{"c":1}}}', "ok"],
    ['{"a":{"b":{"c":[1]}}}', "invalid_arguments"],
    ['{"a":[1,2,3,4,5,6,7,8]}', "ok"],
    ['{"a":[1,2,3,4,5,6,7,8,9,10]}', "invalid_arguments"],
    // Brackets, commas and escaped quotes inside strings are text, not structure.
    ['{"a":"[[[[,,,,,,,,,,,,]]]]"}', "ok"],
    ['{"a":"\\"[[[[[","b":"\\\\"}', "ok"],
    ['{"a\\"{{{{":1}', "ok"],
    // Not JSON at all: left for JSON.parse to refuse.
    ["}}}]]]", "ok"],
  ])("%s → %s", (json, code) => {
    expect(codeOf(json)).toBe(code);
  });

  it("refuses 1,000,000 levels without recursing, and a flood of keys at the first key past the bound", () => {
    expect(codeOf("[".repeat(1_000_000))).toBe("invalid_arguments");
    expect(() => checkJsonShape("arguments", `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(",")}}`)).toThrow(EnclaveError);
  });
});
