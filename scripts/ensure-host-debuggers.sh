#!/usr/bin/env bash
# Host placement runs debug adapters on the host itself: make sure the ones the runtime image carries
# (python3-debugpy, lldb-15, delve) and the toolchains the debug tests build with (golang-go, gcc)
# are installed here too. Installs only what is missing, through apt-get; waits for a busy dpkg lock.
set -euo pipefail

packages=(python3-debugpy lldb-15 delve golang-go gcc)
"$(dirname "$0")/ensure-debs.sh" host-debuggers "${packages[@]}"
