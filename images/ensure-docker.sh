#!/usr/bin/env bash
# Make sure a Docker engine answers on this machine: install Debian's docker.io when dockerd is
# absent, start dockerd in the background when it is not running, and wait (bounded) until it answers.
set -euo pipefail
log() { printf '[docker] %s\n' "$*" >&2; }

if docker info >/dev/null 2>&1; then exit 0; fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "no Docker engine here; installing Debian's docker.io (about 20 s)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq docker.io >/dev/null
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  log "starting dockerd (log: /var/log/enclave-dockerd.log)"
  nohup dockerd >/var/log/enclave-dockerd.log 2>&1 &
fi

for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then log "engine ready"; exit 0; fi
  sleep 1
done
log "dockerd did not answer within 60 s; see /var/log/enclave-dockerd.log"
tail -n 20 /var/log/enclave-dockerd.log >&2 || true
exit 1
