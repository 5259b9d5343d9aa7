import { describe, expect, it } from "vitest";
import { KernelCeilings } from "./kernel-ceiling.js";

describe("KernelCeilings", () => {
  it("keeps the narrowest surface a kernel's cells have had, and starts over with a new kernel", () => {
    const c = new KernelCeilings();
    expect(c.enter("conv", "python", "py-1", "default")).toBe("default");
    expect(c.enter("conv", "python", "py-1", "plan")).toBe("plan");
    expect(c.enter("conv", "python", "py-1", "default")).toBe("plan");
    expect(c.enter("conv", "python", "py-1", "readonly_subagent")).toBe("plan");
    // Another language, another conversation: their own kernels.
    expect(c.enter("conv", "javascript", "js-1", "default")).toBe("default");
    expect(c.enter("other", "python", "py-9", "default")).toBe("default");
    // A reset or a death makes a new kernel id.
    expect(c.enter("conv", "python", "py-2", "default")).toBe("default");
  });
});
