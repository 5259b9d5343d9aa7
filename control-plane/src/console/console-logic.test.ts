// The console's pure logic: HTML escaping, audit filters, CSV/JSON-lines export, console settings
// and the access checks (token, session cookie, CSRF, Host).
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../audit/audit-log.js";
import { ConsoleAccess, parseCookies } from "./access.js";
import { filterQuery, matchesAuditFilter, NO_FILTER, parseAuditFilter } from "./audit-filter.js";
import { csvField, csvHeader, csvRow, exportFileName, jsonLine } from "./audit-export.js";
import { consoleUrl, isLoopbackHost, parseListen, resolveConsoleSettings } from "./console-settings.js";
import { escapeHtml, html, join, jsonForHtml } from "./html.js";
import { fillPage } from "./page-template.js";
import { renderCard } from "./views/cards-view.js";
import { auditRow } from "./views/audit-view.js";
import { thrown, TranscriptLog } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const event = (over: Partial<AuditEvent>): AuditEvent => ({
  seq: 1,
  timeMs: Date.UTC(2026, 11, 2, 10, 0, 0),
  conversationId: "c1",
  runId: "r-1",
  kind: "tool_call",
  tool: "read",
  tier: "read",
  argumentsDigest: "sha256:abc",
  outcome: "ok",
  durationMs: 3,
  origin: "model",
  detail: "",
  placement: "host placement, pid 1",
  kernelId: "",
  cardNumber: 0,
  tenant: "local",
  ...over,
});

describe("escaping", () => {
  it("escapes every markup character in values, not in the template", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe("&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;");
    const evil = `"><script>alert(1)</script>`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
    expect(html`<ul>${["<b>", html`<li>ok</li>`]}</ul>`.value).toBe("<ul>&lt;b&gt;<li>ok</li></ul>");
    expect(html`${null}${undefined}${false}${0}`.value).toBe("0");
    expect(join(["<x>", html`<br>`], html`<hr>`).value).toBe("&lt;x&gt;<hr><br>");
    expect(jsonForHtml({ s: "</script><!--" })).toBe('{"s":"\\u003c/script\\u003e\\u003c!--"}');
  });

  it("renders a card from an agent without any of its text becoming markup", () => {
    const x = `<img src=x onerror=alert(1)>`;
    const out = renderCard(
      {
        conversationId: "c1",
        number: 7,
        kind: "question",
        question: x,
        context: x,
        options: [{ label: `${x}"`, description: x }],
        allowFreeText: true,
        multiSelect: true,
        runId: x,
        tool: "",
        argumentsJson: "",
        createdAtMs: 0,
        expiresAtMs: 0,
        state: "open",
        answer: undefined,
        closedAtMs: 0,
        files: [],
        filesNote: "",
        argumentsChars: 0,
        argumentsTruncated: false,
      },
      "csrf",
      "/",
    ).value;
    expect(out).not.toContain("<img");
    expect(out).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(out).toContain('value="&lt;img src=x onerror=alert(1)&gt;&quot;"');
    expect(out).toContain('type="checkbox" name="selected"');
    expect(out).toContain('name="free_text"');
    const row = auditRow(event({ detail: x, tool: x })).value;
    expect(row).not.toContain("<img");
  });
});

describe("audit filters", () => {
  it("parses kind, tool, origin and outcome, and refuses values that cannot match", async () => {
    expect(parseAuditFilter(new URLSearchParams(""))).toEqual({ ok: true, filter: NO_FILTER });
    expect(parseAuditFilter(new URLSearchParams("kind=tool_call&tool=read&origin=bridge&outcome=error:timeout"))).toEqual({
      ok: true,
      filter: { kind: "tool_call", tool: "read", origin: "bridge", outcome: "error:timeout" },
    });
    const bad = (q: string) => {
      const r = parseAuditFilter(new URLSearchParams(q));
      return r.ok ? "" : r.error;
    };
    // Each refusal says which field and why; they are recorded whole, a header line per query.
    const log = new TranscriptLog();
    for (const q of ["kind=sql", "origin=kernel", "tool=a%20b", "outcome=ERR"]) {
      const why = bad(q);
      expect(why, q).not.toBe("");
      log.add(q, why);
    }
    await log.expect("transcripts/console-logic/audit-filter-refusals.txt");
  });

  it("matches outcome classes and exact outcomes, and every field together", () => {
    const f = (q: string) => {
      const r = parseAuditFilter(new URLSearchParams(q));
      if (!r.ok) throw new Error(r.error);
      return r.filter;
    };
    expect(matchesAuditFilter(event({ outcome: "error:timeout" }), f("outcome=error"))).toBe(true);
    expect(matchesAuditFilter(event({ outcome: "error:timeout" }), f("outcome=error:timeout"))).toBe(true);
    expect(matchesAuditFilter(event({ outcome: "error:timeout" }), f("outcome=error:failed"))).toBe(false);
    expect(matchesAuditFilter(event({ outcome: "errorish" }), f("outcome=error"))).toBe(false);
    expect(matchesAuditFilter(event({ origin: "bridge" }), f("origin=bridge&tool=read&kind=tool_call"))).toBe(true);
    expect(matchesAuditFilter(event({ origin: "model" }), f("origin=bridge"))).toBe(false);
    expect(matchesAuditFilter(event({ kind: "card_closed", outcome: "answered", tool: "write" }), f("kind=card_closed&outcome=answered"))).toBe(true);
    expect(filterQuery(f("tool=read&origin=bridge")).toString()).toBe("tool=read&origin=bridge");
  });
});

describe("export", () => {
  it("writes RFC 4180 CSV with formula-looking text defused", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField(-5)).toBe("-5");
    expect(csvHeader()).toBe("seq,time,conversation_id,run_id,kind,tool,tier,origin,outcome,duration_ms,placement,arguments_digest,detail,kernel_id\r\n");
    expect(csvRow(event({ detail: "a,b", origin: "bridge" }))).toBe(
      '1,2026-12-02T10:00:00.000Z,c1,r-1,tool_call,read,read,bridge,ok,3,"host placement, pid 1",sha256:abc,"a,b",\r\n',
    );
  });

  it("writes one JSON object per line, and names the file after the conversation and time", () => {
    const line = jsonLine(event({ detail: "two\nlines" }));
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toMatchObject({ detail: "two\nlines", seq: 1 });
    expect(exportFileName("c1", "csv", new Date(Date.UTC(2026, 11, 2, 10, 5, 9, 123)))).toBe("audit-c1-20261202T100509Z.csv");
  });
});

describe("console settings", () => {
  it("binds loopback without a token, anything else with one, and can be turned off", async () => {
    expect(resolveConsoleSettings(undefined, undefined)).toEqual({ host: "127.0.0.1", port: 7401, token: "", tokenGenerated: false });
    expect(resolveConsoleSettings("off", undefined)).toBeUndefined();
    const wide = resolveConsoleSettings("0.0.0.0:8080", undefined);
    expect(wide?.tokenGenerated).toBe(true);
    expect(wide?.token.length).toBeGreaterThanOrEqual(32);
    expect(resolveConsoleSettings(":9000", undefined)?.host).toBe("0.0.0.0");
    expect(resolveConsoleSettings("[::1]:9000", undefined)).toMatchObject({ host: "::1", token: "" });
    expect(resolveConsoleSettings("127.0.0.1:9000", "a-given-token-of-20ch")).toMatchObject({ token: "a-given-token-of-20ch", tokenGenerated: false });
    await expectTranscript(
      thrown(() => resolveConsoleSettings("127.0.0.1:9000", "short")),
      "transcripts/console-logic/16-to-256-characters.txt",
    );
    await expectTranscript(
      thrown(() => parseListen("localhost")),
      "transcripts/console-logic/is-not-host-port.txt",
    );
    await expectTranscript(
      thrown(() => parseListen("h:70000")),
      "transcripts/console-logic/is-not-host-port-2.txt",
    );
    expect(isLoopbackHost("127.8.0.1")).toBe(true);
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("10.0.0.1")).toBe(false);
    expect(isLoopbackHost("0.0.0.0")).toBe(false);
    expect(consoleUrl({ host: "127.0.0.1", port: 1, token: "", tokenGenerated: false }, 7401)).toBe("http://127.0.0.1:7401/");
    expect(consoleUrl({ host: "::1", port: 1, token: "t", tokenGenerated: true }, 7401)).toBe("http://[::1]:7401/?token=t");
  });
});

describe("access", () => {
  const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;
  const url = (path: string) => new URL(path, "http://console.invalid");

  it("on loopback without a token: a session for anyone who names the console by a loopback Host", () => {
    const a = new ConsoleAccess("", 7401, true);
    const first = a.check(req({ host: "127.0.0.1:7401" }), url("/"));
    expect(first.ok && first.session.setCookie).toMatch(/^enclave_console_7401=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(a.check(req({ host: "localhost:7401" }), url("/")).ok).toBe(true);
    expect(a.check(req({ host: "evil.example:7401" }), url("/"))).toMatchObject({ ok: false, status: 421 });
    expect(a.check(req({ host: "127.0.0.1:80" }), url("/"))).toMatchObject({ ok: false, status: 421 });
    // The cookie comes back: same session, same CSRF token, nothing new to set.
    const cookie = (first.ok && first.session.setCookie?.split(";")[0]) || "";
    const again = a.check(req({ host: "127.0.0.1:7401", cookie }), url("/"));
    expect(again.ok && again.session.csrf).toBe(first.ok && first.session.csrf);
    expect(again.ok && again.session.setCookie).toBeUndefined();
    // A forged cookie is a new visitor.
    const forged = a.check(req({ host: "127.0.0.1:7401", cookie: `${a.cookieName}=abc.def` }), url("/"));
    expect(forged.ok && forged.session.setCookie).toBeTruthy();
    expect(parseCookies("a=1; b = 2;c=x=y")).toEqual(
      new Map([
        ["a", "1"],
        ["b", "2"],
        ["c", "x=y"],
      ]),
    );
  });

  it("with a token: token in the URL (then a cookie) or a bearer header, checked on every request", () => {
    const token = "0123456789abcdef-token";
    const a = new ConsoleAccess(token, 7401, false);
    expect(a.check(req({ host: "10.1.2.3:7401" }), url("/"))).toMatchObject({ ok: false, status: 401 });
    expect(a.check(req({ host: "x" }), url("/?token=wrong"))).toMatchObject({ ok: false, status: 401 });
    expect(a.check(req({ host: "x", authorization: "Bearer wrong" }), url("/"))).toMatchObject({ ok: false, status: 401 });
    expect(a.check(req({ host: "x", authorization: `Bearer ${token}` }), url("/events"))).toMatchObject({ ok: true, viaBearer: true });
    const viaUrl = a.check(req({ host: "x" }), url(`/cards?token=${token}&x=1`));
    expect(viaUrl).toMatchObject({ ok: true, cleanUrl: "/cards?x=1" });
    const cookie = (viaUrl.ok && viaUrl.session.setCookie?.split(";")[0]) || "";
    expect(a.check(req({ host: "x", cookie }), url("/events"))).toMatchObject({ ok: true, viaBearer: false });
  });

  it("lets a POST through only from the same origin with the session's CSRF token", async () => {
    const a = new ConsoleAccess("", 7401, true);
    const d = a.check(req({ host: "127.0.0.1:7401" }), url("/"));
    if (!d.ok) throw new Error("no session");
    const s = d.session;
    const post = (h: Record<string, string>, form?: string) => a.checkPost(req({ host: "127.0.0.1:7401", ...h }), s, false, form);
    expect(post({ origin: "http://127.0.0.1:7401" }, s.csrf)).toEqual({ ok: true });
    expect(post({ origin: "http://127.0.0.1:7401", "x-csrf-token": s.csrf })).toEqual({ ok: true });
    expect(post({ referer: "http://127.0.0.1:7401/cards" }, s.csrf)).toEqual({ ok: true });
    // Each refusal and its reason (another origin, or a missing or stale form token), recorded whole.
    const log = new TranscriptLog();
    const refused = (name: string, decision: ReturnType<typeof post>): void => {
      expect(decision.ok, name).toBe(false);
      log.add(name, JSON.stringify(decision));
    };
    refused("another origin", post({ origin: "http://evil.example" }, s.csrf));
    refused("no Origin or Referer", post({}, s.csrf));
    expect(post({ origin: "null" }, s.csrf)).toMatchObject({ ok: false });
    refused("a wrong form token", post({ origin: "http://127.0.0.1:7401" }, "nope"));
    refused("no form token", post({ origin: "http://127.0.0.1:7401" }));
    await log.expect("transcripts/console-logic/post-refusals.txt");
    expect(a.checkPost(req({}), s, true, undefined)).toEqual({ ok: true });
  });
});

describe("page templates", () => {
  it("fill slots as html`` does: markup kept, text escaped, a slot used twice filled twice", () => {
    const out = fillPage("start-host-agent", { here: '/conversations/a"b', capabilities: html`<b>x</b>`, csrf: "<t>" }).value;
    expect(out).toContain('action="/conversations/a&quot;b/host-agent/start"');
    expect(out).toContain('data-fragment-src="<b>x</b>"');
    expect(out).toContain('value="&lt;t&gt;"');
    expect(out).not.toContain("{{");
  });

  it("refuse a slot left unfilled or one the page does not have", async () => {
    await expectTranscript(
      thrown(() => fillPage("start-host-agent", { here: "/", capabilities: "" })),
      "transcripts/console-logic/csrf.txt",
    );
    await expectTranscript(
      thrown(() => fillPage("start-host-agent", { here: "/", capabilities: "", csrf: "", extra: "" })),
      "transcripts/console-logic/extra.txt",
    );
  });
});
