# Two commands set up a fresh machine: `make run` and `make test` (both create .venv first).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out
EXTRAS ?= test,dev
# Airflow lives in its own venv: its pins must not move the job's dependencies (see airflow/).
AIRFLOW_VENV ?= .venv-airflow
IMAGE ?= clean-html:0.1.0
WORKER_POOL_PORT ?= 50000

.PHONY: venv venv-airflow run run-portable worker-pool image test test-airflow test-portable \
	test-gates fuzz guard-cost lint format samples eval bench bench-big bench-deps bench-dedup \
	dedup clean

venv: $(VENV)/.installed

$(VENV)/.installed: setup.py pyproject.toml $(wildcard transforms/*/*.pyx)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

# Installed with uv (from PyPI into that venv): it resolves Airflow and the Google provider in
# seconds where pip takes minutes. The stamp keeps repeated `make test` from reinstalling.
venv-airflow: $(AIRFLOW_VENV)/.installed

$(AIRFLOW_VENV)/.installed: airflow/requirements.txt
	$(PYTHON) -m venv $(AIRFLOW_VENV)
	$(AIRFLOW_VENV)/bin/python -m pip install -q --upgrade pip uv
	$(AIRFLOW_VENV)/bin/uv pip install -q --python $(AIRFLOW_VENV)/bin/python -r airflow/requirements.txt
	touch $@

run: venv
	$(PY) -m beam_jobs.clean_html --input 'samples/*.warc.gz' --input 'samples/*.tar.gz' --output $(OUT)

# The dedup job over `make run`'s output, into $(OUT)-dedup/.
dedup: venv
	$(PY) -m beam_jobs.dedup --input $(OUT)/data --output $(OUT)-dedup --write_corpus

# The portable runner against a worker pool on this machine: run `make worker-pool` in another
# shell first (it serves until stopped). The pool starts each SDK worker as `python` from PATH,
# hence the venv's bin/ first on PATH; ARROW_DEFAULT_MEMORY_POOL as in transforms/memory.py.
worker-pool: venv
	PATH="$(abspath $(VENV))/bin:$$PATH" ARROW_DEFAULT_MEMORY_POOL=system \
		$(PY) -m apache_beam.runners.worker.worker_pool_main \
		--service_port $(WORKER_POOL_PORT)

run-portable: venv
	$(PY) -m beam_jobs.clean_html --config configs/portable.yaml \
		--environment_config localhost:$(WORKER_POOL_PORT) \
		--input 'samples/*.warc.gz' --input 'samples/*.tar.gz' --output $(OUT)

# The custom SDK container for Dataflow and Flink (needs a Docker engine).
image:
	docker build -t $(IMAGE) .

# The whole suite, the Airflow DAG test included (it needs both venvs).
test: venv venv-airflow
	$(PY) -m pytest -q

# The noise and latency gates alone; prints the measured extract/parse ratios.
test-gates: venv
	$(PY) -m pytest -q tests/gates/test_noise_gate.py tests/gates/test_latency_gate.py

# The long fuzz: the reader fuzz and the cleaning property tests with many more examples.
FUZZ_EXAMPLES ?= 5000
fuzz: venv
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q tests/read/test_fuzz_readers.py tests/clean_html/test_cleaning_properties.py

# Throughput of the crash guard against the alternatives (needs ../shared/corpus).
guard-cost: venv
	$(PY) -m benchmarks.guard_cost

test-airflow: venv venv-airflow
	$(PY) -m pytest -q tests/job/test_airflow_dag.py

test-portable: venv
	$(PY) -m pytest -q tests/job/test_portable_runner.py

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
	$(PY) -m benchmarks.quality

# Throughput and memory benchmark (benchmarks/throughput.py): builds WARC.gz shards from
# ../shared/corpus under bench/ (cached), then prints the table and writes bench/results.{json,md}
# and bench/throughput.png. bench-big adds one 1 GiB WARC.gz (1, 2 and 2 split workers).
bench-deps: venv
	@$(PY) -c "import trafilatura, resiliparse, matplotlib, psutil" 2>/dev/null && test -x $(VENV)/bin/py-spy \
		|| $(PY) -m pip install -q -e '.[bench]'

bench: bench-deps
	$(PY) -m benchmarks.throughput
	$(PY) -m benchmarks.signals_cost
	$(PY) -m benchmarks.dedup_bench

# The dedup job alone: 1 and 2 workers on about 100,000 generated rows (benchmarks/dedup_bench.py).
bench-dedup: venv
	$(PY) -m benchmarks.dedup_bench

bench-big: bench-deps
	$(PY) -m benchmarks.throughput --big
