// The engines' configuration: the docker CLI's variables, the engines file, and what is refused.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dockerFor, enginesFromEnv, isRemoteHost, parseEngines } from "./engines.js";

describe("engines configuration", () => {
  it("is the local default engine with no variables set", () => {
    expect(enginesFromEnv({})).toEqual([{ name: "default", host: "", cap: 0 }]);
  });

  it("reads DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH as the docker CLI does", () => {
    const [e] = enginesFromEnv({ DOCKER_HOST: "tcp://10.1.2.3:2376", DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: "/certs", ENCLAVE_ENGINE_CAP: "4" });
    expect(e).toEqual({ name: "default", host: "tcp://10.1.2.3:2376", tls: { ca: "/certs/ca.pem", cert: "/certs/cert.pem", key: "/certs/key.pem" }, cap: 4 });
    expect(isRemoteHost(e?.host ?? "")).toBe(true);
    expect(isRemoteHost("unix:///var/run/docker.sock")).toBe(false);
    expect(() => enginesFromEnv({ DOCKER_HOST: "tcp://h:2376", DOCKER_TLS_VERIFY: "1" })).toThrow(/needs DOCKER_CERT_PATH/);
    expect(() => enginesFromEnv({ ENCLAVE_ENGINE_CAP: "-1" })).toThrow(/ENCLAVE_ENGINE_CAP/);
  });

  it("reads a list of engines from ENCLAVE_ENGINES_FILE, the first the default", () => {
    const dir = mkdtempSync(join(tmpdir(), "engines-"));
    const file = join(dir, "engines.json");
    writeFileSync(file, JSON.stringify([{ name: "here", host: "unix:///run/d.sock", cap: 2 }, { name: "far", host: "tcp://10.0.0.2:2376", ca: "a", cert: "b", key: "c" }]));
    expect(enginesFromEnv({ ENCLAVE_ENGINES_FILE: file })).toEqual([
      { name: "here", host: "unix:///run/d.sock", cap: 2 },
      { name: "far", host: "tcp://10.0.0.2:2376", tls: { ca: "a", cert: "b", key: "c" }, cap: 0 },
    ]);
  });

  it("refuses what cannot be right: no TLS over TCP, partial TLS, duplicate or bad names, bad hosts and caps", () => {
    const bad = (list: unknown): (() => unknown) => () => parseEngines(JSON.stringify(list), "engines.json");
    expect(bad([{ name: "far", host: "tcp://10.0.0.2:2376" }])).toThrow(/reached over TCP and needs TLS/);
    expect(bad([{ name: "far", host: "tcp://10.0.0.2:2376", ca: "a" }])).toThrow(/give ca, cert and key together/);
    expect(bad([{ name: "a", host: "" }, { name: "a", host: "" }])).toThrow(/used twice/);
    expect(bad([{ name: "a b", host: "" }])).toThrow(/needs a name/);
    expect(bad([{ name: "a", host: "ssh://x" }])).toThrow(/is not tcp:\/\/HOST:PORT or unix:\/\/\/PATH/);
    expect(bad([{ name: "a", host: "", cap: 1.5 }])).toThrow(/cap must be a whole number/);
    expect(bad([])).toThrow(/non-empty JSON list/);
    expect(() => parseEngines("{", "engines.json")).toThrow(/is not JSON/);
  });

  it("says which TLS file it cannot read, with a stable code", () => {
    expect(() => dockerFor({ name: "far", host: "tcp://10.0.0.2:2376", tls: { ca: "/nonexistent/ca.pem", cert: "x", key: "y" }, cap: 0 })).toThrow(
      expect.objectContaining({ code: "placement_unavailable", message: expect.stringMatching(/engine `far`: cannot read TLS file \/nonexistent\/ca\.pem/) }),
    );
  });
});
