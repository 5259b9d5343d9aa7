#!/usr/bin/env bash
# Host placement runs every host agent under bubblewrap, each conversation as a uid of its own from
# a range reserved for Enclave, behind a seccomp filter built with libseccomp's Python binding (Debian's /usr/bin/python3: the module is Debian's): install
# Debian's bubblewrap and python3-seccomp when absent. Idempotent.
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
/usr/bin/python3 -c 'import seccomp' >/dev/null 2>&1 || missing+=(python3-seccomp)
[ "${#missing[@]}" -eq 0 ] || exec "$(dirname "$0")/ensure-debs.sh" host-sandbox "${missing[@]}"
