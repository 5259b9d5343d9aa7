#!/bin/sh
# The relay the control plane execs inside an enclosure (one per connection): Perl's when the image
# has Perl (small and quick to start), else Node's. Both join stdin/stdout to the agent's socket.
here=$(dirname "$0")
if command -v perl >/dev/null 2>&1; then exec perl "$here/relay.pl" "$@"; fi
exec node "$here/relay.mjs" "$@"
