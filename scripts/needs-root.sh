#!/usr/bin/env bash
# Before `make run` sets anything up: asks each set-up step which Debian packages it would install
# (ENSURE_DEBS_LIST, see ensure-debs.sh) and, when some are missing and this is not root, says so
# plainly, all at once, with the one command that installs them, and exits 1, instead of failing
# halfway through the steps. Optional packages are named and skipped. Quiet when nothing is missing.
#   usage: scripts/needs-root.sh SCRIPT...   (the ensure scripts `make run` runs)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then exit 0; fi
required=()
optional=()
lines=()
for script in "$@"; do
  while IFS=$'\t' read -r tag packages; do
    [ -n "$tag" ] || continue
    read -r -a names <<<"$packages"
    if [[ "$tag" == *"(optional)"* ]]; then optional+=("${names[@]}"); else required+=("${names[@]}"); fi
    lines+=("$(printf '  %-28s %s' "$tag" "$packages")")
  done < <(ENSURE_DEBS_LIST=1 bash "$script" 2>/dev/null)
done
if [ ${#optional[@]} -gt 0 ] && [ ${#required[@]} -eq 0 ]; then
  echo "Note: ${optional[*]} not installed (optional; installing needs root: sudo apt-get install -y ${optional[*]}); going on without."
fi
[ ${#required[@]} -gt 0 ] || exit 0
# One package can be asked for by two steps.
mapfile -t all < <(printf '%s\n' "${required[@]}" "${optional[@]}" | awk '!seen[$0]++')
cat <<MSG
make run needs Debian packages that are not installed, and installing them needs root
(you are $(id -un), uid $(id -u)). By the step that wants them:
$(printf '%s\n' "${lines[@]}")
Install them once, then run \`make run\` again (it sets up the rest without root):
  sudo apt-get install -y --no-install-recommends ${all[*]}
MSG
command -v apt-get >/dev/null 2>&1 || echo "(apt-get is not on this machine: install the same packages with its package manager.)"
exit 1
