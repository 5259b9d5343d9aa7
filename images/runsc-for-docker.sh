#!/bin/sh
# runsc as the Docker engine runs it (`make docker` installs this and registers it as the runtime
# `runsc`), with one change: the `delete` containerd's shim asks for once a container exited is forced.
# Why: Docker checkpoints a container by pausing it, saving it, and resuming it; once the save has
# stopped the sandbox, the resume fails. For a container started fresh runsc cleans up all the same,
# but for one restored from a checkpoint (a resumed enclosure) Debian's runsc (2022-12) keeps its state
# "paused" and refuses the shim's plain delete, so the next restore into the same container fails with
# "id already in use" — the second pause/resume cycle would never work. A forced delete removes that
# state (this runsc then panics on the paused => stopped transition, after the removal); the delete
# counts as done when runsc no longer knows the container. Every other command passes through as is.
set -u
RUNSC=${ENCLAVE_RUNSC:-/usr/bin/runsc}

delete_at=0
i=0
for arg in "$@"; do
  i=$((i + 1))
  if [ "$arg" = delete ]; then delete_at=$i; break; fi
done
[ "$delete_at" -eq 0 ] && exec "$RUNSC" "$@"

# The global flags (before `delete`) and the container id (the last argument).
globals=""
id=""
i=0
for arg in "$@"; do
  i=$((i + 1))
  id=$arg
done
i=0
for arg in "$@"; do
  i=$((i + 1))
  [ "$i" -lt "$delete_at" ] || break
  globals="$globals $(printf "'%s'" "$(printf %s "$arg" | sed "s/'/'\\\\''/g")")"
done

# A plain delete first: the ordinary case is unchanged.
"$RUNSC" "$@" 2>/dev/null && exit 0
eval "\"\$RUNSC\" $globals delete --force \"\$id\"" >/dev/null 2>&1
eval "\"\$RUNSC\" $globals state \"\$id\"" >/dev/null 2>&1 && exit 1
exit 0
