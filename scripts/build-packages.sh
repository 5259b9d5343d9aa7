#!/usr/bin/env bash
# Builds what a user installs, into dist/packages: the Node client's tarball (npm install FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/dist/packages"
mkdir -p "$out"
node clients/node/scripts/build-package.mjs >/dev/null
rm -f "$out"/enclave-sandbox-client-*.tgz
(cd clients/node/dist/package && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"/enclave-sandbox-client-*.tgz
