# Enclave: `make run` sets up and serves (host placement, no Docker needed); `make test` sets up
# everything the tests need (Docker engine, images) and runs them.
.PHONY: run test build deps gen docker images bench clean host-servers

deps: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

build: deps
	node scripts/build.mjs

gen: deps
	node scripts/gen-proto.mjs

run: build host-servers
	./bin/enclave serve

docker:
	bash images/ensure-docker.sh

images: build docker
	node dist/images/pipeline/main.js

test: images host-servers host-debuggers
	npx vitest run

bench: images host-servers host-debuggers
	node dist/test/bench/run-all.js

clean:
	rm -rf dist

# Language servers for host placement (npm ones into .enclave/host-tools, clangd from Debian).

host-servers:
	bash scripts/ensure-host-servers.sh >/dev/null
# Host placement runs debug adapters on the host: install the ones the runtime image carries.
.PHONY: host-debuggers
host-debuggers:
	bash scripts/ensure-host-debuggers.sh
