// The operator console against requests a browser makes for another site: no GET starts anything
// (the host agent starts only on a POST carrying the page's CSRF token), and a request the browser
// marks as cross-site (or same-site: another port of this host) is refused on every route, reading
// ones included. Real control plane, real host agent, plain HTTP requests with exact headers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveConsole, type ServingConsole } from "@enclave/control-plane/console/console-server.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { rawRequest } from "../helpers/raw-http.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

let fx: Fixture;
let web: ServingConsole;

const ID = "sec-console";

function host(): Record<string, string> {
  return { Host: `127.0.0.1:${web.port}` };
}

/** A session as the console's own page has it: the cookie and the page's CSRF token. */
async function session(): Promise<{ cookie: string; csrf: string }> {
  const page = await rawRequest({ port: web.port, path: "/", headers: { ...host(), Accept: "text/html", "Sec-Fetch-Site": "none" } });
  expect(page.status).toBe(200);
  const setCookie = page.headers["set-cookie"];
  const cookie = ((Array.isArray(setCookie) ? setCookie[0] : setCookie) ?? "").split(";")[0] ?? "";
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.body)?.[1] ?? "";
  expect(cookie).toMatch(/^enclave_console_\d+=/);
  expect(csrf).not.toBe("");
  return { cookie, csrf };
}

beforeAll(async () => {
  fx = await startFixture();
  web = await serveConsole(fx.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false });
  await fx.client.createConversation(ID);
});

afterAll(async () => {
  await web?.close();
  await fx?.close();
});

describe("console: nothing starts on a GET", () => {
  it("does not start the host agent on GET …/capabilities?start=1, refuses the POST without the token, starts it with the token", async () => {
    const fragment = `/fragments/conversations/${ID}/capabilities`;
    const got = await rawRequest({ port: web.port, path: `${fragment}?start=1`, headers: { ...host(), Accept: "text/html" } });
    expect(got.status).toBe(200);
    expect(got.body).not.toContain('class="capabilities"');
    await expectTranscript(got.body, "transcripts/console-requests/capabilities-not-running.txt");
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();
    expect(fx.cp.hostAgents.running(ID)).toBeUndefined();

    // The page offers a form (POST with the CSRF token), not a link.
    const { cookie, csrf } = await session();
    const page = await rawRequest({ port: web.port, path: `/conversations/${ID}`, headers: { ...host(), Accept: "text/html", Cookie: cookie } });
    expect(page.body).toContain(`action="/conversations/${ID}/host-agent/start"`);
    expect(page.body).not.toContain("start=1");

    const start = `/conversations/${ID}/host-agent/start`;
    const form = {
      ...host(),
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
      Cookie: cookie,
      Origin: `http://127.0.0.1:${web.port}`,
    };
    const noToken = await rawRequest({ port: web.port, path: start, method: "POST", headers: form, body: "" });
    expect(noToken.status).toBe(403);
    expect(Object.keys(JSON.parse(noToken.body))).toEqual(["error"]);
    await expectTranscript(noToken.body, "transcripts/console-requests/post-without-token.txt");
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();
    const wrongToken = await rawRequest({ port: web.port, path: start, method: "POST", headers: form, body: "_csrf=not-the-token" });
    expect(wrongToken.status).toBe(403);
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();
    // Nor does a GET on the POST's own address.
    const getStart = await rawRequest({ port: web.port, path: start, headers: { ...host(), Accept: "application/json" } });
    expect(getStart.status).toBe(405);
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();

    const ok = await rawRequest({ port: web.port, path: start, method: "POST", headers: form, body: `_csrf=${encodeURIComponent(csrf)}` });
    expect(ok.status, ok.body).toBe(200);
    const pid = fx.cp.hostAgents.pid(ID);
    expect(pid).toBeGreaterThan(0);
    expect(JSON.parse(ok.body)).toEqual({ ok: true, pid });
    // Now the fragment asks the running agent.
    const described = await rawRequest({ port: web.port, path: fragment, headers: { ...host(), Accept: "text/html" } });
    // Now the fragment lists what the agent reports (what resolves depends on the machine: only its form is checked).
    expect(described.body).toContain('class="capabilities"');
    await fx.cp.hostAgents.stop(ID);
  });

  it("refuses a form POST from a page elsewhere even with a stolen token", async () => {
    const { cookie, csrf } = await session();
    const r = await rawRequest({
      port: web.port,
      path: `/conversations/${ID}/host-agent/start`,
      method: "POST",
      headers: { ...host(), "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json", Cookie: cookie, Origin: "http://evil.example" },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    expect(r.status).toBe(403);
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();
  });
});

describe("console: requests from another site", () => {
  const paths = () => [
    "/",
    "/cards",
    `/conversations/${ID}`,
    `/conversations/${ID}/audit`,
    `/conversations/${ID}/audit.csv`,
    `/conversations/${ID}/audit.jsonl`,
    "/fragments/overview",
    `/fragments/conversations/${ID}/live`,
    `/fragments/conversations/${ID}/capabilities?start=1`,
    "/events?audit=*",
    "/no-such-page",
  ];

  it("refuses every GET marked cross-site or same-site with a clear 403, and starts nothing", async () => {
    // Every path gives the same refusal for a site; what it says (per site) and the page a browser shows are recorded.
    const refusals: string[] = [];
    for (const site of ["cross-site", "same-site"]) {
      const errors = new Set<string>();
      for (const path of paths()) {
        const r = await rawRequest({ port: web.port, path, headers: { ...host(), Accept: "application/json", "Sec-Fetch-Site": site } });
        expect(r.status, `${site} ${path}`).toBe(403);
        errors.add(String(JSON.parse(r.body).error));
      }
      expect([...errors], site).toHaveLength(1);
      const page = await rawRequest({
        port: web.port,
        path: "/cards",
        headers: { ...host(), Accept: "text/html", "Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate" },
      });
      expect(page.status).toBe(403);
      expect(page.headers["content-type"]).toMatch(/text\/html/);
      refusals.push(`## ${site}: JSON error\n${[...errors].join("")}\n## ${site}: page\n${page.body}\n`);
    }
    await expectTranscript(refusals.join(""), "transcripts/console-requests/another-site-refusals.txt");
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();
    // A cross-site event stream would count as a human attached: it must not.
    expect(fx.cp.questions.attached(ID)).toBe(false);
  });

  it("refuses a cross-site POST that carries a valid session and token", async () => {
    const { cookie, csrf } = await session();
    const r = await rawRequest({
      port: web.port,
      path: `/conversations/${ID}/host-agent/start`,
      method: "POST",
      headers: {
        ...host(),
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
        Cookie: cookie,
        Origin: `http://127.0.0.1:${web.port}`,
        "Sec-Fetch-Site": "cross-site",
      },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    expect(r.status).toBe(403);
    expect(fx.cp.hostAgents.pid(ID)).toBeUndefined();
  });

  it("still answers the console's own requests (same-origin, typed address) and clients that send no Sec-Fetch-Site", async () => {
    for (const site of ["same-origin", "none", undefined]) {
      const headers: Record<string, string> = { ...host(), Accept: "text/html" };
      if (site) headers["Sec-Fetch-Site"] = site;
      const r = await rawRequest({ port: web.port, path: "/cards", headers });
      expect(r.status, String(site)).toBe(200);
    }
  });
});
