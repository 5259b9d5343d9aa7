// A tool result's details read as data: parsed with the tool's own details schema (its zod schema,
// the one ListTools publishes), so a test reads typed fields and never the result's text.
import { expect } from "vitest";
import type { ToolCallResult } from "@enclave/client/control-plane-client.js";

/** What a zod schema offers for checking a value, without this package depending on zod. */
export interface DetailsSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

/** The result's details, checked against `schema`: a result whose details do not fit fails the test. */
export function detailsOf<T>(schema: DetailsSchema<T>, r: ToolCallResult): T {
  expect(r.details, `no details (error code ${r.errorCode || "none"})`).toBeDefined();
  const parsed = schema.safeParse(r.details);
  if (!parsed.success) expect.fail(`details do not fit the tool's schema: ${parsed.error.message}\n${JSON.stringify(r.details)}`);
  return parsed.data;
}

/** The branch of a union discriminated by `K` whose discriminator admits `V` (one literal, or one of an enum). */
type Branch<T, K extends string, V> = T extends Record<K, infer D> ? (V extends D ? T : never) : never;

/** The same, for the branch of a union discriminated by `key` (lsp's action, debug's op) that the call asked for. */
export function detailsFor<T extends Record<K, string>, K extends string, V extends T[K]>(
  schema: DetailsSchema<T>,
  key: K,
  value: V,
  r: ToolCallResult,
): Branch<T, K, V> {
  const d = detailsOf(schema, r);
  expect(d[key]).toBe(value);
  return d as Branch<T, K, V>;
}
