// multiprocessing in a cell, on host placement and in an enclosure under every runtime in
// ENCLAVE_TEST_RUNTIMES: pools, queues and locks (POSIX semaphores) and shared_memory, all of which
// need a writable /dev/shm; that /dev/shm is bounded by the limits table and is each sandbox's own.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { type EvalPlace, evalOk, hostPython } from "../helpers/eval-cases.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";

const MEMORY = 1024 * 1024 ** 2;

type Placement = "host" | (typeof TEST_RUNTIMES)[number];

async function openPlace(fx: Fixture, id: string, placement: Placement): Promise<EvalPlace> {
  const conv =
    placement === "host"
      ? await fx.client.createConversation(id, mkdtempSync(join(tmpdir(), "enclave-mp-ws-")))
      : await fx.client.createConversation(id).then(async (c) => {
          const started = await fx.client.startEnclosure(id, { runtime: placement, memoryBytes: MEMORY });
          expect(started.placement).toBe("enclosure");
          return c;
        });
  return { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
}

describe.each<Placement>(["host", ...TEST_RUNTIMES])("multiprocessing in a cell (%s)", (placement) => {
  let fx: Fixture;
  let one: EvalPlace;
  let other: EvalPlace;

  beforeAll(async () => {
    // The host agents inherit this: the kernel's base interpreter is the Python with the data stack.
    process.env.ENCLAVE_PYTHON = hostPython();
    fx = await startFixture();
    one = await openPlace(fx, `mp-${placement}-one`, placement);
    other = await openPlace(fx, `mp-${placement}-other`, placement);
  });
  afterAll(async () => fx?.close());

  it("maps over a Pool as Jupyter does", async () => {
    const code = "from multiprocessing import Pool\ndef f(x):\n    return x * x\nwith Pool(2) as pool:\n    squares = pool.map(f, range(5))\nsquares";
    expect(await evalOk(one, { code })).toBe("[0, 1, 4, 9, 16]");
  });

  it("passes items through a Queue under a Lock between processes", async () => {
    const code = [
      "from multiprocessing import Lock, Process, Queue",
      "q, lock = Queue(), Lock()",
      "def put(i):",
      "    with lock:",
      "        q.put(i * 10)",
      "ps = [Process(target=put, args=(i,)) for i in range(3)]",
      "for p in ps: p.start()",
      "for p in ps: p.join()",
      "(sorted(q.get(timeout=30) for _ in ps), [p.exitcode for p in ps])",
    ].join("\n");
    expect(await evalOk(one, { code })).toBe("([0, 10, 20], [0, 0, 0])");
  });

  it("shares memory between processes with multiprocessing.shared_memory", async () => {
    const code = [
      "from multiprocessing import Process, shared_memory",
      "shm = shared_memory.SharedMemory(create=True, size=16)",
      "def fill(name):",
      "    s = shared_memory.SharedMemory(name=name)",
      "    s.buf[:5] = b'hello'",
      "    s.close()",
      "p = Process(target=fill, args=(shm.name,))",
      "p.start(); p.join()",
      "seen = bytes(shm.buf[:5])",
      "shm.close(); shm.unlink()",
      "seen",
    ].join("\n");
    expect(await evalOk(one, { code })).toBe("b'hello'");
  });

  it("bounds /dev/shm by the limits table: writing past it fails with ENOSPC", async () => {
    const code = [
      "import errno, os",
      "st = os.statvfs('/dev/shm')",
      "size = st.f_blocks * st.f_frsize",
      "path = '/dev/shm/enclave-fill'",
      "try:",
      "    with open(path, 'wb') as f:",
      "        for _ in range(size // 2**20 + 8):",
      "            f.write(b'\\1' * 2**20)",
      "            f.flush()",
      "    outcome = 'wrote past the bound'",
      "except OSError as e:",
      "    outcome = errno.errorcode.get(e.errno, str(e.errno))",
      "finally:",
      "    if os.path.exists(path): os.remove(path)",
      "(size, outcome)",
    ].join("\n");
    expect(await evalOk(one, { code })).toBe(`(${LIMITS.sandboxShmBytes}, 'ENOSPC')`);
  });

  it("gives each conversation its own /dev/shm: neither sees the other's", async () => {
    const make =
      "from multiprocessing import shared_memory\nkept = shared_memory.SharedMemory(create=True, size=8, name='enclave-isolation')\nsorted(os.listdir('/dev/shm'))";
    expect(await evalOk(one, { code: `import os\n${make}` })).toBe("['enclave-isolation']");
    const look = [
      "import os",
      "from multiprocessing import shared_memory",
      "try:",
      "    shared_memory.SharedMemory(name='enclave-isolation')",
      "    found = 'found'",
      "except FileNotFoundError:",
      "    found = 'absent'",
      "(found, sorted(os.listdir('/dev/shm')))",
    ].join("\n");
    expect(await evalOk(other, { code: look })).toBe("('absent', [])");
    expect(await evalOk(one, { code: "kept.close(); kept.unlink(); sorted(os.listdir('/dev/shm'))" })).toBe("[]");
  });
});
