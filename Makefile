# The README's commands. Each creates .venv on first use and installs the pinned dependencies.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: gate test test-slow bench fuzz lint clean java-check

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PY) >/dev/null 2>&1 || { echo "assigncheck needs Python 3.11: install python3.11 (and python3.11-venv)"; exit 1; }
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

java-check:
	@command -v java >/dev/null 2>&1 || { echo "assigncheck needs Java 17 for Spark: install openjdk-17-jre-headless"; exit 1; }

gate: $(STAMP) java-check
	$(BIN)/assigncheck gate --profile quick --report-dir reports

test: $(STAMP) java-check
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: $(STAMP) java-check
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP) java-check
	$(BIN)/python -m benchmarks

fuzz: $(STAMP)
	$(BIN)/assigncheck fuzz --target all --seconds 60

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build dist *.egg-info reports
