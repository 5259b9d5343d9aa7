#!/bin/sh
# Keeps the enclave agent up inside an enclosure: when it dies (killed mid-call, crashed) it is
# started again half a second later, so the next call finds it. The container's init reaps.
# The agent's state folder (apply journal, kernel environments) is made once here, private and with
# an unpredictable name, and given to every restart: an apply the dead agent left half done is
# finished by the next one.
# It runs on ENCLAVE_NODE when the control plane injected a Node into an image of the user's, else on
# the image's own `node`.
# No dirname or chmod: under gVisor every program started costs ~20-30 ms of an enclosure's start, so
# the folder is cut from $0 by the shell, and mktemp (run with umask 077 in the command substitution's
# subshell) makes the state folder 0700 itself.
# The Node flags are the agent's everywhere (proto/src/agent-node-flags.ts; a unit test holds them equal).
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
state=$(umask 077 && mktemp -d "${TMPDIR:-/tmp}/enclave-agent-XXXXXXXXXX") || { echo "enclave-agent supervisor: cannot make a state folder" >&2; exit 1; }
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; rm -rf "$state"; exit 0' TERM INT
while :; do
  "${ENCLAVE_NODE:-node}" --max-semi-space-size=1 "$here/enclave-agent.mjs" "$@" --state-dir "$state" &
  child=$!
  wait "$child"
  echo "enclave-agent exited ($?); restarting" >&2
  sleep 0.5
done
