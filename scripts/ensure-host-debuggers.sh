#!/usr/bin/env bash
# Host placement runs debug adapters on the host itself: make sure the ones the runtime image carries
# (python3-debugpy, lldb-15, delve) and the toolchains the debug tests build with (golang-go, gcc)
# are installed here too. Installs only what is missing, through apt-get; waits for a busy dpkg lock.
set -euo pipefail
log() { printf '[debuggers] %s\n' "$*" >&2; }

packages=(python3-debugpy lldb-15 delve golang-go gcc)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

if [ "$(id -u)" -ne 0 ]; then
  log "missing on the host: ${missing[*]}; run as root or: sudo apt-get install -y ${missing[*]}"
  exit 1
fi
log "installing on the host: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "installed"
