// The console's hands, clicked in real headless Chromium by an operator (logged in with an operator
// tenant's token) against a real control plane with token tenants and real host agents: cancel a
// tenant's call in flight, stop its kernel, stop its host agent, close its run, delete its
// conversation. Each effect is checked through the API and in the audit log (who did it). A plain
// tenant's session is shown none of the operator's buttons and is refused them by the server.
import { readdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { serveConsole, type ServingConsole } from "@enclave/control-plane/console/console-server.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { eventually, until } from "../helpers/wait.js";

let svc: TenantService<"acme" | "ops">;
let web: ServingConsole;
let browser: TestBrowser;
let auth: TokenFileAuth;

function pidsWithArg(arg: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(arg)) out.push(Number(entry));
    } catch {
      // Gone while read.
    }
  }
  return out;
}

async function operatorActions(action: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  await svc.client("ops").subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => events.push(e)).done;
  return events.filter((e) => e.kind === "operator_action" && e.tool === action);
}

/** The conversation's page as the operator sees it (logged in by its token, kept in a session cookie). */
async function operatorPage(conv: string): Promise<Page> {
  const page = await browser.newPage();
  page.on("dialog", (d) => void d.accept());
  await page.goto(new URL(`/conversations/acme.${conv}?token=${svc.tokens.ops}`, web.url).href);
  await page.locator('[data-live-indicator][data-state="live"]').waitFor();
  return page;
}

const byOps = /^by tenant ops \(console, token [0-9a-f]{8}\): /;

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], operators: ["ops"], prefix: "enclave-console-hands-" });
  auth = new TokenFileAuth(svc.tokensFile);
  web = await serveConsole(svc.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators: auth });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  auth?.close();
  await svc?.close();
});

describe("the console's hands in Chromium", () => {
  it("cancels a call, stops the kernel and the host agent, closes the run and deletes the conversation", async () => {
    const acme = svc.client("acme");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const cell = await acme.callTool(run, "eval", { code: "kept = 1", description: "keep a value in the kernel" });
    expect(cell.isError).toBe(false);
    const marker = String(41_000 + Math.floor(Math.random() * 9_000));
    const pending = acme.callTool(run, "exec", { command: `exec sleep ${marker}`, timeout_seconds: 600 });
    await until(() => pidsWithArg(marker)[0], "the sleep process");

    const page = await operatorPage(conv);
    const hands = page.locator('section.operator-hands[data-operator="yes"]');
    await hands.waitFor();
    // The call appears (the section refreshes every few seconds), then is cancelled by a click.
    await hands.locator("tr[data-call-id]").first().waitFor({ timeout: 20_000 });
    await screenshot(page, "conversation-hands");
    await hands.getByRole("button", { name: "Cancel call" }).click();
    const cancelled = await pending;
    expect(cancelled.errorCode).toBe("cancelled");
    expect(resultText(cancelled)).toContain("cancelled by tenant ops (console, token");
    await until(() => pidsWithArg(marker).length === 0, "the sleep process gone");
    expect((await operatorActions("cancel_call"))[0]?.detail).toMatch(byOps);

    await hands.getByRole("button", { name: "Stop python kernel" }).click();
    await eventually(async () => (await svc.cp.liveKernels(`acme.${conv}`)).length === 0, "the kernel gone");
    const next = await acme.callTool(run, "eval", { code: "print('kept' in globals())", description: "check whether the kept value survived" });
    expect(resultText(next)).toContain("was stopped by an operator (tenant ops (console, token");
    expect((await eventually(async () => (await operatorActions("stop_kernel"))[0], "the kernel's stop recorded")).detail).toMatch(byOps);

    await page.reload();
    const pid = svc.cp.hostAgentPid(`acme.${conv}`);
    expect(pid).toBeGreaterThan(0);
    await hands.getByRole("button", { name: "Stop host agent" }).click();
    // Recorded once the agent has stopped.
    const stoppedAgent = await eventually(async () => (await operatorActions("stop_host_agent"))[0], "the host agent's stop recorded");
    expect(stoppedAgent.detail).toMatch(byOps);
    expect(svc.cp.hostAgentPid(`acme.${conv}`)).toBeUndefined();

    await hands.getByRole("button", { name: "Close run" }).click();
    await hands.locator(`[data-run-id="${run}"]`).waitFor({ state: "detached" });
    expect((await acme.listRuns(conv)).map((r) => r.id)).not.toContain(run);
    expect((await eventually(async () => (await operatorActions("close_run"))[0], "the close recorded")).detail).toMatch(byOps);

    await hands.getByRole("button", { name: "Delete conversation" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await expect(outcome(acme.getConversation(conv))).resolves.toMatchObject({ code: "not_found" });
    expect((await operatorActions("delete_conversation"))[0]).toMatchObject({ tenant: "acme", conversationId: `acme.${conv}` });
    await page.close();
  }, 120_000);

  it("force-stops an enclosure from the browser", async () => {
    const acme = svc.client("acme");
    const conv = (await acme.createConversation()).id;
    await acme.startEnclosure(conv, { workspaceMode: "copy" });
    const page = await operatorPage(conv);
    await page.locator('[data-placement="enclosure"]').waitFor();
    // The same POST from the operator's own page, without the page's CSRF token: refused, nothing stopped.
    const forged = await page.evaluate(
      async (path) => (await fetch(path, { method: "POST", headers: { Accept: "application/json" } })).status,
      `/conversations/acme.${conv}/enclosure/force-stop`,
    );
    expect(forged).toBe(403);
    expect((await acme.getConversation(conv)).enclosure?.state).toBe("running");
    await page.locator("section.operator-hands").getByRole("button", { name: "Force-stop (no copy back)" }).click();
    await page.locator('[data-placement="host"]').waitFor({ timeout: 60_000 });
    expect((await acme.getConversation(conv)).enclosure).toBeUndefined();
    const event = await eventually(async () => (await operatorActions("force_stop_enclosure"))[0], "the forced stop recorded");
    expect(event).toMatchObject({ tenant: "acme", conversationId: `acme.${conv}` });
    expect(event.detail).toMatch(byOps);
    await page.close();
  }, 180_000);

  it("a tenant's session shows no operator button, and the server refuses the operator's POSTs to it", async () => {
    const acme = svc.client("acme");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    await acme.callTool(run, "exec", { command: "true" });
    const base = new URL(web.url);
    const asAcme = { authorization: `Bearer ${svc.tokens.acme}`, accept: "application/json" };
    // The console names a conversation by its key (the tenant's own included).
    const pageHtml = await (await fetch(new URL(`/conversations/acme.${conv}`, base), { headers: { authorization: asAcme.authorization } })).text();
    expect(pageHtml).toContain('data-operator="no"');
    expect(pageHtml).not.toContain("Stop host agent");
    expect(pageHtml).not.toContain("Cancel call");
    expect(pageHtml).toContain("Close run");
    const here = `/conversations/acme.${conv}`;
    for (const path of [`${here}/host-agent/stop`, `${here}/kernels/python/stop`, `${here}/calls/1/cancel`, `${here}/enclosure/force-stop`]) {
      const res = await fetch(new URL(path, base), { method: "POST", headers: asAcme });
      expect(res.status).toBe(403);
    }
    expect(svc.cp.hostAgentPid(`acme.${conv}`)).toBeGreaterThan(0);
    // Its own run it may close, as through the API.
    const closed = await fetch(new URL(`${here}/runs/${run}/close`, base), { method: "POST", headers: asAcme });
    expect(closed.status).toBe(200);
    expect(await acme.listRuns(conv)).toEqual([]);
  }, 60_000);
});
