# The README's commands. Each creates .venv on first use and installs the pinned dependencies.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: gate test test-slow bench figures fuzz lint clean java-check browser franz-go

JARS := $(VENV)/.kafka-jars

# The model's compiled helpers (native/: Rust, pyo3 pinned in native/Cargo.lock, fetched from crates.io) are built
# by cargo during the install, in place beside their Python modules. The editable install maps the package to
# src/assigncheck, so an edit to a Python file shows at once; the stamp re-installs when the build inputs change.
NATIVE := native/Cargo.toml native/Cargo.lock $(wildcard native/*/Cargo.toml native/*/src/*.rs native/src/*.rs)

$(STAMP): pyproject.toml constraints.txt $(NATIVE)
	@command -v $(PY) >/dev/null 2>&1 || { echo "assigncheck needs Python 3.11: install python3.11 (and python3.11-venv)"; exit 1; }
	@command -v cargo >/dev/null 2>&1 || { echo "assigncheck's compiled helpers need Rust's cargo (https://rustup.rs): install rust"; exit 1; }
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

# Kafka's pinned jars (kafka-clients 3.9.1, kafka-group-coordinator 4.0.0, 4.1.0 and 4.4.0, kafka-streams 4.4.0, the 4.4.0
# broker) from Maven Central, into
# $$XDG_CACHE_HOME/assigncheck/maven: the java: targets' defaults, the tests' and the benchmarks'.
$(JARS): $(STAMP) src/assigncheck/toolchains/maven.py
	$(BIN)/python -m assigncheck.toolchains.maven
	@touch $(JARS)

# franz-go's balancers as a cmd2: target (examples/franz-go/: our driver, franz-go pinned in its go.mod and go.sum),
# built to one path in every clone: the franz-go findings name it, the tests replay them, the benchmarks time it.
FRANZ_GO := $(VENV)/bin/franz-go-driver

$(FRANZ_GO): examples/franz-go/go.mod examples/franz-go/go.sum $(wildcard examples/franz-go/*.go)
	@command -v go >/dev/null 2>&1 || \
	  { echo "assigncheck's franz-go target needs Go 1.26 or later (https://go.dev/dl/): install go"; exit 1; }
	@mkdir -p $(@D)
	cd examples/franz-go && go build -trimpath -buildvcs=false -o $(abspath $@) .

# franz-go's kgo consumer as a live group's member (examples/franz-go/member/, the same module and pin).
FRANZ_GO_MEMBER := $(VENV)/bin/franz-go-member

$(FRANZ_GO_MEMBER): examples/franz-go/go.mod examples/franz-go/go.sum $(wildcard examples/franz-go/member/*.go)
	@command -v go >/dev/null 2>&1 || \
	  { echo "assigncheck's franz-go live members need Go 1.26 or later (https://go.dev/dl/): install go"; exit 1; }
	@mkdir -p $(@D)
	cd examples/franz-go && go build -trimpath -buildvcs=false -o $(abspath $@) ./member

franz-go: $(FRANZ_GO) $(FRANZ_GO_MEMBER)

java-check:
	@command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 || \
	  { echo "assigncheck needs Java 17 (Spark, the Java example target): install openjdk-17-jdk-headless"; exit 1; }
	@command -v mvn >/dev/null 2>&1 || \
	  { echo "assigncheck needs Maven for Kafka's jars (java: targets): install maven"; exit 1; }

# The HTML report test renders in a real headless Chromium (Debian's package; no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the HTML report test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "the HTML report test needs Chromium: sudo apt-get install chromium"; exit 1; fi; }

gate: java-check $(JARS)
	$(BIN)/assigncheck gate --profile quick --report-dir reports

test: java-check browser $(JARS) $(FRANZ_GO) $(FRANZ_GO_MEMBER)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -m "not slow" --durations=40

test-slow: java-check $(JARS) $(FRANZ_GO) $(FRANZ_GO_MEMBER)
	$(BIN)/python -m pytest -q -m slow

# Each benchmark writes its results file (benchmarks/results/); `make figures` renders the docs' tables from them.
bench: java-check $(JARS) $(FRANZ_GO)
	$(BIN)/python -m benchmarks

figures: $(STAMP)
	$(BIN)/python -m benchmarks.figures

fuzz: $(STAMP)
	$(BIN)/assigncheck fuzz --target all --seconds 20

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist *.egg-info reports .mypy_cache
