// Promise: a kernel's Python environment is made in the agent's private state folder, so nothing
// planted beforehand at a path anyone can guess — where agents once made it
// (<tmp>/enclave-kernels-<uid>/<workspace hash>/python-<interpreter hash>), or under other likely
// names — is ever run when a kernel starts, on host placement or in an enclosure. The planted
// environment is a real-looking venv whose .pth file and sitecustomize write a marker when Python
// starts from it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type EvalPlace, evalOk, hostPython } from "../helpers/eval-cases.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

/** Plants an environment at each path the old agent would have used, plus decoys under other guessable names; prints what it made. */
const PLANT = String.raw`
import hashlib, os, shutil, sys
ws, marker, decoys = sys.argv[1], sys.argv[2], sys.argv[3] == "decoys"
tmp = (os.environ.get("TMPDIR") or "/tmp").rstrip("/") or "/"
uid = os.getuid()
h = lambda s: hashlib.sha256(s.encode()).hexdigest()
payload = "import os; open(%r, 'a').write('planted environment ran\\n')\n" % marker
bases = [b for b in [os.environ.get("ENCLAVE_PYTHON"), shutil.which("python3"), "/usr/bin/python3"] if b]
made = []
def plant(venv, base):
    real = os.path.realpath(base)
    os.makedirs(os.path.join(venv, "bin"), exist_ok=True)
    if not os.path.lexists(os.path.join(venv, "bin", "python")):
        os.symlink(real, os.path.join(venv, "bin", "python"))
    with open(os.path.join(venv, "pyvenv.cfg"), "w") as f:
        f.write("home = %s\ninclude-system-site-packages = true\n" % os.path.dirname(real))
    site = os.path.join(venv, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
    os.makedirs(site, exist_ok=True)
    for name in ("zz_planted.pth", "sitecustomize.py"):
        with open(os.path.join(site, name), "w") as f:
            f.write(payload)
    with open(os.path.join(venv, "sitecustomize.py"), "w") as f:
        f.write(payload)
    made.append(venv)
for base in dict.fromkeys(bases):
    plant(os.path.join(tmp, "enclave-kernels-%d" % uid, h(ws)[:16], "python-" + h(base)[:8]), base)
if decoys:
    for name in ["enclave-kernels", "enclave-kernel-%d" % uid, "enclave-kernel", "enclave-agent", "enclave-agent-%d" % uid, "enclave-state"]:
        plant(os.path.join(tmp, name), bases[0])
print("\n".join(made))
`;

let fx: Fixture;
const cleanup: string[] = [];

beforeAll(async () => {
  // The host agents inherit this: the kernel's base interpreter is the Python with the data stack.
  process.env.ENCLAVE_PYTHON = hostPython();
  fx = await startFixture();
});
afterAll(async () => {
  await fx?.close();
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

const PREFIX = "import sys; print(sys.prefix)";

describe("host placement", () => {
  it("never runs an environment planted at a guessable path; its own is private and goes with the agent", async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "kstate-ws-")));
    const scratch = mkdtempSync(join(tmpdir(), "kstate-marker-"));
    cleanup.push(ws, scratch);
    const marker = join(scratch, "planted-ran");
    // Only the old, workspace-keyed path on a shared host /tmp (unique to this workspace); decoys
    // under fixed names are planted in the enclosure, whose /tmp is its own.
    const planted = execFileSync(hostPython(), ["-c", PLANT, ws, marker, "no-decoys"], { encoding: "utf8" }).trim().split("\n");
    cleanup.push(...planted);
    expect(planted.length).toBeGreaterThan(0);
    // The plant works: Python started from it runs the payload.
    execFileSync(join(planted[0] as string, "bin", "python"), ["-c", "pass"]);
    expect(readFileSync(marker, "utf8")).toMatch(/^planted environment ran\n/);
    rmSync(marker);

    const conv = await fx.client.createConversation("kstate-host", ws);
    const place: EvalPlace = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: ws };
    const prefix = (await evalOk(place, { code: PREFIX })).trim();
    expect(existsSync(marker), "a planted environment ran").toBe(false);
    for (const p of planted) expect(prefix === p || prefix.startsWith(`${p}/`)).toBe(false);
    // Its own: the conversation's state folder (mounted into the sandbox at /run/enclave/state; on the
    // host under the data folder), which only the sandbox's account can open.
    const m = /^\/run\/enclave\/state\/kernels\/(python-[0-9a-f]{8})$/.exec(prefix);
    expect(m, prefix).not.toBeNull();
    const stateDir = join(fx.dataDir, "host-state", conv.id);
    const [mode, owner] = execFileSync("stat", ["-c", "%a %u", stateDir], { encoding: "utf8" }).trim().split(" ");
    expect(mode).toBe("700");
    expect(Number(owner)).toBeGreaterThan(0);
    const envOnHost = join(stateDir, "kernels", m?.[1] ?? "");
    expect(existsSync(envOnHost)).toBe(true);

    await fx.cp.hostAgents.stop(conv.id);
    expect(existsSync(envOnHost), "the kernel environment outlived its agent").toBe(false);
  });
});

describe("an enclosure", () => {
  let place: EvalPlace;

  beforeAll(async () => {
    const conv = await fx.client.createConversation("kstate-enc");
    const started = await fx.client.startEnclosure(conv.id);
    expect(started.placement).toBe("enclosure");
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  });

  it("never runs an environment planted at a guessable path before the first kernel starts", async () => {
    const r = await fx.client.callTool(place.runId, "exec", {
      command: `python3 -c '${PLANT.replace(/'/g, `'"'"'`)}' /workspace /workspace/planted-ran decoys`,
    });
    expect(r.isError, resultText(r)).toBe(false);
    const planted = resultText(r)
      .split("\n")
      .filter((l) => l.startsWith("/tmp/"));
    expect(planted.length).toBeGreaterThanOrEqual(7);
    // The plant works in here too (a venv needs no exec on /tmp: its python is a link to the system's).
    const check = await fx.client.callTool(place.runId, "exec", {
      command: `${planted[0]}/bin/python -c pass && cat /workspace/planted-ran && rm /workspace/planted-ran`,
    });
    expect(resultText(check)).toMatch(/^planted environment ran\n/);

    const prefix = (await evalOk(place, { code: PREFIX })).trim();
    expect(existsSync(join(place.workspace, "planted-ran")), "a planted environment ran").toBe(false);
    for (const p of planted) expect(prefix === p || prefix.startsWith(`${p}/`)).toBe(false);
    expect(prefix).toMatch(/^\/tmp\/enclave-agent-[A-Za-z0-9]{10}\/kernels\/python-[0-9a-f]{8}$/);
    // Owned by the agent's own user (the enclosure's uid), readable by no other.
    expect(
      await evalOk(place, { code: "import os, stat; d = sys.prefix + '/../..'; s = os.stat(d); (oct(stat.S_IMODE(s.st_mode)), s.st_uid == os.getuid())" }),
    ).toBe("('0o700', True)");
  });
});
