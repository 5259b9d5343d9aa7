# Enclave: `make run` sets up and serves (host placement, no Docker needed); `make test` sets up
# everything the tests need (Docker engine, images) and runs them.
.PHONY: run test build deps gen docker images bench clean chromium

deps: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

build: deps
	node scripts/build.mjs

gen: deps
	node scripts/gen-proto.mjs

run: build
	./bin/enclave serve

docker:
	bash images/ensure-docker.sh

images: build docker
	node dist/images/pipeline/main.js

# The console's browser tests drive Debian's Chromium (installed when absent).
chromium:
	bash test/browser/ensure-chromium.sh

test: images chromium
	npx vitest run

bench: images
	node dist/test/bench/run-all.js

clean:
	rm -rf dist
