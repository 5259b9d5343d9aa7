#!/usr/bin/env bash
# The build links one small program statically (dist/agent/proc-reader, the hardening audit's reader
# inside gVisor enclosures): make sure a C compiler and glibc's static library are installed.
set -euo pipefail
exec "$(dirname "$0")/ensure-debs.sh" static-cc gcc libc6-dev
