// A throwaway certificate authority, a server certificate for localhost/127.0.0.1 and a client
// certificate, made with the machine's openssl for one test run.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TestCerts {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  ca: Buffer;
  clientCert: Buffer;
  clientKey: Buffer;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function signed(dir: string, name: string, subject: string, extensions: string): void {
  openssl(dir, "req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(
    dir,
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    `${name}.pem`,
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
  );
}

export function makeTestCerts(dir: string): TestCerts {
  openssl(
    dir,
    "req",
    "-x509",
    ...EC,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=enclave-test-ca",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  signed(dir, "server", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  signed(dir, "client", "/CN=enclave-test-client", "extendedKeyUsage=clientAuth\n");
  const f = (n: string): string => join(dir, n);
  return {
    caFile: f("ca.pem"),
    serverCertFile: f("server.pem"),
    serverKeyFile: f("server.key"),
    clientCertFile: f("client.pem"),
    clientKeyFile: f("client.key"),
    ca: readFileSync(f("ca.pem")),
    clientCert: readFileSync(f("client.pem")),
    clientKey: readFileSync(f("client.key")),
  };
}
