// A unix socket file nothing answers on (left by a control plane that was killed) is removed before
// listening; one something answers on, and anything that is not a socket, is left.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeStaleSocket } from "./stale-socket.js";

const dir = mkdtempSync(join(tmpdir(), "enclave-sock-"));

describe("removeStaleSocket", () => {
  it("removes a socket file with no listener", async () => {
    const path = join(dir, "stale.sock");
    // Bound and never listened on, then the process is gone: what a killed server leaves.
    execFileSync("python3", ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", path]);
    expect(existsSync(path)).toBe(true);
    expect(await removeStaleSocket(`unix://${path}`)).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it("leaves a socket something answers on, a regular file and a missing path", async () => {
    const live = join(dir, "live.sock");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(live, resolve));
    expect(await removeStaleSocket(`unix:${live}`)).toBe(false);
    expect(existsSync(live)).toBe(true);
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const file = join(dir, "not-a-socket");
    writeFileSync(file, "keep me");
    expect(await removeStaleSocket(`unix://${file}`)).toBe(false);
    expect(existsSync(file)).toBe(true);
    expect(await removeStaleSocket(`unix://${join(dir, "missing.sock")}`)).toBe(false);
    expect(await removeStaleSocket("127.0.0.1:0")).toBe(false);
  });
});
