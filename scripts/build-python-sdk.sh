#!/usr/bin/env bash
# Builds the Python client's wheel (enclave-sandbox-client) with Debian's pip, setuptools and wheel:
# no index, no build isolation (nothing is fetched). The sources are copied first so the build leaves
# nothing in clients/python. Prints the wheel's path.
#   usage: scripts/build-python-sdk.sh [OUT_DIR]   (default dist/packages, beside the Node client's tarball)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/dist/packages}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$repo/clients/python/pyproject.toml" "$repo/clients/python/README.md" "$repo/clients/python/src" "$tmp/"
cp "$repo/LICENSE" "$tmp/LICENSE"
find "$tmp" \( -name __pycache__ -o -name '*.egg-info' -o -name .mypy_cache \) -prune -exec rm -rf {} +
mkdir -p "$out"
rm -f "$out"/enclave_sandbox_client-*.whl
/usr/bin/python3 -m pip wheel --quiet --no-deps --no-build-isolation --no-index --wheel-dir "$out" "$tmp" >&2
ls "$out"/enclave_sandbox_client-*.whl
