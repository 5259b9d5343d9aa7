#!/usr/bin/env bash
# The container registry the image pipeline's tests push to: Debian's docker-registry (distribution
# 2.8). Only the program is needed; the tests run their own on loopback with a temporary config and
# storage folder, and stop it. Its packaged service is not used (and not started here).
set -euo pipefail
log() { printf '[registry] %s\n' "$*" >&2; }

if command -v docker-registry >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "docker-registry is missing, and apt-get is not available to install it; install Debian's docker-registry (or put a distribution 2.x \`registry\` binary on PATH as docker-registry)"
  exit 1
fi
log "installing Debian's docker-registry"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends docker-registry >/dev/null
