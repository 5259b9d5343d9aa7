// ForkConversation's round trip: a host workspace of many small files and a few large ones against
// `cp -a` of the same tree (the same bytes copied by coreutils, no checks), and a fork of a conversation
// with an enclosure against a cold CreateConversation + StartEnclosure of the same options (what the
// fork saves an agent that wants a second branch, minus the files). ENCLAVE_BENCH_FORKS (default 10)
// forks each.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, interleaved, row, time } from "./measure.js";

const SMALL_FILES = 2000;
const SMALL_BYTES = 4096;
const LARGE_FILES = 4;
const LARGE_BYTES = 8 * 1024 * 1024;

function fillTree(dir: string): void {
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(dir, `d${d}`), { recursive: true });
    for (let i = 0; i < SMALL_FILES / 20; i++) writeFileSync(join(dir, `d${d}`, `f${i}.txt`), Buffer.alloc(SMALL_BYTES, 97 + (i % 26)));
  }
  for (let i = 0; i < LARGE_FILES; i++) writeFileSync(join(dir, `large${i}.bin`), Buffer.alloc(LARGE_BYTES, i + 1));
}

export async function forkRows(): Promise<BenchRow[]> {
  const n = Number(process.env.ENCLAVE_BENCH_FORKS || 10);
  const mib = (SMALL_FILES * SMALL_BYTES + LARGE_FILES * LARGE_BYTES) / 1024 ** 2;
  const tree = `${SMALL_FILES + LARGE_FILES} files, ${mib} MiB`;
  const fx = await startFixture();
  const scratch = mkdtempSync(join(tmpdir(), "enclave-fork-bench-"));
  try {
    fillTree((await fx.client.createConversation("fb-src")).workspacePath);
    const src = fx.cp.getConversation("fb-src").workspacePath;
    let i = 0;
    let j = 0;
    const host = await interleaved(
      n,
      2,
      {
        fork: async () => {
          const id = `fb-${i++}`;
          await fx.client.forkConversation("fb-src", id);
          await fx.client.deleteConversation(id);
        },
        cp: async () => {
          const to = join(scratch, `cp-${j++}`);
          execFileSync("cp", ["-a", "--", src, to]);
          rmSync(to, { recursive: true, force: true });
        },
      },
      1,
    );
    const rows = [
      row(`fork, host placement (${tree}; delete included)`, host.fork, { name: "cp -a of the same tree (rm included)", samples: host.cp }, { digits: 0 }),
    ];

    for (const workspaceMode of ["bind", "copy"] as const) {
      const source = `fe-src-${workspaceMode}`;
      await fx.client.createConversation(source);
      writeFileSync(join(fx.cp.getConversation(source).workspacePath, "a.txt"), "a\n");
      await fx.client.startEnclosure(source, { runtime: "runc", workspaceMode });
      const forks: number[] = [];
      const colds: number[] = [];
      // One warm-up of each, untimed; each sample's conversations deleted untimed before the next (a
      // stop in copy mode would copy back, which is not the fork's cost; deleting skips that).
      for (let k = -1; k < n; k++) {
        const [fork, cold] = [`fe-${workspaceMode}-${k + 1}`, `fc-${workspaceMode}-${k + 1}`];
        const tf = await time(() => fx.client.forkConversation(source, fork));
        const tc = await time(async () => {
          await fx.client.createConversation(cold);
          await fx.client.startEnclosure(cold, { runtime: "runc", workspaceMode });
        });
        if (k >= 0) forks.push(tf);
        if (k >= 0) colds.push(tc);
        await fx.client.deleteConversation(fork);
        await fx.client.deleteConversation(cold);
      }
      rows.push(
        row(
          `fork of a conversation with a runc enclosure, ${workspaceMode} mode (ForkConversation: copy + new enclosure)`,
          forks,
          { name: "CreateConversation + StartEnclosure of the same options, cold", samples: colds },
          { digits: 0, note: "memory is not forked: the fork's kernels start fresh" },
        ),
      );
    }
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await fx.close();
  }
}
