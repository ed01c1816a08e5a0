# Two commands set up a fresh machine: `make run` and `make test` (both create .venv first).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out
EXTRAS ?= test,dev

.PHONY: venv run test lint format samples eval bench bench-big bench-deps clean

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

# Throughput and memory benchmark (benchmarks/throughput.py): builds WARC.gz shards from
# ../shared/corpus under bench/ (cached), then prints the table and writes bench/results.{json,md}
# and bench/throughput.png. bench-big adds one 1 GiB WARC.gz (1, 2 and 2 split workers).
bench-deps: venv
	@$(PY) -c "import trafilatura, resiliparse, matplotlib, psutil" 2>/dev/null && test -x $(VENV)/bin/py-spy \
		|| $(PY) -m pip install -q -e '.[bench]'

bench: bench-deps
	$(PY) benchmarks/throughput.py

bench-big: bench-deps
	$(PY) benchmarks/throughput.py --big
