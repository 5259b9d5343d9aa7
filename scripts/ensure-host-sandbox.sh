#!/usr/bin/env bash
# Host placement runs every host agent under bubblewrap as an unprivileged account: install Debian's
# bubblewrap when absent, and create that account (no login, no home) when absent. Idempotent.
set -euo pipefail
account="${ENCLAVE_HOST_USER:-enclave-sandbox}"
if ! command -v bwrap >/dev/null 2>&1; then
  echo "[host-sandbox] installing bubblewrap (Debian package)"
  if [ "$(id -u)" -ne 0 ]; then
    echo "[host-sandbox] bubblewrap is missing and installing it needs root: sudo apt-get install -y bubblewrap" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y bubblewrap >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y bubblewrap >/dev/null; }
fi
# Only root switches accounts; anyone else's host agents run as themselves, in the sandbox.
if [ "$(id -u)" -eq 0 ] && [[ "$account" != *:* ]] && ! getent passwd "$account" >/dev/null; then
  echo "[host-sandbox] creating the unprivileged account $account"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group "$account"
fi
