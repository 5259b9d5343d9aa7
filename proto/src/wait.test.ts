// The one bounded wait both sides use: the work's value when it settles first, the bound's answer
// otherwise, and no timer left behind either way.
import { describe, expect, it } from "vitest";
import { orTimeout, within } from "./wait.js";

const never = new Promise<never>(() => undefined);

describe("bounded waits", () => {
  it("within gives the work's value, or the late value for work that never settles", async () => {
    expect(await within(Promise.resolve(7), 60_000, "late")).toBe(7);
    expect(await within(never, 1, "late")).toBe("late");
    await expect(within(Promise.reject(new Error("boom")), 60_000, "late")).rejects.toThrow("boom");
  });

  it("orTimeout rejects with the caller's error only when the bound passes", async () => {
    expect(await orTimeout(Promise.resolve("ok"), 60_000, () => new Error("late"))).toBe("ok");
    await expect(orTimeout(never, 1, () => new Error("no answer"))).rejects.toThrow("no answer");
  });
});
