#!/usr/bin/env bash
# The build links one small program statically (dist/agent/proc-reader, the hardening audit's reader
# inside gVisor enclosures): make sure a C compiler and glibc's static library are installed.
set -euo pipefail
log() { printf '[static-cc] %s\n' "$*" >&2; }

want="gcc libc6-dev"
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "missing:$missing, and apt-get is not available to install them; install a C compiler and a static libc by hand"
  exit 1
fi
log "installing Debian's$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
