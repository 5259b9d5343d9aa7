#!/usr/bin/env bash
# Make sure a Docker engine answers on this machine with gVisor registered beside runc and
# checkpoints on: install Debian's docker.io and runsc when absent, register runsc (through
# runsc-for-docker.sh, installed beside it) and `"experimental": true` in the daemon's configuration
# (keeping every other key there), start dockerd in the background when it is not running — or, when
# it runs without runsc, send it SIGHUP, which reloads runtimes without stopping running containers;
# experimental is not reloaded by SIGHUP, so a dockerd without it is restarted, only while no
# container runs (a restart would stop them) — and wait (bounded) until it answers with runsc listed.
# Safe to run again: it changes nothing then.
set -euo pipefail
log() { printf '[docker] %s\n' "$*" >&2; }

# How runsc is registered (control-plane/src/placement/gvisor-runtime.ts checks the same flags):
# --network=none keeps gVisor's own network stack off — an enclosure has no network, and runsc
# refuses to start in Docker's network namespace with it on. Not --oci-seccomp: under Debian's runsc
# (2022-12) the engine's default profile stops every thread from starting inside (node aborts, Python
# "can't start new thread"); gVisor's kernel answers the enclosure's calls itself. Not --host-uds:
# nothing of the host's is a socket the enclosure needs (its agent is reached through exec).
RUNSC_ARGS='["--network=none"]'
# What the engine runs as runsc: runsc itself, but with the shim's delete forced (see the script: a
# restored container's state would otherwise block every restore after the first pause/resume cycle).
RUNSC_WRAPPER=/usr/local/bin/enclave-runsc
HERE=$(cd "$(dirname "$0")" && pwd)

# runsc registered with exactly our flags and path (a registration without them is updated and reloaded).
has_runsc() {
  docker info --format '{{json .Runtimes.runsc}}' 2>/dev/null | grep -qF "\"path\":\"$RUNSC_WRAPPER\",\"runtimeArgs\":$RUNSC_ARGS"
}
# Checkpoints (pause/resume with memory) need the engine's experimental API.
has_experimental() { [ "$(docker info --format '{{.ExperimentalBuild}}' 2>/dev/null)" = true ]; }
dockerd_pid() { pgrep -x dockerd | head -n 1; }

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${apt_updated:-}" ]; then apt-get update -qq >/dev/null; apt_updated=1; fi
  apt-get install -y -qq "$@" >/dev/null
}

# The daemon's configuration file: the one a running dockerd was given, else the default.
daemon_json() {
  local pid arg prev="" file=/etc/docker/daemon.json
  pid=$(dockerd_pid || true)
  if [ -n "$pid" ]; then
    while IFS= read -r -d '' arg; do
      case "$arg" in
        --config-file=*) file=${arg#--config-file=} ;;
        *) if [ "$prev" = --config-file ]; then file=$arg; fi ;;
      esac
      prev=$arg
    done <"/proc/$pid/cmdline"
  fi
  printf '%s\n' "$file"
}

# Adds or updates runtimes.runsc; every other key (and other runtimes) stays as it was. Written to a
# temporary file and renamed, so a failure never leaves half a configuration behind.
register_runsc() {
  local file=$1 path=$2
  mkdir -p "$(dirname "$file")"
  node - "$file" "$path" "$RUNSC_ARGS" <<'JS'
const fs = require("node:fs");
const [file, path, args] = process.argv.slice(2);
let config = {};
if (fs.existsSync(file)) {
  const text = fs.readFileSync(file, "utf8");
  try {
    if (text.trim()) config = JSON.parse(text);
  } catch (err) {
    process.stderr.write(`[docker] ${file} is not JSON (${err.message}); fix it, then run \`make docker\` again\n`);
    process.exit(1);
  }
}
const wanted = { path, runtimeArgs: JSON.parse(args) };
config.runtimes = config.runtimes ?? {};
if (JSON.stringify(config.runtimes.runsc) === JSON.stringify(wanted) && config.experimental === true) process.exit(0);
config.runtimes.runsc = wanted;
config.experimental = true;
fs.writeFileSync(`${file}.enclave-tmp`, `${JSON.stringify(config, null, 2)}\n`);
fs.renameSync(`${file}.enclave-tmp`, file);
process.stderr.write(`[docker] registered runsc and experimental (checkpoints) in ${file}\n`);
JS
}

wait_engine_runsc() {
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1 && has_runsc; then return 0; fi
    sleep 1
  done
  return 1
}

wait_engine() {
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1 && has_runsc && has_experimental; then return 0; fi
    sleep 1
  done
  return 1
}

# The wrapper is kept the repository's (a changed one is installed again; running containers keep theirs).
if ! cmp -s "$HERE/runsc-for-docker.sh" "$RUNSC_WRAPPER" 2>/dev/null; then
  install -m 0755 "$HERE/runsc-for-docker.sh" "$RUNSC_WRAPPER"
  log "installed $RUNSC_WRAPPER (runsc with the shim's delete forced)"
fi
if docker info >/dev/null 2>&1 && has_runsc && has_experimental; then exit 0; fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "no Docker engine here; installing Debian's docker.io (about 20 s)"
  apt_install docker.io
fi
if ! command -v runsc >/dev/null 2>&1; then
  log "no gVisor here; installing Debian's runsc"
  apt_install runsc
fi
register_runsc "$(daemon_json)" "$RUNSC_WRAPPER"

restart_dockerd() {
  local pid=$1
  kill -TERM "$pid"
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then log "dockerd (pid $pid) did not stop within 30 s; restart it by hand"; exit 1; fi
  log "starting dockerd (log: /var/log/enclave-dockerd.log)"
  nohup dockerd >>/var/log/enclave-dockerd.log 2>&1 &
}

if pid=$(dockerd_pid) && [ -n "$pid" ]; then
  if ! has_runsc; then
    log "dockerd runs without runsc registered as above; sending it SIGHUP to reload its runtimes (running containers keep running)"
    kill -HUP "$pid"
  fi
  if ! has_experimental; then
    running=$(docker ps -q 2>/dev/null | wc -l)
    if [ "$running" -eq 0 ]; then
      log "dockerd runs without experimental (checkpoints), which SIGHUP does not reload; restarting it (no container runs)"
      restart_dockerd "$pid"
    else
      log "dockerd runs without experimental (checkpoints: enclosure pause/resume); it is set in $(daemon_json) but takes a restart of dockerd," \
        "which would stop the $running running container(s): restart it when none runs (runsc and runc work meanwhile)"
      if wait_engine_runsc; then exit 0; fi
    fi
  fi
else
  log "starting dockerd (log: /var/log/enclave-dockerd.log)"
  nohup dockerd >/var/log/enclave-dockerd.log 2>&1 &
fi

if wait_engine; then log "engine ready (runtimes: runc, runsc; checkpoints on)"; exit 0; fi
if docker info >/dev/null 2>&1; then
  log "dockerd answers but does not list runsc; check $(daemon_json) and /var/log/enclave-dockerd.log"
else
  log "dockerd did not answer within 60 s; see /var/log/enclave-dockerd.log"
fi
tail -n 20 /var/log/enclave-dockerd.log >&2 || true
exit 1
