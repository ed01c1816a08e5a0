# Two commands set up a fresh machine: `make run` and `make test` (both create .venv first).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out
EXTRAS ?= test,dev

.PHONY: venv run test fuzz guard-cost lint format samples eval bench clean

venv: $(VENV)/.installed

$(VENV)/.installed: setup.py pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

run: venv
	$(PY) -m beam_jobs.clean_html --input 'samples/*.warc.gz' --input 'samples/*.tar.gz' --output $(OUT)

test: venv
	$(PY) -m pytest -q

# The long fuzz: the reader fuzz and the cleaning property tests with many more examples.
FUZZ_EXAMPLES ?= 5000
fuzz: venv
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q tests/test_fuzz_readers.py tests/test_cleaning_properties.py

# Throughput of the crash guard against the alternatives (needs ../shared/corpus).
guard-cost: venv
	$(PY) -m benchmarks.guard_cost

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: venv
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

samples: venv
	$(PY) -m samples.make_samples

clean:
	rm -rf $(OUT) build *.egg-info

eval: venv
	$(PY) -c "import trafilatura, resiliparse" 2>/dev/null || $(PY) -m pip install -q -e '.[bench]'
	$(PY) benchmarks/quality.py
