// The agent is told its conversation once: another is refused, the same again is fine, a restarted
// agent (same state folder) still knows, and the first telling runs the hook exactly once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Assignment } from "./assignment.js";

describe("agent assignment", () => {
  const dirs: string[] = [];
  const stateDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), "enclave-assign-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("serves one conversation and refuses any other", () => {
    let hooked = 0;
    const a = new Assignment(stateDir(), () => hooked++);
    expect(a.conversationId).toBe("");
    expect(a.assign("conv-1")).toBe("conv-1");
    expect(a.assign("conv-1")).toBe("conv-1");
    expect(() => a.assign("conv-2")).toThrow(expect.objectContaining({ code: "failed_precondition" }));
    expect(hooked).toBe(1);
    expect(a.conversationId).toBe("conv-1");
  });

  it("is remembered by a restarted agent with the same state folder", () => {
    const dir = stateDir();
    new Assignment(dir, () => undefined).assign("kept");
    const again = new Assignment(dir, () => undefined);
    expect(again.conversationId).toBe("kept");
    expect(() => again.assign("other")).toThrow(expect.objectContaining({ code: "failed_precondition" }));
  });

  it("refuses an id that is not a conversation id, and stays unassigned", () => {
    const a = new Assignment(stateDir(), () => undefined);
    expect(() => a.assign("../x")).toThrow(expect.objectContaining({ code: "invalid_argument" }));
    expect(a.conversationId).toBe("");
  });
});
