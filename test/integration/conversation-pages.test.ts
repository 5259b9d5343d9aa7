// Promise: ListConversations answers a page at a time in one stable order. Followed from the first
// page, the pages show each of a tenant's conversations exactly once and never another tenant's; a
// request without page_size gets the default page, not everything; a page_size past the maximum and
// a page token the server did not give this caller (altered, made up, or another tenant's) are
// invalid_arguments; a conversation deleted between two pages moves none of the others.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneClient, ControlPlaneCallError } from "@enclave/client/control-plane-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

const ACME = 250;
const BETA = 30;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return "resolved";
  } catch (err) {
    if (err instanceof ControlPlaneCallError) return err.code;
    throw err;
  }
}

async function allPages(client: ControlPlaneClient, pageSize: number): Promise<string[][]> {
  const pages: string[][] = [];
  let pageToken = "";
  do {
    const page = await client.listConversationsPage({ pageSize, pageToken });
    pages.push(page.conversations.map((c) => c.id));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return pages;
}

describe("ListConversations pages", () => {
  let svc: TenantService<"acme" | "beta" | "ops">;
  let acme: ControlPlaneClient;
  let beta: ControlPlaneClient;
  let ops: ControlPlaneClient;

  beforeAll(async () => {
    svc = await startTenantService({ tenants: ["acme", "beta"], operators: ["ops"], transport: "unix", prefix: "enclave-pages-" });
    acme = svc.client("acme");
    beta = svc.client("beta");
    ops = svc.client("ops");
    // Interleaved, so every page of acme's is cut from a list that holds beta's too.
    let betas = 0;
    for (let i = 0; i < ACME; i++) {
      await acme.createConversation(`a${String(i).padStart(3, "0")}`);
      if (i % 8 === 0 && betas < BETA) await beta.createConversation(`b${betas++}`);
    }
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
  });

  it("shows each of the tenant's conversations once in pages of 100, oldest first, and no other tenant's", async () => {
    const pages = await allPages(acme, 100);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(ACME);
    expect(seen).toEqual(Array.from({ length: ACME }, (_, i) => `a${String(i).padStart(3, "0")}`));
    const betas = (await allPages(beta, 7)).flat();
    expect(betas).toHaveLength(BETA);
    expect(betas.every((id) => id.startsWith("b"))).toBe(true);
    // The client's listConversations follows the pages.
    expect((await acme.listConversations()).map((c) => c.id)).toEqual(seen);
    // An operator's pages hold every tenant's, each once.
    const everyone = (await allPages(ops, 1000)).flat();
    expect(everyone).toHaveLength(ACME + BETA);
    expect(new Set(everyone).size).toBe(ACME + BETA);
  });

  it("gives the default page without page_size, and refuses a page_size past the maximum", async () => {
    const first = await acme.listConversationsPage();
    expect(first.conversations).toHaveLength(LIMITS.listConversationsDefaultPage);
    expect(first.nextPageToken).not.toBe("");
    expect(await codeOf(acme.listConversationsPage({ pageSize: LIMITS.listConversationsMaxPage + 1 }))).toBe("invalid_arguments");
    expect(await codeOf(acme.listConversationsPage({ pageSize: -1 }))).toBe("invalid_arguments");
  });

  it("refuses a token altered, made up, or given to another tenant", async () => {
    const { nextPageToken } = await acme.listConversationsPage({ pageSize: 10 });
    const flipped = nextPageToken.slice(0, -2) + (nextPageToken.at(-2) === "A" ? "B" : "A") + nextPageToken.at(-1);
    expect(await codeOf(acme.listConversationsPage({ pageSize: 10, pageToken: flipped }))).toBe("invalid_arguments");
    const madeUp = Buffer.from(JSON.stringify({ t: "beta", c: 0, i: "beta.b0" })).toString("base64url");
    expect(await codeOf(acme.listConversationsPage({ pageSize: 10, pageToken: madeUp }))).toBe("invalid_arguments");
    expect(await codeOf(acme.listConversationsPage({ pageSize: 10, pageToken: "%%%" }))).toBe("invalid_arguments");
    expect(await codeOf(beta.listConversationsPage({ pageSize: 10, pageToken: nextPageToken }))).toBe("invalid_arguments");
    // The token itself still works for the tenant it was given to.
    expect((await acme.listConversationsPage({ pageSize: 10, pageToken: nextPageToken })).conversations[0]?.id).toBe("a010");
  });

  it("moves no conversation when the one a page ended on is deleted before the next", async () => {
    const first = await acme.listConversationsPage({ pageSize: 5 });
    expect(first.conversations.map((c) => c.id)).toEqual(["a000", "a001", "a002", "a003", "a004"]);
    await acme.deleteConversation("a004");
    const next = await acme.listConversationsPage({ pageSize: 5, pageToken: first.nextPageToken });
    expect(next.conversations.map((c) => c.id)).toEqual(["a005", "a006", "a007", "a008", "a009"]);
  });
});
