#!/usr/bin/env bash
# One set-up step of `make run`, for a person: a line with its name and time when it succeeds
# (`✓ host sandbox (bubblewrap, seccomp) 0.4 s`); when it fails, that line, the last lines of its
# output and where the whole of it is. The output (apt's, dpkg's, npm's, tsc's) goes to a log file
# under .enclave/logs/steps/, never to the terminal unless the step fails. Exits with the step's status.
#   usage: scripts/step.sh NAME -- COMMAND [ARG...]
set -uo pipefail
if [ $# -lt 3 ] || [ "$2" != "--" ]; then
  echo "usage: scripts/step.sh NAME -- COMMAND [ARG...]" >&2
  exit 2
fi
name=$1
shift 2
dir=${ENCLAVE_STEP_LOG_DIR:-"$(dirname "$0")/../.enclave/logs/steps"}
mkdir -p "$dir"
log="$dir/$(printf '%s' "$name" | tr -cs 'A-Za-z0-9' '-' | sed 's/^-//; s/-$//').log"
tail_lines=${ENCLAVE_STEP_TAIL_LINES:-30}
start=$(date +%s%N)
# No terminal for the step: nothing in it may prompt, and its progress bars stay out of the log.
"$@" >"$log" 2>&1 </dev/null
status=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
seconds="$((elapsed / 1000)).$(( (elapsed % 1000) / 100 ))"
if [ "$status" -eq 0 ]; then
  printf '✓ %s %s s\n' "$name" "$seconds"
  exit 0
fi
printf '✗ %s failed after %s s (exit status %d); its last lines:\n' "$name" "$seconds" "$status"
tail -n "$tail_lines" "$log" | sed 's/^/    /'
printf '  (all of it: %s)\n' "$(realpath "$log")"
exit "$status"
