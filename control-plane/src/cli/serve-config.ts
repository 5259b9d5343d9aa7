// What serve's flags override in the configuration: the one mapping, used by `serve` and `config`.
import { type ControlPlaneConfig, loadConfig } from "../config.js";
import type { CliOptions } from "./options.js";

export function loadServeConfig(opts: CliOptions): ControlPlaneConfig {
  return loadConfig({
    dataDir: opts["data-dir"],
    listen: opts.listen,
    otlpEndpoint: opts["otlp-endpoint"],
    api: {
      tlsCertFile: opts["tls-cert"],
      tlsKeyFile: opts["tls-key"],
      tlsClientCaFile: opts["tls-client-ca"],
      tokensFile: opts["tokens-file"],
      allowInsecureRemote: opts["insecure-remote"],
    },
  });
}
