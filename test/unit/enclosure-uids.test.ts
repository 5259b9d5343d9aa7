// Enclosures' uids: their range defaults apart from host sandboxes' and an overlapping one is refused
// at start-up; an enclosure runs as its uid with gid the same number, a named user's gid kept as a
// supplementary group; and the workspace archive carries ids past ustar's range (pax records).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extract } from "tar-stream";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { containerSpec, resolveSettings, withOwnUid } from "@enclave/control-plane/placement/enclosure-settings.js";
import { packFolder } from "@enclave/control-plane/placement/workspace-transfer.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe("enclosure uid range", () => {
  it("defaults to a range apart from host sandboxes'", () => {
    const c = loadConfig({ dataDir: join(tmpdir(), "enclave-uid-range") });
    const h = c.hostSandbox.uids;
    const e = c.enclosure.uids;
    expect(e.base >= h.base + h.count || h.base >= e.base + e.count).toBe(true);
  });

  it("refuses a range that overlaps host sandboxes'", async () => {
    process.env.ENCLAVE_HOST_UID_BASE = "3000000";
    process.env.ENCLAVE_HOST_UID_COUNT = "1000";
    process.env.ENCLAVE_ENCLOSURE_UID_BASE = "3000500";
    await expectTranscript(
      thrown(() => loadConfig({ dataDir: join(tmpdir(), "enclave-uid-range") })),
      "transcripts/enclosure-uids/enclave-enclosure-uid-base.txt",
    );
  });
});

describe("withOwnUid", () => {
  const base = resolveSettings({ user: "2345:2345" }, loadConfig({ dataDir: join(tmpdir(), "enclave-uid-range") }).enclosure, "img");

  it("runs as the uid, gid the same number; a named user's gid is a supplementary group", () => {
    const named = withOwnUid(base, 1_900_070_000, true);
    const spec = containerSpec(named, { workspace: "/w" }, {});
    expect(spec.User).toBe("1900070000:1900070000");
    expect(spec.HostConfig?.GroupAdd).toEqual(["2345"]);
    expect(spec.HostConfig?.Tmpfs?.["/home/enclave"]).toContain("uid=1900070000,gid=1900070000,mode=0700");
    expect(containerSpec(withOwnUid(base, 1_900_070_000, false), { workspace: "/w" }, {}).HostConfig?.GroupAdd).toBeUndefined();
  });
});

describe("packFolder", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("records an owner past ustar's six octal digits exactly", async () => {
    dir = mkdtempSync(join(tmpdir(), "enclave-pack-"));
    writeFileSync(join(dir, "a.txt"), "a");
    const owners: Array<[number, number]> = [];
    const ex = extract();
    ex.on("entry", (h, stream, next) => {
      const pax = (h.pax ?? {}) as Record<string, string | undefined>;
      owners.push([Number(pax.uid ?? h.uid), Number(pax.gid ?? h.gid)]);
      stream.resume();
      stream.on("end", next);
    });
    const done = new Promise<void>((ok, fail) => {
      ex.on("finish", () => ok());
      ex.on("error", fail);
    });
    packFolder(dir, 1_900_070_000, 1_900_070_001).pipe(ex as unknown as NodeJS.WritableStream);
    await done;
    expect(owners).toEqual([[1_900_070_000, 1_900_070_001]]);
  });
});
