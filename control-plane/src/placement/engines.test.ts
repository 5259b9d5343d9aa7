// The engines' configuration: the docker CLI's variables, the engines file, and what is refused.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dockerFor, enginesFromEnv, isRemoteHost, parseEngines } from "./engines.js";
import { thrown, TranscriptLog } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

describe("engines configuration", () => {
  it("is the local default engine with no variables set", () => {
    expect(enginesFromEnv({})).toEqual([{ name: "default", host: "", cap: 0 }]);
  });

  it("reads DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH as the docker CLI does", async () => {
    const [e] = enginesFromEnv({ DOCKER_HOST: "tcp://10.1.2.3:2376", DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: "/certs", ENCLAVE_ENGINE_CAP: "4" });
    expect(e).toEqual({ name: "default", host: "tcp://10.1.2.3:2376", tls: { ca: "/certs/ca.pem", cert: "/certs/cert.pem", key: "/certs/key.pem" }, cap: 4 });
    expect(isRemoteHost(e?.host ?? "")).toBe(true);
    expect(isRemoteHost("unix:///var/run/docker.sock")).toBe(false);
    // Each refusal, its code and what it names, recorded whole.
    const log = new TranscriptLog();
    log.add(
      "TLS verify without DOCKER_CERT_PATH",
      thrown(() => enginesFromEnv({ DOCKER_HOST: "tcp://h:2376", DOCKER_TLS_VERIFY: "1" })),
    );
    log.add(
      "ENCLAVE_ENGINE_CAP=-1",
      thrown(() => enginesFromEnv({ ENCLAVE_ENGINE_CAP: "-1" })),
    );
    await log.expect("transcripts/engines-config/environment-refusals.txt");
  });

  it("reads a list of engines from ENCLAVE_ENGINES_FILE, the first the default", () => {
    const dir = mkdtempSync(join(tmpdir(), "engines-"));
    const file = join(dir, "engines.json");
    writeFileSync(
      file,
      JSON.stringify([
        { name: "here", host: "unix:///run/d.sock", cap: 2 },
        { name: "far", host: "tcp://10.0.0.2:2376", ca: "a", cert: "b", key: "c" },
      ]),
    );
    expect(enginesFromEnv({ ENCLAVE_ENGINES_FILE: file })).toEqual([
      { name: "here", host: "unix:///run/d.sock", cap: 2 },
      { name: "far", host: "tcp://10.0.0.2:2376", tls: { ca: "a", cert: "b", key: "c" }, cap: 0 },
    ]);
  });

  it("refuses what cannot be right: no TLS over TCP, partial TLS, duplicate or bad names, bad hosts and caps", async () => {
    // Each refusal, its code and what it names, recorded whole, a header line per list.
    const log = new TranscriptLog();
    const bad = (list: unknown): void =>
      void log.add(
        JSON.stringify(list),
        thrown(() => parseEngines(JSON.stringify(list), "engines.json")),
      );
    bad([{ name: "far", host: "tcp://10.0.0.2:2376" }]);
    bad([{ name: "far", host: "tcp://10.0.0.2:2376", ca: "a" }]);
    bad([
      { name: "a", host: "" },
      { name: "a", host: "" },
    ]);
    bad([{ name: "a b", host: "" }]);
    bad([{ name: "a", host: "ssh://x" }]);
    bad([{ name: "a", host: "", cap: 1.5 }]);
    bad([]);
    // After our words, JSON.parse's own, which change with Node's version.
    log.add("{", thrown(() => parseEngines("{", "engines.json")).replace(/(is not JSON: ).*/, "$1<JSON.parse's words>"));
    await log.expect("transcripts/engines-config/list-refusals.txt");
  });

  it("says which TLS file it cannot read, with a stable code", async () => {
    const refusal = thrown(() => dockerFor({ name: "far", host: "tcp://10.0.0.2:2376", tls: { ca: "/nonexistent/ca.pem", cert: "x", key: "y" }, cap: 0 }));
    await expectTranscript(refusal, "transcripts/engines-config/unreadable-tls-file.txt");
  });
});
