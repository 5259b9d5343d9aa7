// How the command line reaches a guarded control plane: its bearer token and TLS settings, from
// options over the environment.
import { readFileSync } from "node:fs";
import type { ClientOptions } from "@enclave/client/control-plane-client.js";
import type { CliOptions } from "./options.js";

function pem(what: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read the ${what} ${file}: ${(err as Error).message}`);
  }
}

export function clientOptions(opts: CliOptions): ClientOptions {
  const ca = opts["tls-ca"] ?? process.env.ENCLAVE_TLS_CA;
  const cert = opts["tls-cert"] ?? process.env.ENCLAVE_TLS_CLIENT_CERT;
  const key = opts["tls-key"] ?? process.env.ENCLAVE_TLS_CLIENT_KEY;
  const serverName = opts["tls-server-name"] ?? process.env.ENCLAVE_TLS_SERVER_NAME;
  const tls: ClientOptions["tls"] =
    ca || cert || serverName
      ? {
          rootCerts: ca ? pem("CA", ca) : undefined,
          certChain: cert ? pem("client certificate", cert) : undefined,
          privateKey: key ? pem("client key", key) : undefined,
          serverNameOverride: serverName,
        }
      : undefined;
  return { tls, token: opts.token ?? process.env.ENCLAVE_TOKEN };
}
