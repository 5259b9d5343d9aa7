// The conversation's console page shows what it costs, in real headless Chromium against a real
// control plane and host agent: the table's memory peak follows a cell that held 100 MB, its CPU time
// is there, and the workspace's size says it came from a walk; reading the page starts no agent.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { serveConsole, type ServingConsole } from "@enclave/control-plane/console/console-server.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.js";

let fx: Fixture;
let web: ServingConsole;
let browser: TestBrowser;

async function usageTable(path: string): Promise<{ page: Page; rows: Map<string, string> }> {
  const page = await browser.newPage();
  await page.goto(new URL(path, web.url).href);
  await page.locator("#usage table.usage").waitFor({ timeout: 30_000 });
  const rows = new Map<string, string>();
  for (const tr of await page.locator("#usage table.usage tbody tr").all()) {
    const cells = await tr.locator("td").allTextContents();
    rows.set(cells[0] ?? "", cells.slice(1).join(" | "));
  }
  return { page, rows };
}

beforeAll(async () => {
  fx = await startFixture();
  web = await serveConsole(fx.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await fx?.close();
});

describe("conversation cost on the console", () => {
  it("says nothing runs before a call, and starts nothing to say it", async () => {
    await fx.client.createConversation("web-idle");
    const { page, rows } = await usageTable("/conversations/web-idle");
    expect(rows.get("CPU and memory")).toMatch(/no host agent runs/);
    expect(rows.get("workspace disk")).toMatch(/walk of the workspace folder/);
    expect(fx.cp.hostAgents.pid("web-idle")).toBeUndefined();
    await page.close();
  });

  it("shows a cell's memory peak and CPU time from the sandbox's cgroup", async () => {
    await fx.client.createConversation("web-cost");
    const run = (await fx.client.openRun("web-cost", { approvalPolicy: "never" })).id;
    const r = await fx.client.callTool(run, "eval", {
      description: "hold 100 MB and burn some CPU",
      code: "import time\nblob = b'x' * (100 * 1024 * 1024)\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass\nlen(blob)",
    });
    expect(resultText(r)).toBe(String(100 * 1024 * 1024));
    const { page, rows } = await usageTable("/conversations/web-cost");
    const memory = rows.get("memory") ?? "";
    expect(memory).toMatch(/cgroup v1 of the host sandbox/);
    const peak = /(\d+) MiB peak/.exec(memory);
    expect(Number(peak?.[1])).toBeGreaterThanOrEqual(100);
    const cpu = /([\d.]+) s user, ([\d.]+) s system/.exec(rows.get("CPU time") ?? "");
    expect(Number(cpu?.[1]) + Number(cpu?.[2])).toBeGreaterThan(0.4);
    expect(rows.get("engine")).toMatch(/host placement/);
    await screenshot(page, "conversation-usage");
    await page.close();
  });
});
