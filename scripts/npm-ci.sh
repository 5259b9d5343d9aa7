#!/usr/bin/env bash
# `npm ci`, with what its native addons need to build: better-sqlite3 (and ssh2's cpu-features)
# compile with node-gyp here, since their prebuilt binaries are downloads from hosts this machine
# does not reach. node-gyp needs Python, make and a C++ compiler (Debian's, installed when absent),
# and Node's headers: the running Node's own (its official build and Debian's both carry them under
# their prefix), else node-gyp would try to download those too. A nodedir set in npm's config wins.
set -euo pipefail
"$(dirname "$0")/ensure-debs.sh" native-addons python3 make g++
[ -z "${ENSURE_DEBS_LIST:-}" ] || exit 0
if [ -z "${npm_config_nodedir:-}" ] && [ "$(npm config get nodedir)" = undefined ]; then
  prefix=$(node -p 'require("node:path").resolve(process.execPath, "..", "..")')
  if [ -f "$prefix/include/node/common.gypi" ]; then export npm_config_nodedir=$prefix; fi
fi
exec npm ci --no-audit --no-fund
