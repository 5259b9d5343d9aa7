import { expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { EnclaveError } from "@enclave/control-plane/errors.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { containerSpec, resolveSettings } from "@enclave/control-plane/placement/enclosure-settings.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const defaults = loadConfig().enclosure;

it("hardens by default and names every relaxation", async () => {
  const s = resolveSettings({}, defaults, "img");
  expect(s.relaxations).toEqual([]);
  const spec = containerSpec(s, { workspace: "/w" }, {});
  expect(spec.HostConfig?.NetworkMode).toBe("none");
  expect(spec.HostConfig?.CapDrop).toEqual(["ALL"]);
  const weak = resolveSettings({ networkMode: "bridge", keepCapabilities: ["net_raw"], writableRoot: true, allowNewPrivileges: true }, defaults, "img");
  expect(weak.relaxations).toHaveLength(4);
  await expectTranscript(
    thrown(() => resolveSettings({ user: "0:0" }, defaults, "img")),
    "transcripts/enclosure-settings/root-user.txt",
  );
});

it("sizes copy mode's workspace volume and refuses a disk limit in bind mode", async () => {
  expect(resolveSettings({ workspaceMode: "copy" }, defaults, "img").diskLimitBytes).toBe(defaults.diskBytes);
  expect(resolveSettings({ workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 }, defaults, "img").diskLimitBytes).toBe(64 * 1024 ** 2);
  expect(resolveSettings({}, defaults, "img").diskLimitBytes).toBe(0);
  await expectTranscript(
    thrown(() => resolveSettings({ diskLimitBytes: 64 * 1024 ** 2 }, defaults, "img")),
    "transcripts/enclosure-settings/disk-limit-in-bind-mode.txt",
  );
  expect(codeOf(() => resolveSettings({ workspaceMode: "copy", diskLimitBytes: 1024 }, defaults, "img"))).toBe("invalid_arguments");
  const spec = containerSpec(resolveSettings({ workspaceMode: "copy" }, defaults, "img"), { workspace: "/w", workspaceVolume: "vol" }, {});
  expect(spec.HostConfig?.Mounts).toEqual([
    { Type: "volume", Source: "vol", Target: "/workspace", VolumeOptions: { NoCopy: true } },
    { Type: "volume", Source: "", Target: "/opt/enclave/agent" },
  ]);
  expect(spec.HostConfig?.Binds?.some((b) => b.startsWith("/w:"))).toBe(false);
});

it("runs under the configured runtime, refuses an unknown one by name, and runsc with a network", async () => {
  expect(resolveSettings({}, { ...defaults, runtime: "runc" }, "img").runtime).toBe("runc");
  expect(resolveSettings({}, { ...defaults, runtime: "runsc" }, "img").runtime).toBe("runsc");
  const s = resolveSettings({ runtime: "runsc" }, defaults, "img");
  expect(containerSpec(s, { workspace: "/w" }, {}).HostConfig?.Runtime).toBe("runsc");
  const refused = (req: Parameters<typeof resolveSettings>[0]): EnclaveError => {
    try {
      resolveSettings(req, defaults, "img");
    } catch (err) {
      return err as EnclaveError;
    }
    throw new Error("not refused");
  };
  expect(refused({ runtime: "kata" })).toMatchObject({ code: "invalid_arguments", message: "runtime `kata` is not one of runc, runsc" });
  const gvisorBridge = refused({ runtime: "runsc", networkMode: "bridge" });
  expect(gvisorBridge.code).toBe("invalid_arguments");
  await expectTranscript(gvisorBridge.message, "transcripts/enclosure-settings/runsc-with-a-network.txt");
});

it("takes the default runtime from ENCLAVE_ENCLOSURE_RUNTIME, and refuses an unknown one", async () => {
  const saved = process.env.ENCLAVE_ENCLOSURE_RUNTIME;
  try {
    delete process.env.ENCLAVE_ENCLOSURE_RUNTIME;
    expect(loadConfig().enclosure.runtime).toBe("runc");
    process.env.ENCLAVE_ENCLOSURE_RUNTIME = "runsc";
    expect(loadConfig().enclosure.runtime).toBe("runsc");
    process.env.ENCLAVE_ENCLOSURE_RUNTIME = "gvisor";
    await expectTranscript(
      thrown(() => loadConfig()),
      "transcripts/enclosure-settings/unknown-default-runtime.txt",
    );
  } finally {
    if (saved === undefined) delete process.env.ENCLAVE_ENCLOSURE_RUNTIME;
    else process.env.ENCLAVE_ENCLOSURE_RUNTIME = saved;
  }
});

/** The code of the EnclaveError fn throws ("none" when it returns). */
function codeOf(fn: () => unknown): string {
  try {
    fn();
    return "none";
  } catch (err) {
    return err instanceof EnclaveError ? err.code : String(err);
  }
}

it("refuses numeric limits that are not numbers in range, and takes absent or 0 as the default", () => {
  for (const cpus of [Number.NaN, Infinity, -1, 1e-9, 0.005, 65])
    expect(
      codeOf(() => resolveSettings({ cpus }, defaults, "img")),
      `cpus ${cpus}`,
    ).toBe("invalid_arguments");
  for (const memoryBytes of [Number.NaN, -1, 128 * 1024 ** 2 + 0.5, 1024])
    expect(
      codeOf(() => resolveSettings({ memoryBytes }, defaults, "img")),
      `memory ${memoryBytes}`,
    ).toBe("invalid_arguments");
  for (const pidsLimit of [Number.NaN, 100.5, 8])
    expect(
      codeOf(() => resolveSettings({ pidsLimit }, defaults, "img")),
      `pids ${pidsLimit}`,
    ).toBe("invalid_arguments");
  expect(codeOf(() => resolveSettings({ workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 + 0.5 }, defaults, "img"))).toBe("invalid_arguments");
  const s = resolveSettings({ cpus: 0, memoryBytes: 0, pidsLimit: 0 }, defaults, "img");
  expect([s.cpus, s.memoryBytes, s.pidsLimit]).toEqual([defaults.cpus, defaults.memoryBytes, defaults.pidsLimit]);
  expect(resolveSettings({ cpus: 0.01 }, defaults, "img").cpus).toBe(0.01);
});

it("gives each image VOLUME a tmpfs of the /tmp size, not an anonymous volume", () => {
  const s = resolveSettings({}, defaults, "img");
  const spec = containerSpec(s, { workspace: "/w", imageVolumes: ["/scratch", "data/", "/workspace", "/tmp"] }, {});
  expect(spec.HostConfig?.Tmpfs?.["/scratch"]).toContain(`size=${defaults.tmpSizeBytes}`);
  expect(spec.HostConfig?.Tmpfs?.["/data"]).toContain(`size=${defaults.tmpSizeBytes}`);
  expect(Object.keys(spec.HostConfig?.Tmpfs ?? {}).sort()).toEqual(["/data", "/home/enclave", "/run/enclave", "/scratch", "/tmp"]);
  expect(codeOf(() => containerSpec(s, { workspace: "/w", imageVolumes: ["/"] }, {}))).toBe("image_unusable");
});

it("gives each enclosure a private IPC namespace and a /dev/shm sized by the limits table", () => {
  const spec = containerSpec(resolveSettings({}, defaults, "img"), { workspace: "/w" }, {});
  expect(spec.HostConfig?.IpcMode).toBe("private");
  expect(spec.HostConfig?.ShmSize).toBe(LIMITS.sandboxShmBytes);
});
