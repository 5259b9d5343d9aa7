import { expect, it } from "vitest";
import { loadConfig } from "../../control-plane/src/config.js";
import { containerSpec, resolveSettings } from "../../control-plane/src/placement/enclosure-settings.js";

const defaults = loadConfig().enclosure;

it("hardens by default and names every relaxation", () => {
  const s = resolveSettings({}, defaults, "img");
  expect(s.relaxations).toEqual([]);
  const spec = containerSpec(s, { socketDir: "/s", workspace: "/w" }, {});
  expect(spec.HostConfig?.NetworkMode).toBe("none");
  expect(spec.HostConfig?.CapDrop).toEqual(["ALL"]);
  const weak = resolveSettings({ networkMode: "bridge", keepCapabilities: ["net_raw"], writableRoot: true, allowNewPrivileges: true }, defaults, "img");
  expect(weak.relaxations).toHaveLength(4);
  expect(() => resolveSettings({ user: "0:0" }, defaults, "img")).toThrow(/never runs as root/);
});
