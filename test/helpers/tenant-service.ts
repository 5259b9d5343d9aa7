// A real control plane in this process serving token tenants through the real gRPC API: over TLS on
// 127.0.0.1 with a throwaway certificate authority (the default), or on a unix socket in its folder.
// The token file is real and stays editable while it runs (addToken, setQuota, revokeTokens).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClientOptions, ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { type ControlPlaneConfig, loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { serveControlPlane, type ServingControlPlane } from "@enclave/control-plane/server/serve.js";
import type { TenantQuotas } from "@enclave/control-plane/tenants/tenant.js";
import { addToken, setQuota } from "@enclave/control-plane/tenants/token-file.js";
import { makeTestCerts, type TestCerts } from "./tls-certs.js";

export interface TenantServiceOptions<T extends string> {
  /** Plain tenants, a token each. */
  tenants: readonly T[];
  /** Operator tenants, a token each. */
  operators?: readonly T[];
  /** Quotas written to the token file before the control plane reads it. */
  quotas?: Partial<Record<T, Partial<TenantQuotas>>>;
  /** Adjusts the loaded configuration before the control plane starts (dir: the service's folder). */
  config?: (config: ControlPlaneConfig, dir: string) => void;
  /** "tls" (default): TCP on 127.0.0.1 with TLS; "unix": a socket in the folder, no TLS. */
  transport?: "tls" | "unix";
  /** The temporary folder's name starts with this. */
  prefix?: string;
}

export interface TenantService<T extends string> {
  /** The temporary folder: certificates, the token file, the data folder (`data`). */
  dir: string;
  tokensFile: string;
  /** The throwaway CA and certificates (made for either transport; the unix socket does not use them). */
  certs: TestCerts;
  config: ControlPlaneConfig;
  /** The control plane and its API now (another one after restart()). */
  readonly cp: ControlPlane;
  readonly server: ServingControlPlane;
  tokens: Record<T, string>;
  /** A client with that tenant's token (closed by close()). */
  client(name: T, more?: Partial<ClientOptions>): ControlPlaneClient;
  /** A client with any token (or none) at any address, trusting the test CA unless more.tls says otherwise (closed by close()). */
  connect(token: string | undefined, more?: Partial<ClientOptions>, address?: string): ControlPlaneClient;
  /**
   * Stops the control plane as a restart does (its clients closed; its conversations and their
   * enclosures kept unless deleteConversations), runs whileDown, and starts it again from the same
   * configuration and folder, on a new port.
   */
  restart(opts: { deleteConversations: boolean; whileDown?: () => Promise<void> }): Promise<void>;
  /** Closes every client it made, the server, every conversation, the control plane; removes the folder. */
  close(): Promise<void>;
}

export async function startTenantService<T extends string>(opts: TenantServiceOptions<T>): Promise<TenantService<T>> {
  const dir = mkdtempSync(join(tmpdir(), opts.prefix ?? "enclave-tenant-service-"));
  const tls = (opts.transport ?? "tls") === "tls";
  const certs = makeTestCerts(dir);
  const tokensFile = join(dir, "tokens.json");
  const tokens = {} as Record<T, string>;
  for (const name of opts.tenants) tokens[name] = addToken(tokensFile, name).token;
  for (const name of opts.operators ?? []) tokens[name] = addToken(tokensFile, name, { operator: true }).token;
  for (const [name, quotas] of Object.entries(opts.quotas ?? {}) as Array<[T, Partial<TenantQuotas>]>) {
    for (const [quota, value] of Object.entries(quotas) as Array<[keyof TenantQuotas, number]>) setQuota(tokensFile, name, quota, value);
  }
  const config = loadConfig({
    dataDir: join(dir, "data"),
    listen: tls ? "127.0.0.1:0" : `unix://${join(dir, "cp.sock")}`,
    api: tls ? { tlsCertFile: certs.serverCertFile, tlsKeyFile: certs.serverKeyFile, tokensFile } : { tokensFile },
  });
  opts.config?.(config, dir);
  let running: { cp: ControlPlane; server: ServingControlPlane } | undefined;
  const clients: ControlPlaneClient[] = [];
  const stop = async (deleteConversations: boolean): Promise<void> => {
    for (const c of clients.splice(0)) c.close();
    const was = running;
    running = undefined;
    if (!was) return;
    await was.server.close();
    if (deleteConversations) for (const c of was.cp.listConversations()) await was.cp.deleteConversation(c.id).catch(() => undefined);
    await was.cp.close();
  };
  const start = async (): Promise<void> => {
    const cp = await ControlPlane.start(config);
    try {
      running = { cp, server: await serveControlPlane(cp, config.listen, config.api) };
    } catch (err) {
      await cp.close();
      throw err;
    }
  };
  const close = async (): Promise<void> => {
    await stop(true);
    rmSync(dir, { recursive: true, force: true });
  };
  const now = (): { cp: ControlPlane; server: ServingControlPlane } => {
    if (!running) throw new Error("the control plane is not running");
    return running;
  };
  try {
    await start();
  } catch (err) {
    await close();
    throw err;
  }
  const connect = (token: string | undefined, more: Partial<ClientOptions> = {}, address = now().server.address): ControlPlaneClient => {
    const c = new ControlPlaneClient(address, { tls: tls ? { rootCerts: certs.ca } : undefined, token, ...more });
    clients.push(c);
    return c;
  };
  return {
    dir,
    tokensFile,
    certs,
    config,
    get cp() {
      return now().cp;
    },
    get server() {
      return now().server;
    },
    tokens,
    connect,
    client: (name, more) => connect(tokens[name], more),
    async restart({ deleteConversations, whileDown }) {
      await stop(deleteConversations);
      await whileDown?.();
      await start();
    },
    close,
  };
}
