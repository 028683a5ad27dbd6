# One entry point. `make run` starts the service with demo data; `make test` runs everything CI runs.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
HOST   ?= 127.0.0.1
PORT   ?= 8000
STAMP  := $(VENV)/.installed

.PHONY: evaluate-runs help prereqs install node run test lint typecheck imports pytest bench evaluate contracts contracts-check clean

help:
	@echo "make run       start the service on http://$(HOST):$(PORT) (SQLite, Celery eager, demo data)"
	@echo "make test      install, then lint + types + import contracts + the whole test suite"
	@echo "make bench     run the benchmarks (see docs/benchmarks.md)"
	@echo "make evaluate  run the engine on the development sets (see docs/)"
	@echo "make evaluate-runs  the run verifier on every set, real-run corpora included (docs/metrics)"

# setup.py compiles some engine modules (mypyc): an edited engine source means a rebuild.
ENGINE_SOURCES := $(shell find verification/engine -name '*.py' 2>/dev/null)

# Everything install needs (Python with venv and headers, a C compiler, Node >= 20), checked before
# anything is built, with the Debian package for each missing piece (README: Set-up on a fresh machine).
prereqs:
	@PYTHON=$(PYTHON) sh .ci/check-prereqs

# setuptools prints an "Editable installation ... be careful with folders" banner on every editable
# install of a project with several top-level packages (ours is a flat layout on purpose); it is
# information, not a problem, so pip is told not to show it. (editable_mode=compat prints another.)
$(STAMP): pyproject.toml setup.py mypyc-build.ini $(ENGINE_SOURCES)
	@PYTHON=$(PYTHON) sh .ci/check-prereqs
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(PIP) install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) node

# `npm ci` installs exactly package-lock.json and never rewrites it (npm install would, on a machine
# whose platform packages differ), so installing leaves `git status` clean.
node_modules/.package-lock.json: package.json package-lock.json
	@PYTHON=$(PYTHON) sh .ci/check-prereqs
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

node: node_modules/.package-lock.json

# The embedded default: SQLite under var/, Celery eager, a development signing key in var/.
RUN_ENV = DEBUG=1 AUTO_REGISTER_AGENTS=1 TRUST_REGISTRY_SIGNING_KEY_FILE=var/dev-signing-key SITE_URL=http://$(HOST):$(PORT)

run: install
	$(RUN_ENV) $(PY) manage.py migrate --verbosity 0
	$(RUN_ENV) $(PY) manage.py seed_demo --host $(HOST) --port $(PORT) --signing-key-file var/dev-signing-key
	$(RUN_ENV) $(PY) manage.py runserver $(HOST):$(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy .

imports: $(STAMP)
	$(VENV)/bin/lint-imports

pytest: install
	@PYTHON=$(PYTHON) sh .ci/check-prereqs test
	$(VENV)/bin/pytest

test: lint typecheck imports contracts-check pytest

# The benchmarks also need the peers they compare against (the `bench` extra).
$(VENV)/.bench-installed: $(STAMP) pyproject.toml
	$(PIP) install --quiet -e '.[dev,bench]'
	touch $@

bench: install $(VENV)/.bench-installed
	$(PY) bench/run.py

evaluate: install
	$(PY) manage.py evaluate --task tool-results ../shared/eval/tool_streams_dev.jsonl --out docs/metrics/tool_streams_dev.json
	$(PY) manage.py evaluate --task groundedness ../shared/eval/groundedness_dev.jsonl --out docs/metrics/groundedness_dev.json
	$(PY) manage.py evaluate --task groundedness ../shared/eval/halueval_qa_dev.jsonl --out docs/metrics/halueval_qa_dev.json

# The run verifier's figures in docs/metrics (docs/run-verification.md): the shared sets, the real-run
# corpora of bench/corpora/runs and the long synthetic runs. The reports are the same compiled and
# interpreted (tests/engine_runs/test_runs_compiled.py); latency figures are the machine's.
RUN_SETS = agentdojo_clean agentdojo_perturbed_dev agentdojo_perturbed_heldout \
	tau_airline_clean_dev tau_airline_clean_heldout tau_airline_perturbed_dev tau_airline_perturbed_heldout \
	tau_airline_clean_dev2 tau_airline_perturbed_dev2 tau_airline_clean_heldout2 tau_airline_perturbed_heldout2 \
	tau_airline_clean_dev3 tau_airline_perturbed_dev3 tau_airline_clean_dev4 tau_airline_perturbed_dev4 \
	tau_airline_clean_dev5 tau_airline_perturbed_dev5 \
	tau_retail_clean_dev tau_retail_perturbed_dev \
	tau_retail_clean_dev2 tau_retail_perturbed_dev2 tau_retail_clean_heldout tau_retail_perturbed_heldout \
	tau_retail_clean_dev3 tau_retail_perturbed_dev3 tau_retail_clean_dev4 tau_retail_perturbed_dev4 \
	tau_retail_clean_dev5 tau_retail_perturbed_dev5 tau_retail_clean_dev6 tau_retail_perturbed_dev6 \
	tau_retail_clean_dev7 tau_retail_perturbed_dev7 \
	luna_clean_dev luna_perturbed_dev luna_clean_heldout luna_perturbed_heldout \
	luna_clean_dev2 luna_perturbed_dev2 luna_clean_dev3 luna_perturbed_dev3 \
	luna_clean_dev4 luna_perturbed_dev4 luna_clean_dev5 luna_perturbed_dev5 \
	luna_clean_dev6 luna_perturbed_dev6 \
	apibank_clean_dev apibank_perturbed_dev apibank_clean_heldout apibank_perturbed_heldout \
	tau2_telecom_clean_dev tau2_telecom_perturbed_dev tau2_telecom_clean_heldout tau2_telecom_perturbed_heldout \
	tau2x_airline_clean_dev tau2x_airline_perturbed_dev \
	tau2g_airline_clean_dev tau2g_airline_perturbed_dev \
	tau2o_retail_clean_dev tau2o_retail_perturbed_dev \
	tau2o_airline_clean_dev tau2o_airline_perturbed_dev

evaluate-runs: install
	for s in groundedness_dev tooltalk_dev halueval_qa_dev; do \
	  $(PY) -m verification.engine.eval.groundedness ../shared/eval/$$s.jsonl --no-progress \
	    --out docs/metrics/groundedness_$$s.json || exit 1; done
	for s in $(RUN_SETS); do \
	  $(PY) -m verification.engine.eval.groundedness bench/corpora/runs/$$s.jsonl --no-progress \
	    --out docs/metrics/groundedness_$$s.json || exit 1; done
	mkdir -p var && $(PY) bench/long_runs.py --count 200 --seed 14 > var/long_runs_seed14.jsonl
	$(PY) -m verification.engine.eval.groundedness var/long_runs_seed14.jsonl --no-progress \
	  --out docs/metrics/groundedness_long_runs_seed14.json

contracts: node
	node contracts/build.mjs

# The committed contract artifacts must be what the committed sources compile to.
contracts-check: node
	node contracts/build.mjs --check

clean:
	rm -rf $(VENV) node_modules var .pytest_cache .mypy_cache .ruff_cache
