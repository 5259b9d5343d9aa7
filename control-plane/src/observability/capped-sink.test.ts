// Output a sandbox or an enclosure can write reaches the host's disk and log only up to a budget:
// what is under it passes whole, the chunk that crosses it is cut at the budget, the rest is dropped,
// and the cap is said once.
import { expect, it } from "vitest";
import { cappedSink } from "./capped-sink.js";

it("passes chunks until the budget, cuts the one that crosses it, then drops the rest and says so once", () => {
  const got: string[] = [];
  let notes = 0;
  const sink = cappedSink(
    (c) => got.push(c.toString()),
    10,
    () => notes++,
  );
  sink(Buffer.from("abcd"));
  sink(Buffer.from("efgh"));
  sink(Buffer.from("ijklmn"));
  sink(Buffer.from("more"));
  sink(Buffer.from("and more"));
  expect(got.join("")).toBe("abcdefghij");
  expect(notes).toBe(1);
});

it("a budget already spent (a log file that is full) passes nothing", () => {
  const got: Buffer[] = [];
  let notes = 0;
  const sink = cappedSink(
    (c) => got.push(c),
    -5,
    () => notes++,
  );
  sink(Buffer.from("x"));
  expect(got).toEqual([]);
  expect(notes).toBe(1);
});
