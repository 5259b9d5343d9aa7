// The operator console end to end, in real headless Chromium (Debian's, driven by playwright-core)
// against a real control plane with real host agents (and a real enclosure for start/stop): cards
// answered in the browser reach the tool, a denied permission refuses the call, a card answered in
// one page disappears from another, the audit view lists a bridge call and exports it, CSRF and the
// access token are enforced. A screenshot of each page goes to test/artifacts/console/.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { serveConsole, type ServingConsole } from "@enclave/control-plane/console/console-server.js";
import { resolveConsoleSettings } from "@enclave/control-plane/console/console-settings.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.js";
import { rawRequest } from "../helpers/raw-http.js";
import { expectTranscript, type Mask } from "@enclave/test-kit/transcript.js";
import { rejected, TranscriptLog } from "@enclave/test-kit/transcript-log.js";
import { until } from "../helpers/wait.js";

let fx: Fixture;
let web: ServingConsole;
let browser: TestBrowser;

const XSS = `<img src=x onerror="document.body.dataset.pwned='1'"><script>document.body.dataset.pwned='1'</script>`;

/** Waits (bounded) until the locator matches exactly n elements. */
async function countIs(locator: Locator, n: number, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  let last = -1;
  while (Date.now() - started < timeoutMs) {
    last = await locator.count();
    if (last === n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected ${n} elements, found ${last}`);
}

/** Opens a console page and waits until its event stream is connected (a human is then attached). */
async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(new URL(path, web.url).href);
  await page.locator('[data-live-indicator][data-state="live"]').waitFor();
  return page;
}

beforeAll(async () => {
  fx = await startFixture((c) => {
    // A worker that waits for a while: the page must show it running, then killed.
    c.vibe.commands = { fast: "cat > /dev/null; sleep 60; echo done", good: "cat > /dev/null; sleep 60; echo done" };
  });
  web = await serveConsole(fx.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false });
  browser = await launchBrowser();
  for (const id of ["web-ask", "web-perm", "web-two", "web-audit", "web-calls"]) await fx.client.createConversation(id);
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await fx?.close();
});

describe("operator console in Chromium", () => {
  it("answers an ask_user card in the browser: the tool returns the chosen option (and agent text is escaped)", async () => {
    const page = await open("/conversations/web-ask");
    const run = await fx.client.openRun("web-ask", { approvalPolicy: "never", resources: ["questions"], questionTimeoutSeconds: 60 });
    const pending = fx.client.callTool(run.id, "ask_user", {
      question: `Which database should the cache use? ${XSS}`,
      context: "The schema migration depends on it.\nSecond line.",
      options: [{ label: "Postgres", description: "the existing cluster" }, { label: "Redis" }],
    });
    const card = page.locator('[data-card-key="web-ask#1"]');
    await card.waitFor();
    await expect(card.locator(".card-number").textContent()).resolves.toBe("#1");
    // The payload is shown as text, never run or parsed as markup.
    await expect(card.locator(".card-question").textContent()).resolves.toContain("<script>document.body.dataset.pwned='1'</script>");
    expect(await card.locator(".card-question img").count()).toBe(0);
    await countIs(card.locator("button.option"), 2);
    expect(await page.evaluate("document.body.dataset.pwned")).toBeUndefined();
    await expect(page.locator("[data-open-count]").textContent()).resolves.toBe("1");
    await screenshot(page, "conversation");
    await card.getByRole("button", { name: /Postgres/ }).click();
    const r = await pending;
    expect(r.isError).toBe(false);
    expect(resultText(r)).toBe('The operator answered card #1.\nChose: "Postgres"');
    await card.waitFor({ state: "detached" });
    await expect(page.locator("[data-open-count]").textContent()).resolves.toBe("0");

    // Multi-select with free text: two boxes and a sentence.
    const multi = fx.client.callTool(run.id, "ask_user", {
      question: "Which checks should run?",
      options: [{ label: "lint" }, { label: "unit" }, { label: "e2e" }],
      multi_select: true,
      allow_free_text: true,
    });
    const card2 = page.locator('[data-card-key="web-ask#2"]');
    await card2.waitFor();
    await card2.getByLabel("lint").check();
    await card2.getByLabel("e2e").check();
    await card2.locator("textarea").fill("and be quick");
    await card2.getByRole("button", { name: "Send choice" }).click();
    expect(resultText(await multi)).toBe('The operator answered card #2.\nChosen: "lint", "e2e"\nWrote: and be quick');

    // Free text only, then a skip.
    const free = fx.client.callTool(run.id, "ask_user", { question: "Name the branch?" });
    const card3 = page.locator('[data-card-key="web-ask#3"]');
    await card3.locator("textarea").fill("feature/cache");
    await card3.getByRole("button", { name: "Send" }).click();
    expect(resultText(await free)).toContain("Wrote: feature/cache");
    const skipped = fx.client.callTool(run.id, "ask_user", { question: "Anything else?", options: [{ label: "no" }] });
    await page.locator('[data-card-key="web-ask#4"]').getByRole("button", { name: "Dismiss (no answer)" }).click();
    const s = await skipped;
    expect(s.isError).toBe(false);
    await expectTranscript(resultText(s), "transcripts/console/skipped-card.txt");
    await page.close();
  });

  it("denies a permission card in the browser: the call is refused and nothing runs", async () => {
    const page = await open("/cards");
    const run = await fx.client.openRun("web-perm", { resources: ["workspace"], approvalPolicy: "write", questionTimeoutSeconds: 60 });
    const pending = fx.client.callTool(run.id, "write", { path: "denied.txt", content: "should never be written\n" });
    const card = page.locator('[data-card-key="web-perm#1"]');
    await card.waitFor();
    await expect(card.locator(".card-kind").textContent()).resolves.toBe("permission");
    await expect(card.locator(".card-arguments").textContent()).resolves.toContain("denied.txt");
    await expect(card.locator(".card-files").textContent()).resolves.toBe("denied.txt");
    await expect(card.locator(".card-arguments-download").first().getAttribute("href")).resolves.toBe("/cards/web-perm/1/arguments.json");
    await screenshot(page, "cards");
    await card.getByRole("button", { name: /deny/ }).click();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("approval_refused");
    // approval_refused has other causes (no operator, a timeout): the text says which, recorded whole.
    await expectTranscript(resultText(r), "transcripts/console/denied-card.txt");
    const workspace = fx.cp.getConversation("web-perm").workspacePath;
    expect(existsSync(join(workspace, "denied.txt"))).toBe(false);

    // And allow runs it.
    const allowed = fx.client.callTool(run.id, "write", { path: "allowed.txt", content: "ok\n" });
    await page.locator('[data-card-key="web-perm#2"]').getByRole("button", { name: /allow/ }).click();
    expect((await allowed).isError).toBe(false);
    expect(readFileSync(join(workspace, "allowed.txt"), "utf8")).toBe("ok\n");
    // The decision is in the closed list after a reload.
    await page.reload();
    await expect(page.locator("table.closed-cards").textContent()).resolves.toMatch(/deny/);
    await page.close();
  });

  it("removes a card answered in one page from a second open page", async () => {
    const first = await open("/");
    const second = await open("/cards");
    const run = await fx.client.openRun("web-two", { approvalPolicy: "never", resources: ["questions"], questionTimeoutSeconds: 60 });
    const pending = fx.client.callTool(run.id, "ask_user", { question: "Ship it?", options: [{ label: "yes" }, { label: "no" }] });
    const inFirst = first.locator('[data-card-key="web-two#1"]');
    const inSecond = second.locator('[data-card-key="web-two#1"]');
    await inFirst.waitFor();
    await inSecond.waitFor();
    await expect(second.locator("[data-open-count]").textContent()).resolves.toBe("1");
    await screenshot(first, "conversations");
    await inFirst.getByRole("button", { name: /yes/ }).click();
    expect(resultText(await pending)).toContain('Chose: "yes"');
    await inSecond.waitFor({ state: "detached" });
    await expect(second.locator("[data-open-count]").textContent()).resolves.toBe("0");
    // An open page is an attached human; once every page is closed, nobody is (ask_user fails fast again).
    expect(fx.cp.questions.attached("web-two")).toBe(true);
    await first.close();
    await second.close();
    await until(() => (fx.cp.questions.attached("web-two") ? undefined : true), "the pages' subscriptions to end");
    const alone = await fx.client.callTool(run.id, "ask_user", { question: "Anyone?" });
    expect(alone.errorCode).toBe("failed_precondition");
  });

  it("lists a bridge call in the audit view, live and filtered, and exports it as CSV and JSON lines", async () => {
    const run = await fx.client.openRun("web-audit", { approvalPolicy: "never", resources: ["workspace", "kernel"] });
    await fx.client.callTool(run.id, "write", { path: "notes.txt", content: "hello\n" });
    // A real kernel cell calling its own tools over the bridge.
    const cell = (code: string) => fx.client.callTool(run.id, "eval", { description: "read a file through the tool bridge", code });
    const r = await cell('tool("read", {"path": "notes.txt"})');
    expect(resultText(r), resultText(r)).toMatch(/hello/);
    const page = await open("/conversations/web-audit/audit?origin=bridge");
    const rows = page.locator("[data-audit-rows] tr");
    await countIs(rows, 1);
    await expect(rows.first().textContent()).resolves.toMatch(/tool_call.*read.*bridge.*ok.*from kernel py-[0-9a-f]+/s);
    // A new bridge call appears without a reload; a model call does not match the filter.
    await fx.client.callTool(run.id, "list", {});
    await cell('try:\n    tool("read", {"path": "missing.txt"})\nexcept ToolError as e:\n    print(e)');
    await countIs(rows, 2);
    await expect(rows.first().textContent()).resolves.toMatch(/read.*bridge.*error:/s);
    await screenshot(page, "audit");

    // Filters from the form: outcome ok and tool read.
    await page.selectOption('select[name="outcome"]', "ok");
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/outcome=ok/);
    await countIs(page.locator("[data-audit-rows] tr"), 1);

    const csv = await page.request.get(new URL("/conversations/web-audit/audit.csv?origin=bridge", web.url).href);
    expect(csv.status()).toBe(200);
    expect(csv.headers()["content-disposition"]).toMatch(/attachment; filename="audit-web-audit-\d{8}T\d{6}Z\.csv"/);
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe("seq,time,conversation_id,run_id,kind,tool,tier,origin,outcome,duration_ms,placement,arguments_digest,detail,kernel_id");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/,web-audit,r-[0-9a-f]+,tool_call,read,read,bridge,ok,.*,py-[0-9a-f]+$/);
    const jsonl = await page.request.get(new URL("/conversations/web-audit/audit.jsonl", web.url).href);
    const events = (await jsonl.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; origin: string; tool: string });
    expect(events.filter((e) => e.kind === "tool_call").map((e) => `${e.origin}:${e.tool}`)).toEqual([
      "model:write",
      "bridge:read",
      "model:eval",
      "model:list",
      "bridge:read",
      "model:eval",
    ]);
    const bad = await page.request.get(new URL("/conversations/web-audit/audit.csv?origin=kernel", web.url).href);
    expect(bad.status()).toBe(400);
    await expectTranscript(await bad.text(), "transcripts/console/bad-audit-filter.html");
    await page.close();
  });

  it("starts and stops an enclosure from the browser", async () => {
    await fx.client.createConversation("web-enc");
    const page = await open("/conversations/web-enc");
    page.on("dialog", (d) => void d.accept());
    await countIs(page.locator('[data-placement="host"]'), 1);
    await page.fill('input[name="memory_mib"]', "512");
    await page.fill('input[name="pids"]', "256");
    await page.getByRole("button", { name: "Start enclosure" }).click();
    const facts = page.locator('[data-placement="enclosure"]');
    await facts.waitFor({ timeout: 120_000 });
    // The image's tag and the container's id change with every build and start.
    // The image's tag, the container, the uid range's base and the uptime change with each build and start
    // (textContent runs a label into its value, so the masks cannot lean on word boundaries).
    const enclosureMasks: readonly Mask[] = [
      [/enclave-runtime:\S+/g, "enclave-runtime:<tag>"],
      [/(?<![0-9a-f])[0-9a-f]{12}(?![0-9a-f])/g, "<container>"],
      [/user \d+:\d+/g, "user <uid>:<gid>"],
      [/Uptime[^\n]*/g, "Uptime<uptime>"],
    ];
    await expectTranscript((await facts.textContent()) ?? "", "transcripts/console/enclosure-facts.txt", enclosureMasks);
    expect(fx.cp.getConversation("web-enc").enclosure?.limits.memoryBytes).toBe(512 * 1024 ** 2);
    // What the placement can run, as the agent in the enclosure reports it.
    await page.reload();
    await page.locator("#capabilities .capabilities").waitFor({ timeout: 60_000 });
    await screenshot(page, "conversation-enclosure");
    // Changes made elsewhere (the API) show up live, without a reload.
    await fx.client.stopEnclosure("web-enc");
    await page.locator('[data-placement="host"]').waitFor({ timeout: 60_000 });
    await fx.client.startEnclosure("web-enc", {});
    await page.locator('[data-placement="enclosure"]').waitFor({ timeout: 120_000 });
    await page.getByRole("button", { name: "Stop enclosure" }).click();
    await page.locator('[data-placement="host"]').waitFor({ timeout: 120_000 });
    expect(fx.cp.getConversation("web-enc").enclosure).toBeUndefined();
    await page.close();
  });

  it("starts the host agent only from the page's button (a POST), then shows what the placement can run", async () => {
    await fx.client.createConversation("web-start");
    const page = await open("/conversations/web-start");
    const button = page.getByRole("button", { name: "Start it and ask" });
    await button.waitFor();
    expect(fx.cp.hostAgents.pid("web-start")).toBeUndefined();
    await button.click();
    await page.locator("#capabilities .capabilities").waitFor({ timeout: 60_000 });
    await expect(page.locator("#capabilities").textContent()).resolves.toMatch(/As reported by the agent \(host, agent /);
    expect(fx.cp.hostAgents.pid("web-start")).toBeGreaterThan(0);
    // A reload asks the running agent straight away.
    await page.reload();
    await page.locator("#capabilities .capabilities").waitFor({ timeout: 60_000 });
    await page.close();
    await fx.client.deleteConversation("web-start");
  });

  it("shows runs and vibe workers live, and says so when the conversation is deleted", async () => {
    await fx.client.createConversation("web-live");
    // What runs in the conversation's placement, read from its agent: a real kernel and a real
    // language server (started by the calls below), and a source that fails, reported in its section.
    const busy = await fx.client.openRun("web-live", { approvalPolicy: "never", resources: ["workspace", "kernel", "lsp"] });
    expect((await fx.client.callTool(busy.id, "eval", { description: "start a kernel for the live view", code: "x = 1" })).isError).toBe(false);
    await fx.client.callTool(busy.id, "write", { path: "tsconfig.json", content: "{}\n" });
    await fx.client.callTool(busy.id, "write", { path: "a.ts", content: "export const answer = 42;\n" });
    expect((await fx.client.callTool(busy.id, "lsp", { action: "hover", file: "a.ts", line: 1, symbol: "answer" })).isError).toBe(false);
    fx.cp.liveStatus.register({
      id: "flaky",
      title: "A source that fails",
      empty: "nothing",
      list: () => {
        throw new Error("agent not answering");
      },
    });
    const page = await open("/conversations/web-live");
    const live = new TranscriptLog();
    for (const fragment of ["#live-kernels li", "#live-lsp li", "#live-debug", "#live-flaky"])
      live.add(fragment, (await page.locator(fragment).textContent()) ?? "");
    const run = await fx.client.openRun("web-live", { resources: ["vibe"], vibeMode: true, approvalPolicy: "never" });
    const spawned = await fx.client.callTool(run.id, "vibe_spawn", { brief: "wait a minute", label: "slow <b>worker</b>" });
    expect(spawned.isError).toBe(false);
    const worker = page.locator("#live-vibe li");
    await worker.waitFor();
    live.add("#live-vibe li", (await worker.textContent()) ?? "");
    await expect(page.locator("table.runs").textContent()).resolves.toContain(run.id);
    await screenshot(page, "conversation-live");
    await fx.client.callTool(run.id, "vibe_kill", { worker_id: "w1" });
    await page.locator("#live-vibe .state-killed").waitFor();
    await fx.client.deleteConversation("web-live");
    await page.locator(".fragment-error").waitFor();
    live.add(".fragment-error", (await page.locator(".fragment-error").textContent()) ?? "");
    await live.expect("transcripts/console/live-fragments.txt", [
      [/\bpy-[0-9a-f]{8}\b/g, "py-<id>"],
      [/for \d+(?:\.\d+)? ?(?:ms|s|min|h)/g, "for <duration>"],
      [/pid \d+/g, "pid <pid>"],
      // The host's Python and the kernel's environment folder.
      [/cpython [\d.]+ \([^)]*\)/g, "cpython <version> (<interpreter>)"],
    ]);
    await page.close();
  });

  it("refuses a POST without the session's CSRF token or from another origin, and a foreign Host", async () => {
    const page = await open("/cards");
    const run = await fx.client.openRun("web-two", { approvalPolicy: "never", resources: ["questions"], questionTimeoutSeconds: 60 });
    const pending = fx.client.callTool(run.id, "ask_user", { question: "Still there?", options: [{ label: "yes" }] });
    const key = await until(() => fx.cp.questions.list("web-two", false)[0], "the card");
    const path = `/cards/web-two/${key.number}/answer`;
    const cookie = (await browser.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content")) ?? "";
    const base = { port: web.port, path, method: "POST", body: "choice=yes" };
    const form = { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json", Cookie: cookie, Host: `127.0.0.1:${web.port}` };
    const noToken = await rawRequest({ ...base, headers: { ...form, Origin: `http://127.0.0.1:${web.port}` } });
    expect(noToken.status).toBe(403);
    // Both are 403: what tells them apart is the reason, recorded whole.
    const refusals = new TranscriptLog();
    refusals.add("no form token", noToken.body);
    const crossSite = await rawRequest({ ...base, headers: { ...form, Origin: "http://evil.example", "X-CSRF-Token": csrf } });
    expect(crossSite.status).toBe(403);
    refusals.add("another origin", crossSite.body);
    await refusals.expect("transcripts/console/post-refusals.txt");
    const rebound = await rawRequest({ port: web.port, path: "/", headers: { Host: `evil.example:${web.port}` } });
    expect(rebound.status).toBe(421);
    expect(fx.cp.questions.list("web-two", false)).toHaveLength(1);
    // The same request from the page itself goes through.
    const ok = await rawRequest({ ...base, headers: { ...form, Origin: `http://127.0.0.1:${web.port}`, "X-CSRF-Token": csrf } });
    expect(ok.status).toBe(200);
    expect(resultText(await pending)).toContain('Chose: "yes"');
    await page.close();
  });
  it("shows the conversation's tool calls as they happen: running, then tool, origin, arguments digest, outcome, duration", async () => {
    const page = await open("/conversations/web-calls");
    await page.locator("[data-calls-empty]").waitFor();
    const run = await fx.client.openRun("web-calls", { approvalPolicy: "never" });
    const rows = page.locator('[data-calls="web-calls"] tr');
    // A call that runs until the test lets it finish (bounded): shown running, then replaced by its outcome.
    const waiting = fx.client.callTool(run.id, "exec", { command: "for i in $(seq 1 300); do [ -f go ] && exit 0; sleep 0.1; done; exit 1" });
    await countIs(rows, 1);
    await expect(rows.first().locator(".call-outcome").textContent()).resolves.toBe("running");
    await expect(rows.first().locator(".call-tool").textContent()).resolves.toBe("exec");
    writeFileSync(join(fx.cp.getConversation("web-calls").workspacePath, "go"), "");
    expect((await waiting).isError).toBe(false);
    await page.locator('[data-calls="web-calls"] tr .call-outcome:text-is("ok")').waitFor();
    await countIs(rows, 1);
    expect((await fx.client.callTool(run.id, "write", { path: "calls.txt", content: "one\n" })).isError).toBe(false);
    await countIs(rows, 2);
    const first = rows.first();
    await expect(first.locator(".call-tool").textContent()).resolves.toBe("write");
    await expect(first.locator(".call-outcome").textContent()).resolves.toBe("ok");
    await expect(first.locator(".origin").textContent()).resolves.toBe("model");
    expect(await first.locator(".call-duration").textContent()).toMatch(/^\d+ ms$/);
    expect(await first.locator(".digest").getAttribute("title")).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await page.locator("[data-calls-empty]").count()).toBe(0);
    // A call naming a tool that is markup: refused, and its row shows the name as text.
    expect((await fx.client.callTool(run.id, XSS, {})).errorCode).toBe("unknown_tool");
    await countIs(rows, 3);
    await expect(rows.first().locator(".call-outcome").textContent()).resolves.toBe("refused:unknown_tool");
    await expect(rows.first().locator(".call-tool").textContent()).resolves.toBe(XSS.slice(0, 200));
    expect(await page.evaluate("document.body.dataset.pwned")).toBeUndefined();
    // The arguments themselves are never on the page.
    expect(await page.content()).not.toContain("calls.txt");
    await screenshot(page, "recent-calls");
    // Loaded afresh, the page renders the same calls, newest first.
    await page.reload();
    await countIs(rows, 3);
    await expect(rows.nth(1).locator(".call-tool").textContent()).resolves.toBe("write");
    await expect(rows.nth(2).locator(".call-tool").textContent()).resolves.toBe("exec");
    await page.close();
  });
});

describe("access token on a non-loopback bind", () => {
  it("is generated, printed in the URL, and required on every request including the event stream", async () => {
    const refusal = await rejected(serveConsole(fx.cp, { host: "0.0.0.0", port: 0, token: "", tokenGenerated: false }));
    await expectTranscript(refusal, "transcripts/console/no-token-off-loopback.txt");
    const settings = resolveConsoleSettings("0.0.0.0:0", undefined);
    expect(settings?.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const guarded = await serveConsole(fx.cp, settings as NonNullable<typeof settings>);
    try {
      expect(guarded.tokenRequired).toBe(true);
      expect(guarded.url).toContain(`?token=${settings?.token}`);
      const port = guarded.port;
      for (const path of ["/", "/cards", "/conversations/web-ask", "/conversations/web-ask/audit.csv", "/events"]) {
        const r = await rawRequest({ port, path, headers: { Accept: "text/html" } });
        expect(r.status, path).toBe(401);
      }
      expect((await rawRequest({ port, path: "/?token=not-the-token-at-all" })).status).toBe(401);
      expect((await rawRequest({ port, path: "/events", headers: { Authorization: "Bearer wrong" } })).status).toBe(401);
      const bearer = await rawRequest({ port, path: "/events", headers: { Authorization: `Bearer ${settings?.token}` } });
      expect(bearer.status).toBe(200);
      expect(bearer.body).toContain("event: cards");

      const page = await browser.newPage();
      await browser.context.clearCookies();
      await page.goto(`http://127.0.0.1:${port}/cards`);
      await expect(page.locator("h1").textContent()).resolves.toBe("Access token needed");
      await screenshot(page, "token-required");
      await page.fill('input[name="token"]', settings?.token ?? "");
      await page.click('button[type="submit"]');
      await page.waitForURL(`http://127.0.0.1:${port}/cards`);
      await page.locator('[data-live-indicator][data-state="live"]').waitFor();
      await expect(page.locator("h1").textContent()).resolves.toBe("Cards");
      await page.close();
    } finally {
      await guarded.close();
    }
  });
});
