// The pending-action stack and the custom-tool API's store wiring.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { PendingActionStore as PublishedStore } from "../custom-tools.js";
import { PendingActionStore, PendingActionStores } from "./pending-action-store.js";
import { createCustomToolApi, NO_STORE_MESSAGE, withPendingStore } from "../tools/custom/custom-tool-api.js";

const noop = { apply: () => "done" };

describe("PendingActionStore", () => {
  it("is a LIFO stack with ids, peek, pop, hasPending and lookup", () => {
    const s = new PendingActionStore();
    expect(s.hasPending).toBe(false);
    expect(s.peek()).toBeUndefined();
    const a = s.push({ label: "first", ...noop });
    const b = s.push({ label: "second", ...noop, sourceToolName: "ast_edit" });
    expect([a.id, b.id]).toEqual(["edit_1", "edit_2"]);
    expect(a.sourceToolName).toBe("custom_tool");
    expect(s.peek()?.label).toBe("second");
    expect(s.lookup("edit_1")?.label).toBe("first");
    expect(s.list().map((x) => x.id)).toEqual(["edit_2", "edit_1"]);
    expect(s.pop()?.id).toBe("edit_2");
    expect(s.pop()?.id).toBe("edit_1");
    expect(s.hasPending).toBe(false);
    expect(s.pop()).toBeUndefined();
  });

  it("has the document's shape, hasPending a property, as the custom-tools types publish it", () => {
    const s: PublishedStore = new PendingActionStore();
    expectTypeOf(s.hasPending).toEqualTypeOf<boolean>();
    expect(s.hasPending).toBe(false);
    s.push({ label: "one", ...noop });
    expect(s.hasPending).toBe(true);
    expect(s.peek()?.id).toBe("edit_1");
    expect(s.pop()?.label).toBe("one");
    expect(s.hasPending).toBe(false);
  });

  it("shares a tenant's staged bytes across its runs, gives a closed run's back, and takes nothing from a staging that ends after its run closed", () => {
    const stores = new PendingActionStores();
    const run = (id: string, tenant: string) => ({ id, resources: ["ast"], tenant });
    const a = stores.forRun(run("r-a", "acme"));
    const b = stores.forRun(run("r-b", "acme"));
    const other = stores.forRun(run("r-c", "globex"));
    const big = { label: "x".repeat(1024), ...noop };
    a?.push(big);
    b?.push(big);
    other?.push(big);
    const tally = (s: PendingActionStore | undefined) => (s as unknown as { tally: { bytes: number } }).tally.bytes;
    expect(tally(a)).toBe(2048);
    expect(tally(b)).toBe(2048);
    expect(tally(other)).toBe(1024);
    stores.drop("r-a");
    expect(tally(b)).toBe(1024);
    // An ast_edit in flight on r-a pushes after the run closed: refused, and nothing is counted.
    expect(() => a?.push(big)).toThrow(expect.objectContaining({ code: "failed_precondition" }));
    expect(tally(b)).toBe(1024);
  });

  it("pops by id from anywhere in the stack", () => {
    const s = new PendingActionStore();
    s.push({ label: "a", ...noop });
    s.push({ label: "b", ...noop });
    s.push({ label: "c", ...noop });
    expect(s.pop("edit_2")?.label).toBe("b");
    expect(s.list().map((x) => x.label)).toEqual(["c", "a"]);
    expect(s.pop("edit_9")).toBeUndefined();
  });

  it("exists per run, only for runs wired with the ast resource", () => {
    const stores = new PendingActionStores();
    const withAst = { id: "r1", resources: ["workspace", "ast"] };
    expect(stores.forRun(withAst)).toBe(stores.forRun(withAst));
    expect(stores.forRun({ id: "r2", resources: ["workspace", "ast"] })).not.toBe(stores.forRun(withAst));
    expect(stores.forRun({ id: "r3", resources: ["workspace"] })).toBeUndefined();
  });
});

describe("custom tool API", () => {
  it("throws exactly without a store", () => {
    const api = createCustomToolApi();
    expect(() => api.pushPendingAction({ label: "x", ...noop })).toThrow(new Error(NO_STORE_MESSAGE));
    expect(NO_STORE_MESSAGE).toBe("Pending action store unavailable for custom tools in this runtime.");
  });

  it("pushes to the store of the call in progress, defaulting sourceToolName to custom_tool", async () => {
    const api = createCustomToolApi();
    const store = new PendingActionStore();
    const id = await withPendingStore(store, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return api.pushPendingAction({ label: "drop table users", ...noop });
    });
    expect(id).toBe("edit_1");
    expect(store.peek()?.sourceToolName).toBe("custom_tool");
    expect(() => api.pushPendingAction({ label: "outside", ...noop })).toThrow(NO_STORE_MESSAGE);
  });
});
