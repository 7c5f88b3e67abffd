# The README's commands. Each creates .venv on first use and installs the pinned dependencies.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: gate test test-slow bench fuzz lint clean java-check browser

JARS := $(VENV)/.kafka-jars

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PY) >/dev/null 2>&1 || { echo "assigncheck needs Python 3.11: install python3.11 (and python3.11-venv)"; exit 1; }
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

# Kafka's pinned jars (kafka-clients 3.9.1, kafka-group-coordinator 4.0.0 and 4.4.0) from Maven Central, into
# $$XDG_CACHE_HOME/assigncheck/maven: the java: targets' defaults, the tests' and the benchmarks'.
$(JARS): $(STAMP) impl/targets/maven.py
	$(BIN)/python -m assigncheck.impl.targets.maven
	@touch $(JARS)

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

test: java-check browser $(JARS)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: java-check $(JARS)
	$(BIN)/python -m pytest -q -m slow

bench: java-check $(JARS)
	$(BIN)/python -m benchmarks

fuzz: $(STAMP)
	$(BIN)/assigncheck fuzz --target all --seconds 20

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build dist *.egg-info reports
