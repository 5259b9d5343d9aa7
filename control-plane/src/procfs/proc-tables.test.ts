// The egress audit's parsers of kernel tables, and the runsc registration check, on fixed text (the
// real reads are proven end to end in test/security/egress-audit.test.ts).
import type Docker from "dockerode";
import { expect, it } from "vitest";
import { parseGvisorTables, readerUid, splitHeadOutput } from "../placement/gvisor-view.js";
import { capsWithin, engineSocketMounts, idInside, listeningIn, parseIdMap, parseMountinfo } from "./proc-tables.js";
import { runscRegistration, wrappedRunsc } from "../placement/gvisor-runtime.js";
import { join } from "node:path";
import { repoRoot } from "../repo-paths.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { rejected, thrown, TranscriptLog } from "@enclave/test-kit/transcript-log.js";

it("reads listening TCP and bound UDP sockets, not connections", () => {
  const tcp = [
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
    "   0: 0100007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1",
    "   1: 0100007F:9C40 0100007F:223D 01 00000000:00000000 00:00000000 00000000  1000        0 2 1",
  ].join("\n");
  expect(listeningIn("tcp", tcp)).toEqual(["tcp 127.0.0.1:8765"]);
  expect(listeningIn("udp", "  sl  local_address\n   5: 00000000:0035 00000000:0000 07 0 0\n")).toEqual(["udp 0.0.0.0:53"]);
});

it("parses a mount table without opening what it names, and spots an engine socket however it is mounted", () => {
  const mounts = parseMountinfo(
    [
      "600 500 0:50 / / ro,relatime master:1 - overlay overlay rw,lowerdir=/x",
      "601 600 0:51 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=1024k",
      "602 600 8:1 /var/lib/docker/vol /my\\040data rw - ext4 /dev/sda1 rw",
      "603 600 0:24 /docker.sock /var/run/docker.sock rw - tmpfs tmpfs rw",
      "604 600 0:24 /run /hostrun rw - tmpfs tmpfs rw",
    ].join("\n"),
  );
  expect(mounts.map((m) => [m.mountPoint, m.fsType, m.options[0]])).toEqual([
    ["/", "overlay", "ro"],
    ["/tmp", "tmpfs", "rw"],
    ["/my data", "ext4", "rw"],
    ["/var/run/docker.sock", "tmpfs", "rw"],
    ["/hostrun", "tmpfs", "rw"],
  ]);
  expect(engineSocketMounts(mounts)).toEqual(["/var/run/docker.sock (from /docker.sock)", "/hostrun (from /run)"]);
  expect(engineSocketMounts([{ root: "/srv/ws", mountPoint: "/workspace" }])).toEqual([]);
});

it("maps ids through a user namespace and checks capability sets against an allowance", () => {
  const map = parseIdMap("     65534      65534          1\n");
  expect(idInside(65534, map)).toBe(65534);
  expect(idInside(0, map)).toBe(-1);
  expect(idInside(101000, parseIdMap("0 100000 65536"))).toBe(1000);
  expect(capsWithin("000000000004001f", 0x4001fn)).toBe(true);
  expect(capsWithin("0000000000200000", 0x4001fn)).toBe(false);
  expect(capsWithin("not hex", 0x4001fn)).toBe(false);
});

it("reads gVisor's tables from one head of many files, every process's network namespace, leaving the reader out", async () => {
  const netDev = ["Inter-|   Receive", " face |bytes", "    lo:       0       0"];
  const tcpHeader = "  sl  local_address rem_address   st";
  const out = [
    "reader 7 nproc 256",
    "==> /proc/self/mountinfo <==",
    "8 8 0:8 / / ro  - 9p none ro,trans=fd",
    "11 8 0:10 / /tmp rw,noexec  - tmpfs none rw",
    "",
    "==> /proc/1/status <==",
    "Name:\tnode",
    "Uid:\t1000\t1000\t1000\t1000",
    "Gid:\t1000\t1000\t1000\t1000",
    "CapEff:\t0000000000000000",
    "Seccomp:\t0",
    "",
    "==> /proc/7/status <==",
    "Name:\thead",
    "Uid:\t65534\t65534\t65534\t65534",
    "",
    "==> /proc/1/net/dev <==",
    ...netDev,
    "",
    "==> /proc/7/net/dev <==",
    ...netDev,
    "",
    "==> /proc/1/net/tcp <==",
    tcpHeader,
    "",
    // A process in a network namespace of its own, listening there: seen through its own tables.
    "==> /proc/7/net/tcp <==",
    tcpHeader,
    "   0: 0100007F:223E 00000000:0000 0A 0",
    "",
  ].join("\n");
  expect([...splitHeadOutput(out).keys()]).toEqual([
    "/proc/self/mountinfo",
    "/proc/1/status",
    "/proc/7/status",
    "/proc/1/net/dev",
    "/proc/7/net/dev",
    "/proc/1/net/tcp",
    "/proc/7/net/tcp",
  ]);
  const view = parseGvisorTables(out, 65534);
  expect(view.nprocHard).toBe(256);
  expect(view.interfaces).toEqual(["lo"]);
  expect(view.listening).toEqual(["tcp 127.0.0.1:8766"]);
  expect(view.processes).toEqual([
    { pid: 1, name: "node", uids: [1000, 1000, 1000, 1000], gids: [1000, 1000, 1000, 1000], capEff: "0000000000000000", capPrm: "", capBnd: "", seccomp: 0 },
  ]);
  expect(view.mounts.map((m) => m.mountPoint)).toEqual(["/", "/tmp"]);
  await expectTranscript(
    thrown(() => parseGvisorTables("reader 3 nproc unlimited\n", 65534)),
    "transcripts/egress-audit-tables/printed-no-tables.txt",
  );
  expect(readerUid(1000)).toBe(65534);
  expect(readerUid(65534)).toBe(65533);
});

it("says how to register runsc when the engine has none, or lacks a flag it needs", async () => {
  const engine = (runtimes: Record<string, unknown>): Docker => ({ info: async () => ({ Runtimes: runtimes }) }) as unknown as Docker;
  // Both are placement_unavailable: what tells them apart is what the text says to do, recorded whole.
  const log = new TranscriptLog();
  log.add("no runsc registered", await rejected(runscRegistration(engine({ runc: { path: "runc" } }))));
  log.add("runsc without --network=none", await rejected(runscRegistration(engine({ runsc: { path: "/usr/bin/runsc" } }))));
  await log.expect("transcripts/egress-audit-tables/runsc-registration.txt");
  const args = ["--network=none", "--platform=ptrace"];
  await expect(runscRegistration(engine({ runsc: { path: "/usr/bin/runsc", runtimeArgs: args } }))).resolves.toEqual({
    path: "/usr/bin/runsc",
    runtimeArgs: args,
    binary: "/usr/bin/runsc",
  });
  // Registered through our wrapper, the binary that runs is the one the wrapper names.
  const wrapper = join(repoRoot, "images", "runsc-for-docker.sh");
  expect(wrappedRunsc(wrapper)).toBe("/usr/bin/runsc");
  await expect(runscRegistration(engine({ runsc: { path: wrapper, runtimeArgs: args } }))).resolves.toMatchObject({ binary: "/usr/bin/runsc" });
  // Any other file is taken as the binary itself.
  expect(wrappedRunsc(join(repoRoot, "Makefile"))).toBeUndefined();
});
