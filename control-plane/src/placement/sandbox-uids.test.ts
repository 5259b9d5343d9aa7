// The host uid allocator: one uid per owner, recorded in its folder, recovered by the next control
// plane (a spare's freed), moved from a spare to the conversation that takes it, and refused with a
// stable code when the range is used up.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxUids } from "./sandbox-uids.js";

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "enclave-uids-")), "host-uids");
});
afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

describe("SandboxUids", () => {
  it("gives each owner a uid of its own and the same one again", () => {
    const uids = new SandboxUids(dir, { base: 5000, count: 10 });
    const a = uids.acquire("acme.x");
    const b = uids.acquire("globex.x");
    expect(a).not.toBe(b);
    expect(uids.acquire("acme.x")).toBe(a);
    expect(readFileSync(join(dir, String(a)), "utf8")).toBe("acme.x");
  });

  it("recovers what a previous control plane recorded, frees its spares' and never hands a held uid out", () => {
    const first = new SandboxUids(dir, { base: 5000, count: 3 });
    const a = first.acquire("acme.x");
    const spare = first.acquire(SandboxUids.spare("/data/host-spares/s1"));
    const next = new SandboxUids(dir, { base: 5000, count: 3 });
    expect(next.of("acme.x")).toBe(a);
    expect(next.of(SandboxUids.spare("/data/host-spares/s1"))).toBeUndefined();
    const b = next.acquire("globex.x");
    expect(b).not.toBe(a);
    expect(readdirSync(dir).map(Number).sort()).toEqual([a, b].sort());
    // The spare's was freed (a spare of an earlier run died with it), so it is the one given.
    expect(b).toBe(spare);
  });

  it("moves a spare's uid to the conversation that takes it", () => {
    const uids = new SandboxUids(dir, { base: 5000, count: 3 });
    const spare = SandboxUids.spare("s1");
    const uid = uids.acquire(spare);
    uids.transfer(spare, "acme.x");
    expect(uids.of("acme.x")).toBe(uid);
    expect(uids.of(spare)).toBeUndefined();
    expect(new SandboxUids(dir, { base: 5000, count: 3 }).of("acme.x")).toBe(uid);
  });

  it("reuses a freed uid last, and refuses with placement_unavailable when every uid is held", () => {
    const uids = new SandboxUids(dir, { base: 5000, count: 2 });
    const a = uids.acquire("a");
    uids.acquire("b");
    expect(() => uids.acquire("c")).toThrowError(expect.objectContaining({ code: "placement_unavailable" }));
    uids.release("a");
    expect(uids.acquire("c")).toBe(a);
  });
});
