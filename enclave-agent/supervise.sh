#!/bin/sh
# Keeps the enclave agent up inside an enclosure: when it dies (killed mid-call, crashed) it is
# started again half a second later, so the next call finds it. The container's init reaps.
here=$(dirname "$0")
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' TERM INT
while :; do
  node "$here/enclave-agent.mjs" "$@" &
  child=$!
  wait "$child"
  echo "enclave-agent exited ($?); restarting" >&2
  sleep 0.5
done
