#!/usr/bin/env bash
# Host-placement kernels and their peer: make sure Debian's Python data stack (the Python kernel's
# pandas and matplotlib when a conversation runs on the host) and Jupyter (ipykernel +
# jupyter_client, the peer `make bench` measures against) are installed for /usr/bin/python3.
set -euo pipefail
log() { printf '[host-kernels] %s\n' "$*" >&2; }

want="python3 python3-pip python3-venv python3-pandas python3-matplotlib python3-ipykernel python3-jupyter-client"
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "missing:$missing, and apt-get is not available to install them; install them for /usr/bin/python3 by hand"
  exit 1
fi
log "installing Debian's$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
