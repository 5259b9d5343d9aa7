#!/usr/bin/env bash
# Make sure Debian's Chromium is installed for the console's browser tests (playwright-core drives
# /usr/bin/chromium; it never downloads a browser of its own).
set -euo pipefail
log() { printf '[chromium] %s\n' "$*" >&2; }

if [ -x /usr/bin/chromium ]; then exit 0; fi

log "no /usr/bin/chromium here; installing Debian's chromium (about a minute)"
export DEBIAN_FRONTEND=noninteractive
log "apt-get update"
apt-get update -qq >/dev/null
log "apt-get install -y chromium"
apt-get install -y -qq chromium >/dev/null
if [ ! -x /usr/bin/chromium ]; then
  log "chromium installed but /usr/bin/chromium is missing"
  exit 1
fi
log "ready: $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
