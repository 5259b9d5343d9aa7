#!/usr/bin/env bash
# Host-placement kernels and their peer: make sure Debian's Python data stack (the Python kernel's
# pandas and matplotlib when a conversation runs on the host) and Jupyter (ipykernel +
# jupyter_client, the peer `make bench` measures against) are installed for /usr/bin/python3.
set -euo pipefail
exec "$(dirname "$0")/ensure-debs.sh" host-kernels python3 python3-pip python3-venv python3-pandas python3-matplotlib python3-ipykernel python3-jupyter-client
