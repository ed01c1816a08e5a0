"""Every preset in configs/ parses, and the job built with it survives translation.

Dataflow and Flink are not reachable here, so this checks what they are sent: the pipeline's
Runner API proto, built with the environment each runner would attach, restored into a Pipeline
and translated again, with every DoFn unpickled as an SDK worker would. The Dataflow preset's
``setup_file`` is also staged the way the Dataflow runner stages it.
"""

import tarfile
from pathlib import Path

import apache_beam as beam
import pytest
import yaml
from apache_beam.internal import pickler
from apache_beam.options.pipeline_options import (
    PipelineOptions,
    PortableOptions,
    SetupOptions,
    StandardOptions,
    WorkerOptions,
)
from apache_beam.portability import common_urns, python_urns
from apache_beam.portability.api import beam_runner_api_pb2
from apache_beam.runners.portability.portable_runner import PortableRunner
from apache_beam.transforms import environments

from beam_jobs.clean_html import CleanHtmlOptions, build_pipeline
from beam_jobs.config import _all_options_parser, merge_config

ROOT = Path(__file__).resolve().parents[2]
PRESETS = sorted((ROOT / "configs").glob("*.yaml"))
PRESET_IDS = [p.stem for p in PRESETS]
PARDO = common_urns.primitives.PAR_DO.urn
COMBINES = {
    common_urns.composites.COMBINE_PER_KEY.urn,
    common_urns.composites.COMBINE_GLOBALLY.urn,
}


def test_the_four_presets_exist():
    assert PRESET_IDS == ["dataflow", "flink", "local", "portable"]


CUSTOM_IMAGE = "europe-west1-docker.pkg.dev/p/beam/clean-html:0.1.0"
# Each preset as is, plus Dataflow with the custom SDK container given on the command line.
CASES = [(p, []) for p in PRESETS] + [
    (ROOT / "configs" / "dataflow.yaml", ["--sdk_container_image", CUSTOM_IMAGE]),
]
CASE_IDS = [*PRESET_IDS, "dataflow-container"]


def merged_options(path: Path, tmp_path: Path, extra: list[str] | None = None) -> PipelineOptions:
    argv = ["--config", str(path), "--input", str(ROOT / "samples" / "*.warc.gz"), *(extra or [])]
    return PipelineOptions(merge_config([*argv, "--output", str(tmp_path / "out")]))


@pytest.mark.parametrize("path", PRESETS, ids=PRESET_IDS)
def test_preset_parses_into_the_options_it_names(path, tmp_path):
    preset = yaml.safe_load(path.read_text())
    options = merged_options(path, tmp_path)
    # Nothing in the merged command line is left unparsed (Beam would drop it with a warning).
    _, unknown = _all_options_parser().parse_known_args(merge_config(["--config", str(path)]))
    assert unknown == []
    values = options.get_all_options()
    for key, value in preset.items():
        if key == "setup_file":
            assert values[key] == str((path.parent / value).resolve())
            assert Path(values[key]).is_file()
        else:
            assert values[key] == value, key
    assert options.view_as(CleanHtmlOptions).config == str(path)


def runner_environment(options: PipelineOptions, tmp_path: Path) -> environments.Environment:
    """The default environment each runner attaches to the pipeline it submits (Beam 2.77)."""
    runner = options.view_as(StandardOptions).runner
    if runner == "DataflowRunner":
        # DataflowRunner.run_pipeline: the SDK container plus the staged dependencies. Without
        # --sdk_container_image Dataflow names its own build of Beam's image (its apiclient needs
        # the gcp extra); Beam's default image stands in for it here.
        image = options.view_as(WorkerOptions).sdk_container_image
        return environments.DockerEnvironment.from_container_image(
            image or environments.DockerEnvironment.default_docker_image(),
            artifacts=environments.python_sdk_dependencies(options, tmp_dir=str(tmp_path)),
        )
    if runner in ("FlinkRunner", "PortableRunner"):
        return PortableRunner._create_environment(options)
    return environments.EmbeddedPythonEnvironment.default()


def unpickled_fns(proto: beam_runner_api_pb2.Pipeline) -> dict[str, object]:
    """Every pickled DoFn and CombineFn, unpickled from its payload as an SDK worker does.

    ParDos with another URN are Beam's own, named rather than pickled (e.g. key_with_none).
    """
    fns: dict[str, object] = {}
    for transform in proto.components.transforms.values():
        name = transform.unique_name
        if transform.spec.urn == PARDO:
            spec = beam_runner_api_pb2.ParDoPayload.FromString(transform.spec.payload).do_fn
            if spec.urn == python_urns.PICKLED_DOFN_INFO:
                fn, _args, _kwargs, _side_inputs, _windowing = pickler.loads(spec.payload)
                assert isinstance(fn, beam.DoFn), name
                fns[name] = fn
            else:
                assert spec.urn.startswith("beam:dofn:"), (name, spec.urn)
        elif transform.spec.urn in COMBINES:
            spec = beam_runner_api_pb2.CombinePayload.FromString(transform.spec.payload)
            assert spec.combine_fn.urn == python_urns.PICKLED_COMBINE_FN, name
            fns[name] = pickler.loads(spec.combine_fn.payload)
            assert isinstance(fns[name], beam.CombineFn), name
    return fns


def structure(proto: beam_runner_api_pb2.Pipeline) -> dict[str, tuple]:
    """Transforms by name, with their URNs and the shape of their inputs and outputs."""
    return {
        t.unique_name: (t.spec.urn, sorted(t.inputs), sorted(t.outputs), len(t.subtransforms))
        for t in proto.components.transforms.values()
    }


@pytest.mark.parametrize(("path", "extra"), CASES, ids=CASE_IDS)
def test_pipeline_translates_to_the_runner_api_and_back(path, extra, tmp_path):
    options = merged_options(path, tmp_path, extra)
    environment = runner_environment(options, tmp_path / "staging")
    pipeline = beam.Pipeline(runner="DirectRunner", options=options)
    build_pipeline(pipeline, options.view_as(CleanHtmlOptions))

    proto = pipeline.to_runner_api(default_environment=environment)
    sent = proto.SerializeToString()  # the bytes a job server or Dataflow receives
    received = beam_runner_api_pb2.Pipeline.FromString(sent)
    restored = beam.Pipeline.from_runner_api(received, pipeline.runner, options)
    again = restored.to_runner_api(default_environment=environment)

    assert structure(again) == structure(proto)
    fns = unpickled_fns(received)
    assert set(unpickled_fns(again)) == set(fns)
    assert "_CleanHtmlFn" in {type(fn).__name__ for fn in fns.values()}
    # Every DoFn runs in the runner's environment, as configured by the preset.
    env_ids = {
        t.environment_id for t in received.components.transforms.values() if t.spec.urn == PARDO
    }
    assert len(env_ids) == 1
    env = received.components.environments[env_ids.pop()]
    assert env.urn == environment.to_runner_api(None).urn
    if options.view_as(PortableOptions).environment_type == "EXTERNAL":
        payload = beam_runner_api_pb2.ExternalPayload.FromString(env.payload)
        assert payload.endpoint.url == options.view_as(PortableOptions).environment_config
    if options.view_as(StandardOptions).runner == "DataflowRunner":
        payload = beam_runner_api_pb2.DockerPayload.FromString(env.payload)
        expected = CUSTOM_IMAGE if extra else environments.DockerEnvironment.default_docker_image()
        assert payload.container_image == expected


def test_dataflow_preset_stages_this_package_from_setup_py(tmp_path):
    """What Dataflow workers install: the sdist that the runner builds from ``setup_file``."""
    options = merged_options(ROOT / "configs" / "dataflow.yaml", tmp_path)
    assert options.view_as(SetupOptions).setup_file == str(ROOT / "setup.py")
    staging = tmp_path / "staging"
    artifacts = environments.python_sdk_dependencies(options, tmp_dir=str(staging))
    staged = {
        beam_runner_api_pb2.ArtifactStagingToRolePayload.FromString(a.role_payload).staged_name: (
            beam_runner_api_pb2.ArtifactFilePayload.FromString(a.type_payload).path
        )
        for a in artifacts
    }
    with tarfile.open(staged["workflow.tar.gz"]) as sdist:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in sdist.getnames()}
        root = sdist.getnames()[0].split("/")[0]
        setup_py = sdist.extractfile(f"{root}/setup.py").read()
    modules = {
        p.relative_to(ROOT).as_posix()
        for package in ("beam_jobs", "transforms")
        for p in (ROOT / package).glob("*.py")
    }
    assert modules <= names, modules - names
    assert "setup.py" in names
    # Workers pip-install it from this very setup.py: the same requirements as this venv.
    assert setup_py == (ROOT / "setup.py").read_bytes()
