// Pending actions written through to the state database and read back by the next process: the
// order and ids kept, a restorable change revived, a custom tool's change back as lost, a closed
// run's forgotten.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StateDb } from "../state/state-db.js";
import { PendingActionStores } from "./pending-action-store.js";
import { PendingActionTable, type RestorableChange } from "./pending-action-table.js";
import { persistedIn } from "./pending-restore.js";

const run = { id: "r1", conversationId: "c1", resources: ["ast"] };

function storesIn(state: StateDb): PendingActionStores {
  return new PendingActionStores(
    persistedIn(new PendingActionTable(state), (change: RestorableChange, r, id) =>
      change.kind === "note" ? () => `revived ${id} of ${r.conversationId}: ${String(change.data)}` : undefined,
    ),
  );
}

describe("pending actions across a restart", () => {
  it("come back in their order with their ids; a restorable change applies, a custom tool's is lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "enclave-pending-"));
    const first = new StateDb(dir);
    const before = storesIn(first).forRun(run);
    before?.push({ label: "one", sourceToolName: "ast_edit", apply: () => "x", restorable: { kind: "note", data: "first" }, details: "a.py" });
    before?.push({ label: "custom", sourceToolName: "stage_note", apply: () => "x", details: { not: "kept" } });
    before?.push({ label: "gone", apply: () => "x", restorable: { kind: "note", data: "popped" } });
    before?.push({ label: "unknown kind", apply: () => "x", restorable: { kind: "from a later version", data: 1 } });
    before?.pop("edit_3");
    first.close();

    const second = new StateDb(dir);
    const after = storesIn(second).forRun(run);
    expect(after?.list().map((a) => [a.id, a.label, a.lost ?? false])).toEqual([
      ["edit_4", "unknown kind", true],
      ["edit_2", "custom", true],
      ["edit_1", "one", false],
    ]);
    expect(after?.lookup("edit_1")?.details).toBe("a.py");
    expect(after?.lookup("edit_2")?.details).toBeUndefined();
    expect(await after?.lookup("edit_1")?.apply("")).toBe("revived edit_1 of c1: first");
    expect(() => after?.lookup("edit_2")?.apply("")).toThrow(expect.objectContaining({ code: "pending_action_lost" }));
    expect(after?.push({ label: "next", apply: () => "x" }).id).toBe("edit_5");
    after?.pop("edit_2");
    after?.pop("edit_5");
    second.close();

    const third = new StateDb(dir);
    const stores = storesIn(third);
    expect(
      stores
        .forRun(run)
        ?.list()
        .map((a) => a.id),
    ).toEqual(["edit_4", "edit_1"]);
    // Ids go on after the highest ever given, popped ones' included.
    expect(stores.forRun(run)?.push({ label: "later", apply: () => "x" }).id).toBe("edit_6");
    stores.drop(run.id);
    expect(storesIn(third).forRun(run)?.list()).toEqual([]);
    third.close();
  });

  it("forgets the actions of runs that are no longer open", () => {
    const dir = mkdtempSync(join(tmpdir(), "enclave-pending-"));
    const state = new StateDb(dir);
    storesIn(state)
      .forRun(run)
      ?.push({ label: "one", apply: () => "x" });
    storesIn(state)
      .forRun({ ...run, id: "r2" })
      ?.push({ label: "two", apply: () => "x" });
    new PendingActionTable(state).keepOnly(["r2"]);
    expect(storesIn(state).forRun(run)?.list()).toEqual([]);
    expect(
      storesIn(state)
        .forRun({ ...run, id: "r2" })
        ?.list()
        .map((a) => a.label),
    ).toEqual(["two"]);
    state.close();
  });
});
