# The README's commands. Each creates .venv on first use and installs the pinned dependencies.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: gate test test-slow bench figures fuzz lint clean java-check browser franz-go go-programs java-drivers js

JARS := $(VENV)/.kafka-jars

# The compiled helpers (native/: a Cargo workspace of Rust, pyo3 pinned in native/Cargo.lock, fetched from crates.io)
# are built by cargo during the install, in place beside their Python modules (spec/native, impl/native). The
# editable install maps the package to src/assigncheck, so an edit to a Python file shows at once; the stamp
# re-installs when the build inputs change: any crate's manifest or source.
NATIVE := native/Cargo.toml native/Cargo.lock $(wildcard native/*/Cargo.toml native/*/src/*.rs)

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

# The Java drivers (src/assigncheck/drivers/java/: the java: bridge, the live member), compiled by Maven with every
# javac lint as an error against the pinned Kafka version (its pom.xml). This build fetches Maven's plugins and
# Kafka's API from Maven Central into ~/.m2, so the tests build offline (tests/drivers/, and examples/java-assignor/,
# which uses the same plugins and the kafka-clients of $(JARS)). Its classes go to .venv/java-drivers.
JAVA_DRIVERS := $(VENV)/.java-drivers
JAVA_DRIVER_FILES := src/assigncheck/drivers/java/pom.xml \
	$(wildcard src/assigncheck/drivers/java/src/main/java/io/assigncheck/*/*.java)

$(JAVA_DRIVERS): $(JARS) $(JAVA_DRIVER_FILES)
	mvn -q -B -f src/assigncheck/drivers/java/pom.xml compile -Dassigncheck.build=$(abspath $(VENV))/java-drivers
	@touch $@

# The Go module (go/: the cmd2: protocol, a package per Go client, its programs in go/cmd/; the clients pinned in
# its go.mod and go.sum, fetched through the Go module proxy). Each program is built to one path in every clone,
# .venv/bin/NAME: the findings name the drivers by it, the tests replay them, the benchmarks time franz-go's.
GO_SOURCES := go/go.mod go/go.sum $(shell find go -name '*.go' -not -name '*_test.go' 2>/dev/null)
FRANZ_GO := $(BIN)/franz-go-driver
FRANZ_GO_MEMBER := $(BIN)/franz-go-member
GO_PROGRAMS := $(FRANZ_GO) $(FRANZ_GO_MEMBER) $(BIN)/sarama-driver $(BIN)/kafka-go-driver

$(GO_PROGRAMS): $(BIN)/%: $(GO_SOURCES)
	@command -v go >/dev/null 2>&1 || \
	  { echo "assigncheck's Go programs (go/) need Go 1.26 or later (https://go.dev/dl/): install go"; exit 1; }
	@mkdir -p $(@D)
	cd go && go build -trimpath -buildvcs=false -o $(abspath $@) ./cmd/$*

go-programs: $(GO_PROGRAMS)

franz-go: $(FRANZ_GO) $(FRANZ_GO_MEMBER)

java-drivers: java-check $(JAVA_DRIVERS)

# The JavaScript package (js/: KafkaJS pinned in its package.json and package-lock.json, from npm) and the example
# that gates an assigner with it (examples/kafkajs-assigner/, which links js/), each installed by `npm ci`; the stamp
# is the lockfile npm ci writes into node_modules. make test runs their `node --test` suites (tests/js/) and KafkaJS's
# findings (tests/findings/test_kafkajs_findings.py).
JS := js/node_modules/.package-lock.json
JS_EXAMPLE := examples/kafkajs-assigner/node_modules/.package-lock.json
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

$(JS): js/package.json js/package-lock.json
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || \
	  { echo "assigncheck's JavaScript package needs Node.js 20 and npm (https://nodejs.org): install nodejs and npm"; exit 1; }
	cd js && $(NPM_CI)
	@touch $@

$(JS_EXAMPLE): examples/kafkajs-assigner/package.json examples/kafkajs-assigner/package-lock.json $(JS)
	cd examples/kafkajs-assigner && $(NPM_CI)
	@touch $@

js: $(JS) $(JS_EXAMPLE)

java-check:
	@command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 || \
	  { echo "assigncheck needs Java 17 (Spark, java: targets, the Java drivers' build): install openjdk-17-jdk-headless"; exit 1; }
	@command -v mvn >/dev/null 2>&1 || \
	  { echo "assigncheck needs Maven for Kafka's jars and the Java drivers' build: install maven"; exit 1; }

# The HTML report test renders in a real headless Chromium (Debian's package; no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the HTML report test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "the HTML report test needs Chromium: sudo apt-get install chromium"; exit 1; fi; }

gate: java-check $(JARS)
	$(BIN)/assigncheck gate --profile quick --report-dir reports

test: java-check browser $(JARS) $(JAVA_DRIVERS) $(GO_PROGRAMS) js
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -m "not slow" --durations=40

test-slow: java-check $(JARS) $(JAVA_DRIVERS) $(GO_PROGRAMS) js
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
	rm -rf $(VENV) build dist *.egg-info reports .mypy_cache js/node_modules examples/kafkajs-assigner/node_modules
