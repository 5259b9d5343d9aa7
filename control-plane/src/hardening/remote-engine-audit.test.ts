// The audit's verdicts on a remote engine: the engine's settings can fail an item, never pass one.
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import type { AuditCheck } from "./audit-check.js";
import { ENCLOSURE_CHECKS } from "./checks/table.js";
import { judgeOnRemoteEngine } from "./remote-engine-audit.js";
import type { EnclosureRecord } from "../model/conversation.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

const record: EnclosureRecord = {
  containerId: "c0ffee",
  image: "img",
  startedAtMs: 0,
  limits: { memoryBytes: 1 << 30, cpus: 1, pids: 512, diskBytes: 1 << 30 },
  workspaceMode: "copy",
  runtime: "runc",
  relaxations: [],
  user: "1000:1000",
  disk: { volume: "v", image: "", loopDevice: "", limitBytes: 0 },
  engine: "far",
  state: "running",
  detail: "",
};

/** The engine's account of a hardened container, with `change` applied to its HostConfig. */
function inspect(change: Record<string, unknown> = {}): Docker.ContainerInspectInfo {
  return {
    Config: { User: "1000:1000" },
    Mounts: [{ Type: "volume", Name: "v", Source: "", Destination: "/workspace", RW: true }],
    HostConfig: {
      Runtime: "runc",
      NetworkMode: "none",
      CapDrop: ["ALL"],
      CapAdd: null,
      SecurityOpt: ["no-new-privileges:true"],
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": "", "/home/enclave": "", "/run/enclave": "" },
      PidsLimit: 512,
      Memory: 1 << 30,
      MemorySwap: 1 << 30,
      NanoCpus: 1e9,
      ...change,
    },
  } as unknown as Docker.ContainerInspectInfo;
}

// As enclosureChecks leaves them with no host view: every one not ok.
const ITEMS = ENCLOSURE_CHECKS.map((c) => c.id);
const computed: AuditCheck[] = ITEMS.map((item) => ({ item, expected: "", outside: "could not be read", inside: "", ok: false }));

describe("egress audit on a remote engine", () => {
  it("marks every item not available when the engine's settings keep the promises, and the disk limit not enforced", async () => {
    const checks = judgeOnRemoteEngine(computed, inspect(), record, "far");
    expect(checks.filter((c) => c.ok)).toEqual([]);
    const log = new TranscriptLog();
    for (const c of checks.filter((c) => c.item !== "workspace disk limit")) log.add(c.item, c.unavailable ?? "(none)");
    await log.expect("transcripts/remote-engine-audit/unavailable.txt");
    expect(checks.find((c) => c.item === "workspace disk limit")).toMatchObject({ ok: false, unavailable: "not enforced on a remote engine (`far`)" });
  });

  it("fails an item outright when the engine's own settings break it", () => {
    const broken = judgeOnRemoteEngine(
      computed,
      inspect({ NetworkMode: "bridge", CapAdd: ["NET_ADMIN"], ReadonlyRootfs: false, SecurityOpt: ["seccomp=unconfined"] }),
      record,
      "far",
    );
    const failed = broken.filter((c) => !c.ok && !c.unavailable).map((c) => c.item);
    expect(failed).toEqual(["network", "capabilities", "read-only root", "no new privileges", "seccomp"].sort((a, b) => ITEMS.indexOf(a) - ITEMS.indexOf(b)));
  });
});
