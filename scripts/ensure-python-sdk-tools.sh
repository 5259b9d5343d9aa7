#!/usr/bin/env bash
# The Python client's tools, from Debian: protoc and grpc's Python plugin (its stubs are generated
# from proto/ with them), the runtime the wheel depends on (grpcio 1.51, protobuf 3.21), and what
# builds, installs, tests and type-checks it (setuptools, wheel, pip, venv, pytest, mypy). All for
# /usr/bin/python3, whose modules a venv made with --system-site-packages sees.
set -euo pipefail
exec "$(dirname "$0")/ensure-debs.sh" python-sdk python3 protobuf-compiler protobuf-compiler-grpc python3-grpcio python3-protobuf \
  python3-setuptools python3-wheel python3-pip python3-venv python3-pytest python3-mypy
