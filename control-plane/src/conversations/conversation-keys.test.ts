// Conversation keys: one (tenant, id) per key, bare ids in the caller's own namespace, and only an
// operator may name another tenant's conversation.
import { describe, expect, it } from "vitest";
import { conversationKey, keyFor, splitKey, viewId } from "./conversation-keys.js";
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";

describe("conversation keys", () => {
  it("keeps the implicit tenant's ids as they were and qualifies any other tenant's", () => {
    expect(conversationKey(IMPLICIT_TENANT, "x")).toBe("x");
    expect(conversationKey("acme", "x")).toBe("acme.x");
    expect(splitKey("acme.x")).toEqual({ tenant: "acme", id: "x" });
    expect(splitKey("x")).toEqual({ tenant: IMPLICIT_TENANT, id: "x" });
  });

  it("a bare id is in the caller's own namespace, and the caller sees its own bare", () => {
    for (const tenant of [IMPLICIT_TENANT, "acme", "globex"]) {
      const key = keyFor(tenant, false, "x");
      expect(splitKey(key)).toEqual({ tenant, id: "x" });
      expect(viewId(tenant, key)).toBe("x");
    }
    expect(new Set(["local", "acme", "globex"].map((t) => keyFor(t, false, "x"))).size).toBe(3);
  });

  it("refuses any other shape from a tenant, and a malformed one from an operator", () => {
    for (const id of ["acme.x", "local.x", "../x", "a/b", "..", ".", "", "x.", ".x", "a.b.c", "x\u0000", "Acme.x", "x".repeat(65)]) {
      expect(() => keyFor("globex", false, id), id).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    }
    for (const id of ["x.", ".x", "a.b.c", "Acme.x", "../x", "acme./x"]) {
      expect(() => keyFor("ops", true, id), id).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    }
  });

  it("an operator names another tenant's conversation `<tenant>.<id>`, the implicit tenant's `local.<id>`", () => {
    expect(keyFor("ops", true, "acme.x")).toBe("acme.x");
    expect(keyFor("ops", true, "local.x")).toBe("x");
    expect(keyFor("ops", true, "x")).toBe("ops.x");
    expect(viewId("ops", "acme.x")).toBe("acme.x");
    expect(viewId("ops", "x")).toBe("local.x");
    expect(viewId(IMPLICIT_TENANT, "acme.x")).toBe("acme.x");
    expect(keyFor(IMPLICIT_TENANT, true, "acme.x")).toBe("acme.x");
  });
});
