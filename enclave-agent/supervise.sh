#!/bin/sh
# Keeps the enclave agent up inside an enclosure: when it dies (killed mid-call, crashed) it is
# started again half a second later, so the next call finds it. The container's init reaps.
# The agent's state folder (apply journal, kernel environments) is made once here, private and with
# an unpredictable name, and given to every restart: an apply the dead agent left half done is
# finished by the next one.
# It runs on ENCLAVE_NODE when the control plane injected a Node into an image of the user's, else on
# the image's own `node`.
here=$(dirname "$0")
state=$(mktemp -d "${TMPDIR:-/tmp}/enclave-agent-XXXXXXXXXX") || { echo "enclave-agent supervisor: cannot make a state folder" >&2; exit 1; }
chmod 700 "$state"
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; rm -rf "$state"; exit 0' TERM INT
while :; do
  "${ENCLAVE_NODE:-node}" "$here/enclave-agent.mjs" "$@" --state-dir "$state" &
  child=$!
  wait "$child"
  echo "enclave-agent exited ($?); restarting" >&2
  sleep 0.5
done
