#!/usr/bin/env bash
# Installs the Debian packages named after TAG that are not installed yet, quietly; says what is
# missing and how to install it by hand where it cannot (no apt-get, not root). With ENSURE_DEBS_LIST
# set it installs nothing and prints `TAG<tab>PACKAGE...` when some are missing: `make run` asks every
# set-up step so before any runs, to say up front what needs root (scripts/needs-root.sh).
#   usage: scripts/ensure-debs.sh TAG PACKAGE...
set -euo pipefail
tag=$1
shift
log() { printf '[%s] %s\n' "$tag" "$*" >&2; }

missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ -n "${ENSURE_DEBS_LIST:-}" ]; then
  printf '%s\t%s\n' "$tag" "${missing[*]}"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
  log "missing: ${missing[*]}; install them as root: apt-get install -y ${missing[*]}"
  exit 1
fi
log "installing Debian's ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
