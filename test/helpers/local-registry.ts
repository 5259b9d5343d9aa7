// A real container registry for a test: Debian's docker-registry (distribution 2.8) on loopback with
// a temporary config and storage folder, run as nobody when the tests run as root, stopped by close().
// Docker pushes to a loopback registry without TLS.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "./wait.js";

export interface LocalRegistry {
  /** 127.0.0.1:PORT */
  address: string;
  close(): Promise<void>;
}

const NOBODY = 65534;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), "enclave-registry-"));
  chmodSync(dir, 0o755);
  const data = join(dir, "data");
  mkdirSync(data);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(data, NOBODY, NOBODY);
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const config = join(dir, "config.yml");
  writeFileSync(
    config,
    ["version: 0.1", "log: {level: warn}", `storage: {filesystem: {rootdirectory: ${data}}, delete: {enabled: true}}`, `http: {addr: ${address}}`, ""].join(
      "\n",
    ),
  );
  const argv = asRoot
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "docker-registry", "serve", config]
    : ["docker-registry", "serve", config];
  const child: ChildProcess = spawn(argv[0] ?? "", argv.slice(1), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  child.stdout?.on("data", (d: Buffer) => log.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => log.push(d.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  const close = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
      if (!exited) child.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (exited) throw new Error(`docker-registry exited: ${log.join("").slice(-2000)}`);
        const res = await fetch(`http://${address}/v2/`).catch(() => undefined);
        return res?.status === 200;
      },
      `docker-registry answering on ${address}`,
      20_000,
    );
  } catch (err) {
    await close();
    throw err;
  }
  return { address, close };
}
