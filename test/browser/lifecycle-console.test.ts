// The idle policy and a tenant's pause in the operator console, in real headless Chromium against a
// real control plane with token tenants: a conversation's page says it sleeps and that its memory
// was not kept; an operator pauses a tenant with the overview's button (its API calls are then
// refused with tenant_paused, its console session too) and resumes it; a plain tenant's session is
// refused the same action.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { resultText } from "@enclave/client/control-plane-client.js";
import { serveConsole, type ServingConsole } from "@enclave/control-plane/console/console-server.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import { PLACEMENT_SLEPT } from "@enclave/control-plane/placement/host-agent-loss.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.js";
import { outcome } from "../helpers/call-outcome.js";
import { eventually } from "../helpers/wait.js";
import { execFileSync } from "node:child_process";

let svc: TenantService<"acme" | "ops">;
let operators: TokenFileAuth;
let web: ServingConsole;
let browser: TestBrowser;
let base: string;

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme"],
    operators: ["ops"],
    transport: "unix",
    prefix: "enclave-lifecycle-console-",
    config: (c) => {
      c.lifecycle.sweepMs = 100;
    },
  });
  operators = new TokenFileAuth(svc.tokensFile);
  web = await serveConsole(svc.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators });
  base = `http://127.0.0.1:${web.port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  operators?.close();
  await svc?.close();
});

/** The operator's page, logged in with the operator tenant's token (kept in the session's cookie). */
async function asOperator(path: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${base}${path}${path.includes("?") ? "&" : "?"}token=${svc.tokens.ops}`);
  await page.locator('[data-live-indicator][data-state="live"]').waitFor();
  return page;
}

describe("the console and the idle policy", () => {
  it("shows a sleeping conversation as such, with its memory not kept", async () => {
    const acme = svc.client("acme");
    await acme.createConversation("web-sleep", "", { lifecycle: { idleTimeoutSeconds: 1 } });
    const run = (await acme.openRun("web-sleep", { approvalPolicy: "never", resources: ["workspace"] })).id;
    expect((await acme.callTool(run, "list", { path: "." })).isError).toBe(false);
    await eventually(async () => (await acme.getConversation("web-sleep")).lifecycleState === "sleeping", "web-sleep asleep");
    const page = await asOperator("/conversations/acme.web-sleep");
    try {
      await page.locator('[data-lifecycle-state="sleeping"]').waitFor();
      expect(await page.locator("[data-sleep-reason]").getAttribute("data-sleep-reason")).toBe("idle");
      expect(await page.locator("[data-memory-kept]").getAttribute("data-memory-kept")).toBe("no");
      await screenshot(page, "lifecycle-sleeping");
    } finally {
      await page.close();
    }
  });

  it("pauses a tenant with the overview's button (its calls refused) and resumes it; a tenant's session cannot", async () => {
    const acme = svc.client("acme");
    await acme.createConversation("web-pause");
    const run = (await acme.openRun("web-pause", { approvalPolicy: "never", resources: ["workspace"] })).id;
    expect((await acme.callTool(run, "write", { path: "p.txt", content: "p\n" })).isError).toBe(false);

    // A plain tenant's console session is refused the operator's action.
    const asTenant = await fetch(`${base}/tenants/acme/pause`, {
      method: "POST",
      headers: { authorization: `Bearer ${svc.tokens.acme}`, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: "reason=mine",
    });
    expect(asTenant.status).toBe(403);
    expect(svc.cp.tenantPause("acme")).toBeUndefined();

    const page = await asOperator("/");
    page.on("dialog", (d) => void d.accept());
    try {
      const row = page.locator('tr[data-tenant="acme"]');
      await row.waitFor();
      expect(await row.getAttribute("data-paused")).toBe("no");
      await row.locator('input[name="reason"]').fill("over budget");
      await row.getByRole("button", { name: "Pause tenant" }).click();
      await page.locator('tr[data-tenant="acme"][data-paused="yes"]').waitFor();
      await screenshot(page, "lifecycle-tenant-paused");

      expect((await outcome(acme.callTool(run, "read", { path: "p.txt" }))).code).toBe("tenant_paused");
      expect((await svc.client("ops").getConversation("acme.web-pause")).sleep?.reason).toBe("tenant_paused");
      // Its console session is refused too.
      const tenantPage = await fetch(`${base}/`, { headers: { authorization: `Bearer ${svc.tokens.acme}`, accept: "text/html" } });
      expect(tenantPage.status).toBe(403);
      const paused = svc.cp.auditPage({ limit: 50, newestFirst: true }).find((e) => e.kind === "tenant_paused" && e.tenant === "acme");
      expect(paused?.detail).toContain("by ops");
      expect(paused?.detail).toContain("over budget");

      await page.locator('tr[data-tenant="acme"]').getByRole("button", { name: "Resume tenant" }).click();
      await page.locator('tr[data-tenant="acme"][data-paused="no"]').waitFor();
      const read = await acme.callTool(run, "read", { path: "p.txt" });
      expect(read.isError, resultText(read)).toBe(false);
      expect(resultText(read)).toContain(PLACEMENT_SLEPT);
    } finally {
      await page.close();
    }
  });

  const runsc = Object.hasOwn(
    JSON.parse(execFileSync("docker", ["info", "--format", "{{json .Runtimes}}"], { encoding: "utf8" })) as Record<string, unknown>,
    "runsc",
  );
  it.skipIf(!runsc)(
    "pauses a runsc enclosure with the page's button (memory kept) and resumes it with the next",
    async () => {
      const acme = svc.client("acme");
      await acme.createConversation("web-ckpt");
      await acme.startEnclosure("web-ckpt", { runtime: "runsc", memoryBytes: 768 * 1024 ** 2 });
      const run = (await acme.openRun("web-ckpt", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
      const cell = (code: string) => acme.callTool(run, "eval", { description: "state across a console pause", language: "python", code });
      expect((await cell("import random\ntoken = random.random()\ntoken")).isError).toBe(false);
      const token = resultText(await cell("token"));
      const page = await asOperator("/conversations/acme.web-ckpt");
      try {
        await page.locator('[data-enclosure-state="running"]').waitFor();
        await page.getByRole("button", { name: "Pause", exact: true }).click();
        await page.locator('[data-enclosure-state="paused"]').waitFor({ timeout: 60_000 });
        expect((await acme.getConversation("web-ckpt")).enclosure?.state).toBe("paused");
        await page.getByRole("button", { name: "Resume", exact: true }).click();
        await page.locator('[data-enclosure-state="running"]').waitFor({ timeout: 60_000 });
        expect(resultText(await cell("token"))).toBe(token);
        const events = svc.cp.auditHistory("acme.web-ckpt").filter((e) => e.kind === "enclosure_paused" || e.kind === "enclosure_resumed");
        expect(events.map((e) => [e.kind, e.outcome])).toEqual([
          ["enclosure_paused", "ok"],
          ["enclosure_resumed", "ok"],
        ]);
        expect(events[0]?.detail).toContain("console");
      } finally {
        await page.close();
        await acme.stopEnclosure("web-ckpt").catch(() => undefined);
      }
    },
    240_000,
  );
});
