# Reverie's entry points. `make run` and `make test` set everything up on a fresh machine:
# a .venv in the checkout, the package, the Neo4j jars and the embedding model (both cached
# under $REVERIE_HOME, downloaded from Maven Central by Reverie itself: no Maven needed).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
INSPECTOR_DIR ?= $(HOME)/.cache/reverie/inspector
INSPECTOR_VERSION := 2.12.0
# The MCPB CLI (Claude Desktop bundles) on a Node 22 of its own, both from npm, cached under $HOME.
MCPB_DIR ?= $(HOME)/.cache/reverie/mcpb
MCPB_VERSION := 2.1.2
NODE22_DIR ?= $(HOME)/.cache/reverie/node22
NODE22_PLATFORM ?= linux-x64
NODE22_VERSION := 22.23.3
NODE22 := $(NODE22_DIR)/node_modules/node-$(NODE22_PLATFORM)/bin/node
MCPB_CLI := $(MCPB_DIR)/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js
MCPB := $(NODE22) $(MCPB_CLI)
# The MCP conformance suite (an alpha: pinned exactly), on the same Node 22, cached under $HOME.
CONFORMANCE_DIR ?= $(HOME)/.cache/reverie/conformance
CONFORMANCE_VERSION := 0.2.0-alpha.12
CONFORMANCE_PACKAGE := $(CONFORMANCE_DIR)/node_modules/@modelcontextprotocol/conformance
CONFORMANCE := $(NODE22) $(CONFORMANCE_PACKAGE)/dist/index.js
BUNDLE_STAGE := build/mcpb
LOCOMO ?= ../shared/data/locomo-dev
# The seeds of the synthetic dream lanes (`make bench-dream-lanes SEEDS=1,2`): from 101 on the
# finder's constants may be tuned on them, below they are held out; the default shows one of each.
SEEDS ?= 101,1
# The pinned dependencies (with extras dev and speed) for Linux x86-64 and Python 3.11, written by
# `make lock` with the uv the dev extra installs; LOCK_ARGS passes it more, e.g. --upgrade-package mcp.
LOCK := requirements.lock
LOCK_ARGS ?=
# Test processes at once (pytest-xdist); each loads the model and opens its own connections.
# Work stealing: a worker that runs out takes tests queued for the other, so neither ends alone
# (with plain load balancing, one worker ran a module's page tests for two minutes at the end).
TEST_WORKERS ?= 2

.PHONY: setup lock run test lint bench bench-quick bench-locomo bench-dreams bench-dream-lanes bench-claims inspector node22 mcpb conformance bundle browser balancer clean

# Every dependency at the version and hashes requirements.lock pins, then Reverie itself without
# dependencies, so a checkout installs the same versions today and next month. pip installs only
# uv, from its own entry in the lock (pin and hashes), and uv the rest: pip took about 30 s here
# for what uv, from its cache, installs in 2.
$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	sed -n '/^uv==/,/# via/p' $(LOCK) > $(VENV)/uv-requirement.txt
	$(BIN)/python -m pip install --quiet --no-deps --require-hashes -r $(VENV)/uv-requirement.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes -r $(LOCK)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)
	$(BIN)/reverie neo4j install
	$(BIN)/reverie embeddings install

# Serve over Streamable HTTP on 127.0.0.1 with the managed Neo4j and the nightly scheduler.
run: setup
	$(BIN)/reverie serve --transport http

inspector:
	@test -x $(INSPECTOR_DIR)/node_modules/.bin/mcp-inspector || \
	  (mkdir -p $(INSPECTOR_DIR) && cd $(INSPECTOR_DIR) && \
	   npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@$(INSPECTOR_VERSION))

# Without npm there is nothing to install: the tests that need these then skip, saying so (on CI,
# with CI=true, they fail instead).
node22:
	@if ! command -v npm >/dev/null; then echo "npm is missing: no Node 22, no MCPB CLI, no conformance suite" >&2; exit 0; fi; \
	test "$$($(NODE22) --version 2>/dev/null)" = v$(NODE22_VERSION) || \
	  npm install --prefix $(NODE22_DIR) --no-audit --no-fund --loglevel=error node-$(NODE22_PLATFORM)@$(NODE22_VERSION)

mcpb: node22
	@if ! command -v npm >/dev/null; then exit 0; fi; \
	grep -qs '"version": "$(MCPB_VERSION)"' $(MCPB_DIR)/node_modules/@anthropic-ai/mcpb/package.json || \
	  npm install --prefix $(MCPB_DIR) --no-audit --no-fund --loglevel=error @anthropic-ai/mcpb@$(MCPB_VERSION)

conformance: node22
	@if ! command -v npm >/dev/null; then exit 0; fi; \
	grep -qs '"version": "$(CONFORMANCE_VERSION)"' $(CONFORMANCE_PACKAGE)/package.json || \
	  npm install --prefix $(CONFORMANCE_DIR) --no-audit --no-fund --loglevel=error --save-exact \
	    @modelcontextprotocol/conformance@$(CONFORMANCE_VERSION)

# dist/reverie.mcpb for Claude Desktop: the manifest, its entry point and what `uv run` installs.
bundle: mcpb
	rm -rf $(BUNDLE_STAGE) && mkdir -p $(BUNDLE_STAGE) dist
	cp -R server graph scheduler pyproject.toml README.md $(BUNDLE_STAGE)/
	cp packaging/mcpb/manifest.json packaging/mcpb/main.py packaging/mcpb/.mcpbignore $(BUNDLE_STAGE)/
	$(MCPB) pack $(BUNDLE_STAGE) dist/reverie.mcpb

# The review page tests drive Debian's headless Chromium; as root it is installed when missing.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else \
	    echo "The review page tests need chromium and chromium-driver: sudo apt-get install chromium chromium-driver" >&2; \
	    exit 1; \
	  fi; }

# The tests and the capacity lane of several servers put Debian's HAProxy in front of them.
balancer:
	@command -v haproxy >/dev/null || test -x /usr/sbin/haproxy || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; \
	  else \
	    echo "The tests of several servers need haproxy: sudo apt-get install haproxy" >&2; \
	    exit 1; \
	  fi; }

# The suite also needs a second model, to prove two models' vectors never meet in one search.
test: setup inspector mcpb conformance browser balancer
	$(BIN)/reverie embeddings install --model all-minilm-l6-v2
	REVERIE_INSPECTOR=$(INSPECTOR_DIR)/node_modules/.bin/mcp-inspector REVERIE_MCPB="$(MCPB)" \
	  REVERIE_CONFORMANCE="$(CONFORMANCE)" \
	  $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not crowd" --durations=15
	$(BIN)/python -m pytest -m crowd --durations=5

# Pins kept where the ranges in pyproject.toml still allow them (uv reads the lock it rewrites).
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --quiet --extra dev --extra speed --generate-hashes \
	  --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
	  --custom-compile-command "make lock" -o $(LOCK) $(LOCK_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m bench

bench-quick: setup
	$(BIN)/python -m bench --quick

# Recall on LoCoMo conversations through the MCP tools, beside BM25 (`make bench-locomo LOCOMO=dir`).
bench-locomo: setup
	$(BIN)/python -m bench.locomo --data $(LOCOMO)

# Dream quality on LoCoMo conversations and a synthetic profile (`make bench-dreams LOCOMO=dir`),
# then the synthetic lanes nobody tuned for.
bench-dreams: setup
	$(BIN)/python -m bench.dream_quality --data $(LOCOMO)
	$(BIN)/python -m bench.dream_lanes --seeds $(SEEDS)

# Dreams on the independent synthetic lanes (bench/dreamgen): the finder, the host model's
# candidates, an oracle and a random host, side by side (`make bench-dream-lanes SEEDS=1,2`).
bench-dream-lanes: setup
	$(BIN)/python -m bench.dream_lanes --seeds $(SEEDS)

# Claim verifiers on the labelled claims in bench/claims; needs neither Neo4j nor the model.
bench-claims: $(STAMP)
	$(BIN)/python -m bench.claims

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache bench/results
