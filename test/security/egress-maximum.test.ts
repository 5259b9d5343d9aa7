// Promise: what an operator allows is a policy, not a default a tenant can lift. A tenant's egress
// maximum is its entry in the token file (`enclave tokens egress`); a conversation's policy past it is
// refused with invalid_arguments naming the maximum, at creation and when set, and audited; a tenant
// whose entry sets none gets no egress at all; a maximum narrowed later holds at the proxy for a
// policy set before.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { formatDestination, parseDestinationText } from "@enclave/control-plane/egress/egress-policy.js";
import { readTokenFile, setEgressMaximum } from "@enclave/control-plane/tenants/token-file.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type TenantService, startTenantService } from "../helpers/tenant-service.js";

let fx: TenantService<"acme" | "globex">;
let acme: ControlPlaneClient;
let globex: ControlPlaneClient;

async function code(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  return p.then(
    () => ({ code: "ok", message: "" }),
    (err: { code?: string; message: string }) => ({ code: err.code ?? "?", message: err.message }),
  );
}

beforeAll(async () => {
  fx = await startTenantService({ tenants: ["acme", "globex"], transport: "unix" });
  setEgressMaximum(
    fx.tokensFile,
    "acme",
    ["pypi.org:443", "*.mirror.example:80,443", "10.1.0.0/16:8080"].map((d) => parseDestinationText(d, "d")),
    formatDestination,
  );
  acme = fx.client("acme");
  globex = fx.client("globex");
  // The running control plane picks the file up within a second.
  await new Promise((r) => setTimeout(r, 1500));
}, 120_000);
afterAll(async () => {
  await fx?.close();
});

describe("the operator's egress maximum", () => {
  it("lets a tenant narrow within it", async () => {
    await acme.createConversation("within");
    const c = await acme.setConversationEgress("within", [
      { host: "pypi.org", ports: [443] },
      { host: "a.mirror.example", ports: [443] },
      { cidr: "10.1.2.0/24", ports: [8080] },
    ]);
    expect(c.egress?.allow.map((d) => d.host || d.cidr)).toEqual(["pypi.org", "a.mirror.example", "10.1.2.0/24"]);
  });

  it("refuses widening past it, naming the maximum, at creation and when set, and audits the refusal", async () => {
    const created = await code(acme.createConversation("wider", "", { egress: [{ host: "evil.example" }] }));
    expect(created.code).toBe("invalid_arguments");
    expect(created.message).toContain(
      "egress destination `evil.example` is past tenant `acme`'s operator maximum (pypi.org:443 *.mirror.example:80,443 10.1.0.0/16:8080)",
    );
    await acme.createConversation("widen");
    for (const wider of [
      { host: "pypi.org" },
      { host: "pypi.org", ports: [80] },
      { cidr: "10.0.0.0/8", ports: [8080] },
      { host: "*.example" },
      { cidr: "127.0.0.1/32", ports: [8080] },
    ]) {
      const r = await code(acme.setConversationEgress("widen", [wider]));
      expect(r.code, JSON.stringify(wider)).toBe("invalid_arguments");
      expect(r.message).toContain("operator maximum (pypi.org:443");
    }
    expect((await acme.getConversation("widen")).egress?.allow).toEqual([]);
    const refusals: string[] = [];
    for await (const e of acme.auditEvents({ includeHistory: true, historyOnly: true })) if (e.kind === "call_refused") refusals.push(e.detail);
    expect(refusals.some((d) => d.startsWith("SetConversationEgress: egress destination"))).toBe(true);
  });

  it("gives a tenant whose entry sets none no egress at all", async () => {
    await globex.createConversation("none");
    const r = await code(globex.setConversationEgress("none", [{ host: "pypi.org", ports: [443] }]));
    expect(r.code).toBe("invalid_arguments");
    expect(r.message).toContain("operator maximum (none (no network))");
  });

  it("refuses malformed destinations with invalid_arguments", async () => {
    for (const bad of [
      { host: "a", cidr: "1.2.3.4/32" },
      {},
      { host: "1.2.3.4" },
      { host: "bad_name!" },
      { cidr: "1.2.3.4/33" },
      { host: "pypi.org", ports: [0] },
    ]) {
      expect((await code(acme.setConversationEgress("within", [bad]))).code, JSON.stringify(bad)).toBe("invalid_arguments");
    }
    const many = Array.from({ length: 65 }, () => ({ host: "pypi.org", ports: [443] }));
    expect((await code(acme.setConversationEgress("within", many))).code).toBe("invalid_arguments");
  });

  it("cannot be used on another tenant's conversation", async () => {
    await acme.createConversation("mine");
    expect((await code(globex.setConversationEgress("mine", []))).code).toBe("not_found");
  });
});

describe("enclave tokens egress", () => {
  const enclave = (...args: string[]) =>
    promisify(execFile)(join(repoRoot, "bin", "enclave"), [...args, "--tokens-file", fx.tokensFile]).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );

  it("sets, shows and clears a tenant's maximum, and refuses a malformed destination without writing", async () => {
    expect(await enclave("tokens", "egress", "globex", "pypi.org:443", "10.9.0.0/16")).toMatchObject({
      code: 0,
      out: "tenant globex: egress maximum pypi.org:443 10.9.0.0/16\n",
    });
    expect(readTokenFile(fx.tokensFile).tenants.globex?.egress).toEqual(["pypi.org:443", "10.9.0.0/16"]);
    expect((await enclave("tokens", "list")).out).toMatch(/^tenant globex {2}egress: pypi\.org:443 10\.9\.0\.0\/16$/m);
    const bad = await enclave("tokens", "egress", "globex", "1.2.3.4");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("host `1.2.3.4` is an address: give it as a cidr");
    expect(readTokenFile(fx.tokensFile).tenants.globex?.egress).toEqual(["pypi.org:443", "10.9.0.0/16"]);
    expect(await enclave("tokens", "egress", "globex", "none")).toMatchObject({ code: 0, out: "tenant globex: egress maximum none (no network)\n" });
    expect(readTokenFile(fx.tokensFile).tenants.globex).not.toHaveProperty("egress");
  });
});

describe("enclave conversations egress", () => {
  const enclave = (...args: string[]) =>
    promisify(execFile)(join(repoRoot, "bin", "enclave"), [...args, "--address", fx.server.address], {
      env: { ...process.env, ENCLAVE_TOKEN: fx.tokens.acme },
    }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );

  it("sets a conversation's policy within the maximum, shows it, refuses one past it, and turns it off", async () => {
    await acme.createConversation("from-cli");
    const set = await enclave("conversations", "egress", "from-cli", "pypi.org:443", "a.mirror.example:443");
    expect(set.code, set.err).toBe(0);
    expect(set.out).toMatch(/ {2}egress: pypi\.org:443 a\.mirror\.example:443\n/);
    const past = await enclave("conversations", "egress", "from-cli", "evil.example");
    expect(past.code).not.toBe(0);
    expect(past.err).toContain("egress destination `evil.example` is past tenant `acme`'s operator maximum");
    expect((await enclave("conversations", "egress", "from-cli", "none")).out).not.toContain("egress:");
    expect((await acme.getConversation("from-cli")).egress?.allow).toEqual([]);
  });
});
