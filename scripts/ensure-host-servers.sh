#!/usr/bin/env bash
# Installs on the host the language servers that host placement (and its tests) use, when absent:
# the runtime image's npm packages (pyright, typescript-language-server, bash-language-server) into
# the project-local .enclave/host-tools, and clangd and gopls from Debian. Idempotent and quick when present.
# The host agent finds the npm servers through PATH: prepend .enclave/host-tools/node_modules/.bin.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.enclave/host-tools
list=images/runtime/npm-packages.txt
stamp="$(sha256sum "$list" | cut -c1-16)"
if [ -z "${ENSURE_DEBS_LIST:-}" ] && [ "$(cat "$dir/.stamp" 2>/dev/null || true)" != "$stamp" ]; then
  mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --omit=dev "${pkgs[@]}" >&2
  echo "$stamp" > "$dir/.stamp"
fi
# Debian's clangd and gopls (the runtime image carries both).
missing=()
command -v clangd >/dev/null 2>&1 || missing+=(clangd)
command -v gopls >/dev/null 2>&1 || missing+=(gopls)
# Optional: without them host placement runs, and the lsp tool says which server is missing.
if [ ${#missing[@]} -gt 0 ]; then
  scripts/ensure-debs.sh "host-servers (optional)" "${missing[@]}" || echo "ensure-host-servers: ${missing[*]} missing and cannot be installed here (needs root and apt-get)" >&2
fi
[ -n "${ENSURE_DEBS_LIST:-}" ] || echo "$PWD/$dir/node_modules/.bin"
