# Custom SDK container for Dataflow (--sdk_container_image) and Flink (the worker-pool sidecar).
# It is Beam's own Python SDK image for the Beam and Python versions the job is launched with
# (they must match: workers refuse pickled code from another Beam version), plus this package
# installed from the same setup.py that --setup_file uses.
#
#   docker build -t REGISTRY/clean-html:0.1.0 .
#   docker push REGISTRY/clean-html:0.1.0
#
# The image keeps the base image's entry point (/opt/apache/beam/boot): Dataflow and DOCKER
# environments start it as an SDK harness, and `--worker_pool` makes it a worker pool for
# EXTERNAL environments (Flink on Kubernetes).
ARG PYTHON_VERSION=3.11
ARG BEAM_VERSION=2.77.0
FROM apache/beam_python${PYTHON_VERSION}_sdk:${BEAM_VERSION}

ARG BEAM_VERSION
# Arrow's default pool as the system allocator, so that freed Parquet buffers leave the worker
# (see transforms/memory.py).
ENV ARROW_DEFAULT_MEMORY_POOL=system
WORKDIR /opt/clean-html
COPY setup.py pyproject.toml ./
COPY beam_jobs ./beam_jobs
COPY transforms ./transforms
# Pinning apache-beam to the base image's version keeps pip from swapping it (and fails the build
# if setup.py's bound excludes it). pip compiles the Cython modules (setup.py's ext_modules)
# here, with the base image's C compiler and Cython from pyproject.toml's build requirements.
RUN pip install --no-cache-dir . "apache-beam==${BEAM_VERSION}"
# Back to the base image's working directory; importing from there proves the installed package
# (not the source folder) has everything.
WORKDIR /
RUN python -c "import beam_jobs.clean_html"
