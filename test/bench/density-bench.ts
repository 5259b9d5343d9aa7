// Density, measured: N enclosures started for real (ENCLAVE_BENCH_DENSITY_N, default 100), each with a
// warm Python kernel that answers a cell, measured by the memory cgroup's charge (usage less
// reclaimable page cache, as `docker stats` shows it) and by PSS (each process's proportional share,
// from /proc/PID/smaps_rollup, summed over the container's processes: shared pages are split among
// the containers that map them, so the sum over all containers is what they take together). Beside
// them, N idle warm Jupyter kernels started the same way: each in a container of the same image (with
// ipykernel added, `enclave-bench-jupyter`), the same hardening flags and limits, warmed by one cell.
// What one idle enclosure costs before any kernel starts (what a warm-pool member holds) is measured
// on the way. Fits are by the median, in 24 GiB (the target's machine) and in what this machine has
// available at the start.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import Docker from "dockerode";
import { resultText } from "@enclave/client/control-plane-client.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, figures, row } from "./measure.js";

const MiB = 1024 ** 2;
const GiB24 = 24 * 1024; // MiB
const count = (name: string, fallback: number): number => Number(process.env[name] || fallback);

function availableMiB(): number {
  const kb = Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

/** The container's memory cgroup folder (cgroup v1 with the cgroupfs driver, or v2). */
function cgroupDir(id: string): string {
  for (const dir of [`/sys/fs/cgroup/memory/docker/${id}`, `/sys/fs/cgroup/system.slice/docker-${id}.scope`, `/sys/fs/cgroup/docker/${id}`]) {
    if (existsSync(dir)) return dir;
  }
  throw new Error(`no memory cgroup found for container ${id.slice(0, 12)}`);
}

/** The cgroup's charge less its reclaimable file cache, in MiB. */
function chargeMiB(id: string): number {
  const dir = cgroupDir(id);
  const stat = Object.fromEntries(
    readFileSync(`${dir}/memory.stat`, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" ") as [string, string]),
  );
  const v1 = existsSync(`${dir}/memory.usage_in_bytes`);
  const usage = Number(readFileSync(v1 ? `${dir}/memory.usage_in_bytes` : `${dir}/memory.current`, "utf8"));
  const inactive = Number(stat.total_inactive_file ?? stat.inactive_file ?? 0);
  return (usage - inactive) / MiB;
}

/** PSS of every process in the container's cgroup, summed, in MiB. */
function pssMiB(id: string): number {
  let kb = 0;
  for (const pid of readFileSync(`${cgroupDir(id)}/cgroup.procs`, "utf8")
    .split("\n")
    .filter(Boolean)) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
    } catch {
      // The process ended meanwhile.
    }
  }
  return kb / 1024;
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 3_000));

interface Measured {
  charge: number[];
  pss: number[];
}

function measure(ids: string[]): Measured {
  return { charge: ids.map(chargeMiB), pss: ids.map(pssMiB) };
}

async function ourEnclosures(n: number): Promise<{ idle: Measured; warm: Measured }> {
  const fx = await startFixture();
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      await fx.client.createConversation(`dense${i}`);
      ids.push((await fx.client.startEnclosure(`dense${i}`)).enclosure?.containerId ?? "");
    }
    await settle();
    const idle = measure(ids);
    for (let i = 0; i < n; i++) {
      const run = (await fx.client.openRun(`dense${i}`, { approvalPolicy: "never", resources: ["kernel"] })).id;
      const r = await fx.client.callTool(run, "eval", { description: "warm the kernel for the density figure", code: "x = 1\nx + 1" });
      if (r.isError || !resultText(r).includes("2")) throw new Error(`enclosure ${i}'s kernel did not answer its cell: ${resultText(r)}`);
    }
    await settle();
    return { idle, warm: measure(ids) };
  } finally {
    await fx.close();
  }
}

const PEER_DOCKERFILE = `FROM ${imageTags().runtime}
USER root
RUN apt-get update && apt-get install -y --no-install-recommends python3-ipykernel python3-jupyter-client && rm -rf /var/lib/apt/lists/*
USER 1000:1000
`;

/** The runtime image with ipykernel added, built once per runtime image. */
function peerImage(): string {
  const tag = `enclave-bench-jupyter:${imageTags().runtime.split(":")[1] ?? "latest"}`;
  if (spawnSync("docker", ["image", "inspect", tag], { stdio: "ignore" }).status === 0) return tag;
  execFileSync("docker", ["build", "-q", "-t", tag, "-"], { input: PEER_DOCKERFILE, stdio: ["pipe", "ignore", "inherit"], timeout: 900_000 });
  return tag;
}

// Started as the container's command: writes a connection file, then becomes the kernel.
const KERNEL_CMD = `import json, os
json.dump({"shell_port": 50001, "iopub_port": 50002, "stdin_port": 50003, "control_port": 50004, "hb_port": 50005, "ip": "127.0.0.1", "key": os.urandom(16).hex(), "transport": "tcp", "signature_scheme": "hmac-sha256", "kernel_name": "python3"}, open("/tmp/k.json", "w"))
os.execvp("python3", ["python3", "-m", "ipykernel_launcher", "-f", "/tmp/k.json"])`;

// Run by docker exec inside: one cell through jupyter_client, as a Jupyter front end would (the
// kernel may still be starting: its heartbeat is waited for, boundedly).
const CELL_CMD = `import os, time
from jupyter_client import BlockingKernelClient
deadline = time.time() + 180
while True:
    try:
        while not os.path.exists("/tmp/k.json"): time.sleep(0.2)
        c = BlockingKernelClient(connection_file="/tmp/k.json"); c.load_connection_file(); c.start_channels(); c.wait_for_ready(timeout=30)
        break
    except RuntimeError:
        c.stop_channels()
        if time.time() > deadline: raise
        time.sleep(0.5)
r = c.execute_interactive("x = 1\\nx + 1", timeout=120, output_hook=lambda m: None)
assert r["content"]["status"] == "ok", r
print("ok")`;

async function jupyterPeers(n: number): Promise<Measured> {
  const docker = new Docker();
  const image = peerImage();
  const containers: Docker.Container[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const c = await docker.createContainer({
        name: `enclave-bench-jupyter-${process.pid}-${i}`,
        Image: image,
        Entrypoint: ["python3", "-c", KERNEL_CMD],
        User: "1000:1000",
        Env: ["HOME=/home/enclave", "MPLBACKEND=Agg", "PYTHONUNBUFFERED=1", "PYDEVD_DISABLE_FILE_VALIDATION=1"],
        Labels: { "org.enclave.bench": "density-peer" },
        NetworkDisabled: true,
        HostConfig: {
          NetworkMode: "none",
          CapDrop: ["ALL"],
          SecurityOpt: ["no-new-privileges:true"],
          ReadonlyRootfs: true,
          Tmpfs: { "/tmp": "rw,nosuid,nodev,size=536870912", "/home/enclave": "rw,nosuid,nodev,size=268435456,uid=1000,gid=1000,mode=0700" },
          Memory: 2 * 1024 ** 3,
          MemorySwap: 2 * 1024 ** 3,
          NanoCpus: 1e9,
          PidsLimit: 512,
          Init: true,
        },
      });
      containers.push(c);
      await c.start();
    }
    for (const c of containers) {
      const out = execFileSync("docker", ["exec", c.id, "python3", "-c", CELL_CMD], { encoding: "utf8", timeout: 180_000 });
      if (!out.includes("ok")) throw new Error(`Jupyter kernel in ${c.id.slice(0, 12)} did not answer its cell: ${out}`);
    }
    await settle();
    return measure(containers.map((c) => c.id));
  } finally {
    await Promise.all(containers.map((c) => c.remove({ force: true }).catch(() => undefined)));
  }
}

export async function densityRows(): Promise<BenchRow[]> {
  const n = count("ENCLAVE_BENCH_DENSITY_N", 100);
  const available = availableMiB();
  const ours = await ourEnclosures(n);
  const peer = await jupyterPeers(n);
  const fit = (mib: number, samples: number[]): number => Math.floor(mib / figures(samples).median);
  const note = `${n} started of each; fits by the median, ${(available / 1024).toFixed(1)} GiB available here at the start`;
  const peerName = `idle warm Jupyter kernel in a container, same image and flags`;
  return [
    row(`memory per idle enclosure, no kernel yet (a warm-pool member), cgroup charge`, ours.idle.charge, undefined, { unit: "MiB", digits: 1 }),
    row(`memory per idle enclosure, no kernel yet (a warm-pool member), PSS`, ours.idle.pss, undefined, { unit: "MiB", digits: 1 }),
    row(
      `memory per idle enclosure with a warm Python kernel, cgroup charge`,
      ours.warm.charge,
      { name: peerName, samples: peer.charge },
      { unit: "MiB", digits: 1 },
    ),
    row(`memory per idle enclosure with a warm Python kernel, PSS`, ours.warm.pss, { name: peerName, samples: peer.pss }, { unit: "MiB", digits: 1 }),
    row(
      `idle enclosures with a warm Python kernel that fit in 24 GiB, by cgroup charge`,
      [fit(GiB24, ours.warm.charge)],
      { name: "Jupyter kernels in containers", samples: [fit(GiB24, peer.charge)] },
      { unit: "count", digits: 0, note },
    ),
    row(
      `idle enclosures with a warm Python kernel that fit in 24 GiB, by PSS`,
      [fit(GiB24, ours.warm.pss)],
      { name: "Jupyter kernels in containers", samples: [fit(GiB24, peer.pss)] },
      { unit: "count", digits: 0, note },
    ),
    row(
      `idle enclosures with a warm Python kernel that fit in this machine's available memory, by PSS`,
      [fit(available, ours.warm.pss)],
      { name: "Jupyter kernels in containers", samples: [fit(available, peer.pss)] },
      { unit: "count", digits: 0, note },
    ),
  ];
}
