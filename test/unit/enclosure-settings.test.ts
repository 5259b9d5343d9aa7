import { expect, it } from "vitest";
import { loadConfig } from "../../control-plane/src/config.js";
import type { EnclaveError } from "../../control-plane/src/errors.js";
import { containerSpec, resolveSettings } from "../../control-plane/src/placement/enclosure-settings.js";

const defaults = loadConfig().enclosure;

it("hardens by default and names every relaxation", () => {
  const s = resolveSettings({}, defaults, "img");
  expect(s.relaxations).toEqual([]);
  const spec = containerSpec(s, { socketDir: "/s", workspace: "/w", agentBundleDir: "/a" }, {});
  expect(spec.HostConfig?.NetworkMode).toBe("none");
  expect(spec.HostConfig?.CapDrop).toEqual(["ALL"]);
  const weak = resolveSettings({ networkMode: "bridge", keepCapabilities: ["net_raw"], writableRoot: true, allowNewPrivileges: true }, defaults, "img");
  expect(weak.relaxations).toHaveLength(4);
  expect(() => resolveSettings({ user: "0:0" }, defaults, "img")).toThrow(/never runs as root/);
});

it("runs under the configured runtime, refuses an unknown one by name, and runsc with a network", () => {
  expect(resolveSettings({}, { ...defaults, runtime: "runc" }, "img").runtime).toBe("runc");
  expect(resolveSettings({}, { ...defaults, runtime: "runsc" }, "img").runtime).toBe("runsc");
  const s = resolveSettings({ runtime: "runsc" }, defaults, "img");
  expect(containerSpec(s, { socketDir: "/s", workspace: "/w", agentBundleDir: "/a" }, {}).HostConfig?.Runtime).toBe("runsc");
  const refused = (req: Parameters<typeof resolveSettings>[0]): EnclaveError => {
    try {
      resolveSettings(req, defaults, "img");
    } catch (err) {
      return err as EnclaveError;
    }
    throw new Error("not refused");
  };
  expect(refused({ runtime: "kata" })).toMatchObject({ code: "invalid_arguments", message: "runtime `kata` is not one of runc, runsc" });
  expect(refused({ runtime: "runsc", networkMode: "bridge" })).toMatchObject({
    code: "invalid_arguments",
    message: expect.stringMatching(/runtime runsc \(gVisor\) runs enclosures with network mode none only; network_mode `bridge` needs runtime runc/),
  });
});

it("takes the default runtime from ENCLAVE_ENCLOSURE_RUNTIME, and refuses an unknown one", () => {
  const saved = process.env.ENCLAVE_ENCLOSURE_RUNTIME;
  try {
    delete process.env.ENCLAVE_ENCLOSURE_RUNTIME;
    expect(loadConfig().enclosure.runtime).toBe("runc");
    process.env.ENCLAVE_ENCLOSURE_RUNTIME = "runsc";
    expect(loadConfig().enclosure.runtime).toBe("runsc");
    process.env.ENCLAVE_ENCLOSURE_RUNTIME = "gvisor";
    expect(() => loadConfig()).toThrow("ENCLAVE_ENCLOSURE_RUNTIME=gvisor is not one of runc, runsc");
  } finally {
    if (saved === undefined) delete process.env.ENCLAVE_ENCLOSURE_RUNTIME;
    else process.env.ENCLAVE_ENCLOSURE_RUNTIME = saved;
  }
});
