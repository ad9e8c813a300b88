# Reverie's entry points. `make run` and `make test` set everything up on a fresh machine:
# a .venv in the checkout, the package, the Neo4j jars and the embedding model (both cached
# under $REVERIE_HOME, downloaded from Maven Central by Reverie itself: no Maven needed).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
INSPECTOR_DIR ?= $(HOME)/.cache/reverie/inspector
INSPECTOR_VERSION := 2.12.0
LOCOMO ?= ../shared/data/locomo-dev
# Test processes at once (pytest-xdist); each loads the model and opens its own connections.
TEST_WORKERS ?= 2

.PHONY: setup run test lint bench bench-quick bench-locomo bench-dreams inspector browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,speed]'
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

# The review page tests drive Debian's headless Chromium; as root it is installed when missing.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else \
	    echo "The review page tests need chromium and chromium-driver: sudo apt-get install chromium chromium-driver" >&2; \
	    exit 1; \
	  fi; }

# The suite also needs a second model, to prove two models' vectors never meet in one search.
test: setup inspector browser
	$(BIN)/reverie embeddings install --model all-minilm-l6-v2
	REVERIE_INSPECTOR=$(INSPECTOR_DIR)/node_modules/.bin/mcp-inspector $(BIN)/python -m pytest -n $(TEST_WORKERS) --durations=15

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

# Dream quality on LoCoMo conversations and a synthetic profile (`make bench-dreams LOCOMO=dir`).
bench-dreams: setup
	$(BIN)/python -m bench.dream_quality --data $(LOCOMO)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache bench/results
