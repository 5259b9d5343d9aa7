import { describe, expect, it } from "vitest";
import { identifierAt } from "./rename-declarations.js";

describe("identifierAt", () => {
  it("reads the identifier around a UTF-16 position, on CRLF and LF lines alike", () => {
    const text = '/* é */ werror("x");\r\n  if (x) report_error ("🎉", x);\nint y;';
    expect(identifierAt(text, { line: 0, character: 8 })).toBe("werror");
    expect(identifierAt(text, { line: 0, character: 12 })).toBe("werror");
    expect(identifierAt(text, { line: 1, character: 9 })).toBe("report_error");
    expect(identifierAt(text, { line: 2, character: 4 })).toBe("y");
    expect(identifierAt(text, { line: 0, character: 2 })).toBe("");
    expect(identifierAt(text, { line: 9, character: 0 })).toBe("");
  });
});
