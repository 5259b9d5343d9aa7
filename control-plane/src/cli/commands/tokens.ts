// enclave tokens: the token file's tenants, tokens and quotas, edited in place (a running control
// plane watches the file). A new token is printed once; the file keeps only its digest.
import { join, resolve } from "node:path";
import { loadConfig } from "../../config.js";
import { QUOTA_NAMES, type QuotaName, tenantNameProblem, validQuotaValue } from "../../tenants/tenant.js";
import { addToken, quotaValueRule, readTokenFile, revokeTokens, setEgressMaximum, setQuota } from "../../tenants/token-file.js";
import { checkPolicy, type EgressDestination, formatDestination, formatPolicy, parseDestinationText } from "../../egress/egress-policy.js";
import { EnclaveError } from "../../errors.js";
import type { CliOptions } from "../options.js";
import { fail, usage } from "../context.js";
import { say } from "../terminal-text.js";

function tokensFile(opts: CliOptions): string {
  const named = opts["tokens-file"] ?? process.env.ENCLAVE_TOKENS_FILE;
  if (named) return resolve(named);
  return join(loadConfig({ dataDir: opts["data-dir"] }).dataDir, "tokens.json");
}

export function tokensCommand({ sub, rest, opts }: { sub: string; rest: string[]; opts: CliOptions }): void {
  const file = tokensFile(opts);
  if (sub === "add") {
    const [tenant = ""] = rest;
    const problem = tenantNameProblem(tenant);
    if (problem) usage(`usage: enclave tokens add TENANT: the tenant name ${problem}`);
    const { id, token } = addToken(file, tenant, { operator: opts.operator, label: opts.label });
    say(`${token}\n`);
    process.stderr.write(`token ${id} added for tenant ${tenant}${opts.operator ? " (operator)" : ""} in ${file}; it is shown only now\n`);
    return;
  }
  if (sub === "revoke") {
    const [id = ""] = rest;
    const removed = opts.all ? revokeTokens(file, { tenant: id }) : revokeTokens(file, { id });
    if (removed === 0) fail(`no token ${opts.all ? `of tenant \`${id}\`` : `\`${id}\``} in ${file}; \`enclave tokens list\` shows them`);
    say(`revoked ${removed} token${removed === 1 ? "" : "s"}`);
    return;
  }
  if (sub === "list" || sub === "") {
    const contents = readTokenFile(file);
    say(`token file: ${file}`);
    for (const [name, t] of Object.entries(contents.tenants)) {
      const quotas = Object.entries(t.quotas ?? {})
        .map(([q, n]) => `${q}=${n}`)
        .join(" ");
      say(`tenant ${name}${t.operator ? " (operator)" : ""}${quotas ? `  quotas: ${quotas}` : ""}${t.egress?.length ? `  egress: ${t.egress.join(" ")}` : ""}`);
      for (const k of contents.tokens.filter((x) => x.tenant === name)) {
        say(`  ${k.id}  added ${new Date(k.createdAtMs).toISOString()}${k.label ? `  ${k.label}` : ""}`);
      }
    }
    return;
  }
  if (sub === "quota") {
    const [tenant = "", name = "", value = ""] = rest;
    if (!(QUOTA_NAMES as readonly string[]).includes(name)) usage(`usage: enclave tokens quota TENANT NAME N|default, NAME one of ${QUOTA_NAMES.join(", ")}`);
    const n = value === "default" ? undefined : Number(value);
    if (n !== undefined && !validQuotaValue(name as QuotaName, n)) usage(`quota value \`${value}\` ${quotaValueRule(name as QuotaName)}, or default`);
    setQuota(file, tenant, name as QuotaName, n);
    say(`tenant ${tenant}: ${name} ${n === undefined ? "back to the default" : `= ${n}`}`);
    return;
  }
  if (sub === "egress") {
    // The operator's egress maximum: what a conversation of the tenant may allow, no more.
    const [tenant = "", ...given] = rest;
    if (!tenant || given.length === 0)
      usage("usage: enclave tokens egress TENANT (DESTINATION... | none), DESTINATION HOST[:PORTS], *.DOMAIN[:PORTS] or CIDR[:PORTS]");
    let destinations: EgressDestination[] = [];
    try {
      if (!(given.length === 1 && given[0] === "none"))
        destinations = checkPolicy(
          given.map((d) => parseDestinationText(d, "destination")),
          "egress maximum",
        );
    } catch (err) {
      if (err instanceof EnclaveError) usage(err.message);
      throw err;
    }
    setEgressMaximum(file, tenant, destinations, formatDestination);
    say(`tenant ${tenant}: egress maximum ${formatPolicy(destinations)}`);
    return;
  }
  usage(`unknown tokens command \`${sub}\`; add, revoke, list, quota or egress`);
}
