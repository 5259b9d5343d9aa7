// How the gRPC API guards itself: TLS from a certificate and key (and, given a CA, client
// certificates required), and bearer tokens from a token file. On loopback or a unix socket neither
// is needed (the zero-set-up `make run`); on any other address both are, unless the operator weakens
// it on purpose (allowInsecureRemote), which the start-up line and the audit log then say.
import { readFileSync } from "node:fs";
import { ServerCredentials } from "@grpc/grpc-js";
import { EnclaveError } from "../errors.js";
import { type ApiSecurityConfig } from "../tenants/api-security-config.js";
import { type CallerAuth, implicitAuth, TokenFileAuth } from "../tenants/caller-auth.js";

export { type ApiSecurityConfig, NO_API_SECURITY } from "../tenants/api-security-config.js";

export interface ApiSecurity {
  credentials: ServerCredentials;
  auth: CallerAuth;
  /** One line for the start-up message and the audit log. */
  summary: string;
  /** True when a non-loopback address is served without TLS or tokens by explicit choice. */
  weakened: boolean;
  tls: boolean;
}

/** Whether the listen address is reachable from this machine only (a unix socket or a loopback address). */
export function isLocalListen(listen: string): boolean {
  if (listen.startsWith("unix:")) return true;
  const host = (/^\[([^\]]+)\](?::\d+)?$/.exec(listen)?.[1] ?? listen.replace(/:\d+$/, "")).toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

function readPem(what: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new EnclaveError("invalid_arguments", `cannot read the ${what} ${file}: ${(err as Error).message}`);
  }
}

export function resolveApiSecurity(listen: string, config: ApiSecurityConfig): ApiSecurity {
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) {
    throw new EnclaveError("invalid_arguments", "TLS needs both a certificate and its key (--tls-cert and --tls-key, or ENCLAVE_TLS_CERT and ENCLAVE_TLS_KEY)");
  }
  if (config.tlsClientCaFile && !config.tlsCertFile) {
    throw new EnclaveError("invalid_arguments", "client certificates (--tls-client-ca) need TLS: give --tls-cert and --tls-key too");
  }
  const tls = Boolean(config.tlsCertFile);
  const tokens = Boolean(config.tokensFile);
  const local = isLocalListen(listen);
  const missing = [tls ? "" : "TLS", tokens ? "" : "bearer tokens"].filter(Boolean);
  if (!local && missing.length && !config.allowInsecureRemote) {
    throw new EnclaveError(
      "failed_precondition",
      `refusing to listen on ${listen}, which is not a loopback address, without ${missing.join(" and ")}; give --tls-cert and --tls-key, and --tokens-file (\`enclave tokens add TENANT\` makes one), listen on 127.0.0.1, or accept the risk with --insecure-remote (ENCLAVE_INSECURE_REMOTE=on)`,
    );
  }
  const credentials = tls
    ? ServerCredentials.createSsl(
        config.tlsClientCaFile ? readPem("client CA", config.tlsClientCaFile) : null,
        [{ cert_chain: readPem("TLS certificate", config.tlsCertFile), private_key: readPem("TLS key", config.tlsKeyFile) }],
        Boolean(config.tlsClientCaFile),
      )
    : ServerCredentials.createInsecure();
  const auth = tokens ? new TokenFileAuth(config.tokensFile) : implicitAuth();
  const weakened = !local && missing.length > 0;
  const summary = [
    tls ? `TLS${config.tlsClientCaFile ? " with client certificates required" : ""}` : "no TLS",
    tokens ? `bearer tokens from ${config.tokensFile}` : "no tokens (every caller is tenant local)",
    ...(weakened ? [`WEAKENED by --insecure-remote: ${listen} is not loopback and has no ${missing.join(" and no ")}`] : []),
  ].join("; ");
  return { credentials, auth, summary, weakened, tls };
}
