#!/usr/bin/env bash
# `make run`: sets up what host placement needs and serves, for a person at a terminal. First, what
# needs root and is missing is said at once (scripts/needs-root.sh); then each step is one line with
# its time (scripts/step.sh keeps apt's, npm's and tsc's output in a log, shown when a step fails);
# each is quick when its work is done (npm ci when the lockfile changed, tsc -b incremental, the
# ensure scripts check before they install). Then `enclave serve` with the arguments given.
set -euo pipefail
cd "$(dirname "$0")/.."
host_tools=(scripts/ensure-host-sandbox.sh scripts/ensure-host-servers.sh scripts/ensure-host-debuggers.sh scripts/ensure-host-kernels.sh)
needs=(scripts/ensure-static-cc.sh "${host_tools[@]}")
# npm ci runs (and may need Debian's compilers) only when the lockfile is newer than node_modules.
make --no-print-directory -q deps 2>/dev/null || needs=(scripts/npm-ci.sh "${needs[@]}")
bash scripts/needs-root.sh "${needs[@]}"
step=scripts/step.sh
started=$(date +%s)
$step "node packages (npm ci)" -- make --no-print-directory deps
$step "C compiler for the audit's static reader" -- bash scripts/ensure-static-cc.sh
$step "build (tsc -b, agent bundle)" -- node scripts/build.mjs
$step "host sandbox (bubblewrap, seccomp)" -- bash scripts/ensure-host-sandbox.sh
$step "language servers" -- bash scripts/ensure-host-servers.sh
$step "debug adapters" -- bash scripts/ensure-host-debuggers.sh
$step "Python kernel stack" -- bash scripts/ensure-host-kernels.sh
echo "Set up in $(($(date +%s) - started)) s; starting the control plane (Ctrl-C stops it)."
exec ./bin/enclave serve "$@"
