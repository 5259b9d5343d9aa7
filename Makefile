# Enclave: `make run` sets up and serves (host placement, no Docker needed); `make test` sets up
# everything the tests need (Docker engine, images) and runs them.
.PHONY: run check test build deps gen docker images static-cc bench fidelity clean host-tools host-servers host-debuggers host-kernels host-sandbox chromium registry packages python-sdk python-sdk-tools

deps: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json */package.json clients/node/package.json
	bash scripts/npm-ci.sh

build: deps static-cc
	node scripts/build.mjs

# The build links the audit's in-enclosure reader statically: a C compiler and glibc's static library.
static-cc:
	bash scripts/ensure-static-cc.sh

gen: deps python-sdk-tools
	node scripts/gen-proto.mjs
	bash scripts/gen-python-proto.sh
	node scripts/build.mjs
	node scripts/gen-tool-types.mjs
	python3 scripts/gen-python-tool-types.py

packages: build python-sdk
	bash scripts/build-packages.sh

# The Python client: its tools from Debian (protoc and grpc's plugin for the stubs, the grpcio and
# protobuf it runs on, pip, pytest and mypy), and its wheel in dist/packages.
python-sdk-tools:
	bash scripts/ensure-python-sdk-tools.sh

python-sdk: python-sdk-tools
	bash scripts/build-python-sdk.sh

# One line per set-up step with its time, what needs root said up front (scripts/make-run.sh).
run:
	@bash scripts/make-run.sh

docker:
	bash images/ensure-docker.sh

images: build docker
	node images/dist/pipeline/main.js

# What host placement runs, installed on the host when absent: the bubblewrap sandbox and its account,
# language servers, debug adapters, the Python data stack for kernels (and Jupyter, the kernels'
# benchmark peer).
host-tools: host-sandbox host-servers host-debuggers host-kernels

host-sandbox:
	bash scripts/ensure-host-sandbox.sh

host-kernels:
	bash scripts/ensure-host-kernels.sh

# The image pipeline's tests push to a registry of their own on loopback: Debian's docker-registry.
registry:
	bash scripts/ensure-registry.sh

# The console's browser tests drive Debian's Chromium (installed when absent).
chromium:
	bash test/browser/ensure-chromium.sh

# The fast lane, no Docker: the protos' lint and wire compatibility with main, typecheck (the build's
# tsc; unit tests start the built agent), lint (ESLint with typescript-eslint), the format (Prettier, .prettierrc.json), the unit tests (vitest's
# `unit` project: test/unit and the *.test.ts beside the packages' modules). The
# unit tests start host kernels, so Debian's Python data stack comes first (no Docker needed for it), and
# check the Python client's stubs with Debian's protoc (python-sdk-tools).
BREAKING_BASE ?= $(shell git rev-parse -q --verify main >/dev/null && echo main || echo origin/main)
check: deps static-cc host-kernels python-sdk-tools
	npx buf lint proto
	npx buf breaking proto --against '.git#ref=$(BREAKING_BASE),subdir=proto'
	node scripts/build.mjs
	npx eslint --max-warnings 0 .
	npx prettier --check --log-level warn .
	npx vitest run --project unit

test: check images host-tools chromium registry python-sdk fresh-check
	npx vitest run

# `make check` again in a container that has only Node 20, npm, git and make (the project's own
# Debian base image), on a clone of HEAD: proves the fast lane installs all it needs on a fresh
# machine, which this one, with everything installed long ago, cannot show. About 11 minutes; bounded
# (FRESH_CHECK_TIMEOUT); stops with a plain message where no Docker engine answers.
.PHONY: fresh-check
fresh-check: build docker
	bash scripts/fresh-check.sh "$$(node images/dist/pipeline/main.js --base)"

bench: images host-tools
	node dist/test/bench/run-all.js

# The differential suites beside the reference tools over their whole corpora (`make test` runs a
# bounded subset of each): structural search beside @ast-grep/cli (agreement figures, every
# disagreement classed, the subset again through the ast_grep tool on host placement and in an
# enclosure, docs/fidelity/ast-grep.md written); eval's kernels beside Jupyter and Node's REPL, and
# lsp and debug beside direct clients of the same language servers and debug adapters, each on host
# placement and in an enclosure (PLACEMENTS=host|enclosure|host,enclosure; figures written to docs/fidelity/).
.PHONY: fidelity fidelity-ast fidelity-eval fidelity-lsp
fidelity: fidelity-ast fidelity-eval fidelity-lsp
fidelity-ast: build images
	node dist/test/fidelity/run.js
fidelity-eval: build images host-kernels
	node dist/test/fidelity/eval-fidelity.js
fidelity-lsp: build images host-tools
	node dist/test/fidelity/lsp-debug-full.js

clean:
	rm -rf dist proto/dist enclave-agent/dist clients/node/dist control-plane/dist images/dist test/kit/dist

# Language servers (npm ones into .enclave/host-tools, clangd from Debian).
host-servers:
	bash scripts/ensure-host-servers.sh >/dev/null

# The debug adapters the runtime image carries.
host-debuggers:
	bash scripts/ensure-host-debuggers.sh
