import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunBudget } from "./run-budget.js";

describe("RunBudget", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("expires after the budget of running time, not counting paused stretches", () => {
    const expired = vi.fn();
    const b = new RunBudget(1000, expired, () => Date.now());
    b.resume();
    vi.advanceTimersByTime(600);
    b.pause();
    vi.advanceTimersByTime(10_000); // a bridge call pending: not counted
    expect(expired).not.toHaveBeenCalled();
    b.resume();
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
    expect(b.used).toBe(1000);
  });

  it("never fires once stopped", () => {
    const expired = vi.fn();
    const b = new RunBudget(100, expired, () => Date.now());
    b.resume();
    b.stop();
    b.resume();
    vi.advanceTimersByTime(1000);
    expect(expired).not.toHaveBeenCalled();
  });
});
