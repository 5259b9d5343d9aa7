// Where the operator console listens and whether it asks for an access token: loopback by default
// and open to this machine's users; any other bind requires a token (given, or generated here).
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { EnclaveError } from "../errors.js";
import type { TokenFileAuth } from "../tenants/caller-auth.js";

export const DEFAULT_CONSOLE_LISTEN = "127.0.0.1:7401";

/**
 * The API's tenants as the console sees them: a tenant's token opens it, as long as the token
 * lasts; an operator's sees every tenant's conversations, any other its own tenant's only.
 */
export type ConsoleOperators = Pick<TokenFileAuth, "identify" | "tokenTenant" | "onRevoked">;

export interface ConsoleSettings {
  host: string;
  port: number;
  /** Empty: no token is asked (loopback only). */
  token: string;
  /** True when the token was generated here (so `enclave serve` prints it). */
  tokenGenerated: boolean;
  /** The API's tenants, when it has tokens: an operator's token opens the console. */
  operators?: ConsoleOperators;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

/** host:port, [v6]:port or :port (all interfaces). */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(listen.trim());
  const port = Number(m?.[3]);
  if (!m || port > 65535) {
    throw new EnclaveError("invalid_arguments", `console address \`${listen}\` is not host:port (e.g. ${DEFAULT_CONSOLE_LISTEN}, 0.0.0.0:7401, [::1]:7401)`);
  }
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port };
}

const TOKEN_RE = /^[A-Za-z0-9_.~+/=-]{16,256}$/;

/**
 * listen: --console or ENCLAVE_CONSOLE_LISTEN ("off" turns the console off: returns undefined);
 * token: ENCLAVE_CONSOLE_TOKEN. A token given on loopback is required there too.
 */
export function resolveConsoleSettings(listen: string | undefined, token: string | undefined): ConsoleSettings | undefined {
  const raw = (listen ?? DEFAULT_CONSOLE_LISTEN).trim();
  if (raw === "off" || raw === "none" || raw === "") return undefined;
  const { host, port } = parseListen(raw);
  const given = (token ?? "").trim();
  if (given && !TOKEN_RE.test(given)) {
    throw new EnclaveError("invalid_arguments", "ENCLAVE_CONSOLE_TOKEN must be 16 to 256 characters of letters, digits and _ . ~ + / = -");
  }
  if (given) return { host, port, token: given, tokenGenerated: false };
  if (isLoopbackHost(host)) return { host, port, token: "", tokenGenerated: false };
  return { host, port, token: randomBytes(24).toString("base64url"), tokenGenerated: true };
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The address a person opens: the bound one, or for a wildcard bind (0.0.0.0, ::) this machine's
 * first outward address. Carries the token when one was generated, since nobody else knows it.
 */
export function consoleUrl(s: ConsoleSettings, boundPort: number): string {
  let host = s.host;
  if (host === "0.0.0.0" || host === "::") {
    const outward = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4");
    host = outward?.address ?? "127.0.0.1";
  }
  const base = `http://${urlHost(host)}:${boundPort}/`;
  return s.tokenGenerated ? `${base}?token=${encodeURIComponent(s.token)}` : base;
}
