import { expect, it } from "vitest";
import { loadConfig } from "../../control-plane/src/config.js";
import { containerSpec, resolveSettings } from "../../control-plane/src/placement/enclosure-settings.js";

const defaults = loadConfig().enclosure;

it("hardens by default and names every relaxation", () => {
  const s = resolveSettings({}, defaults, "img");
  expect(s.relaxations).toEqual([]);
  const spec = containerSpec(s, { workspace: "/w" }, {});
  expect(spec.HostConfig?.NetworkMode).toBe("none");
  expect(spec.HostConfig?.CapDrop).toEqual(["ALL"]);
  const weak = resolveSettings({ networkMode: "bridge", keepCapabilities: ["net_raw"], writableRoot: true, allowNewPrivileges: true }, defaults, "img");
  expect(weak.relaxations).toHaveLength(4);
  expect(() => resolveSettings({ user: "0:0" }, defaults, "img")).toThrow(/never runs as root/);
});

it("sizes copy mode's workspace volume and refuses a disk limit in bind mode", () => {
  expect(resolveSettings({ workspaceMode: "copy" }, defaults, "img").diskLimitBytes).toBe(defaults.diskBytes);
  expect(resolveSettings({ workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 }, defaults, "img").diskLimitBytes).toBe(64 * 1024 ** 2);
  expect(resolveSettings({}, defaults, "img").diskLimitBytes).toBe(0);
  expect(() => resolveSettings({ diskLimitBytes: 64 * 1024 ** 2 }, defaults, "img")).toThrow(/needs workspace_mode copy/);
  expect(() => resolveSettings({ workspaceMode: "copy", diskLimitBytes: 1024 }, defaults, "img")).toThrow(/below the 32 MiB/);
  const spec = containerSpec(resolveSettings({ workspaceMode: "copy" }, defaults, "img"), { workspace: "/w", workspaceVolume: "vol" }, {});
  expect(spec.HostConfig?.Mounts).toEqual([
    { Type: "volume", Source: "vol", Target: "/workspace" },
    { Type: "volume", Source: "", Target: "/opt/enclave/agent" },
  ]);
  expect(spec.HostConfig?.Binds?.some((b) => b.startsWith("/w:"))).toBe(false);
});
