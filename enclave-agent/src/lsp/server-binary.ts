// Resolves a server's binary (project-local bins first, then PATH) and, for servers with a probe,
// checks that it really runs: a rustup proxy named rust-analyzer resolves even when the component is
// missing, and a server that cannot run should be "missing", not "available". A project's own binary
// is never probed: the workspace is hostile input, and `status` or Describe must run nothing from it
// (a broken one is reported when a real call starts it).
import { probeSync } from "../exec/probe.js";
import { findBinary } from "../exec/resolve-binary.js";
import type { LanguageServerSpec } from "@enclave/proto/server-registry.js";

export type BinaryCheck = { ok: true; path: string; projectLocal: boolean } | { ok: false; why: string };

export function checkServerBinary(spec: LanguageServerSpec, projectDir: string): BinaryCheck {
  const name = spec.command[0] ?? "";
  const found = findBinary(name, projectDir);
  if (!found) return { ok: false, why: `\`${name}\` is not on PATH here (nor in the project's node_modules/.bin, .venv/bin or venv/bin); ${spec.install}` };
  const { path, projectLocal } = found;
  if (spec.probe && !projectLocal) {
    const answer = probeSync(path, spec.probe);
    if (!answer.ok) {
      const failure = answer.output.split("\n")[0] ?? "";
      return {
        ok: false,
        why: `\`${name}\` resolves to ${path}, but \`${[name, ...spec.probe].join(" ")}\` fails (${failure.slice(0, 200)}); ${spec.install}`,
      };
    }
  }
  return { ok: true, path, projectLocal };
}
