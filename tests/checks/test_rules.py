"""Each `envkit check` rule: a failing and a passing case, on environment files and lock models."""

from __future__ import annotations

import textwrap

import pytest

from envkit.checks import all_rules, run_checks
from envkit.checks.core import Target, suppressions
from envkit.checks.examples import example_findings
from envkit.checks.targets import pair, targets_from_text
from envkit.config import Config
from envkit.model import Channel, LiveEnv, Lock, LockedPackage


def findings(
    text: str, name: str = "environment.yml", *, rule: str | None = None, config: Config | None = None
):
    targets = targets_from_text(textwrap.dedent(text).lstrip("\n"), name)
    pair(targets)
    cfg = config or Config(select=(rule,) if rule else None)
    return run_checks(targets, cfg)


def hits(text: str, rule: str, name: str = "environment.yml", **kw) -> list[tuple[str, int | None]]:
    return [(f.rule, f.line) for f in findings(text, name, rule=rule, **kw)]


def model_findings(model, rule: str, *, kind: str | None = None, text: str | None = None):
    kind = kind or ("live" if isinstance(model, LiveEnv) else "lock")
    t = Target(path=getattr(model, "prefix", None) or "conda-lock.yml", kind=kind, model=model, text=text)
    return run_checks([t], Config(select=(rule,)))


def linux_lock(*packages: LockedPackage, kind: str = "conda-lock") -> Lock:
    return Lock(kind=kind, platforms=("linux-64",), packages=packages)


def pkg(name, version, build=None, manager="conda", platform="linux-64", line=None, **kw):
    return LockedPackage(
        manager=manager, name=name, version=version, build=build, platform=platform, line=line, **kw
    )


# --------------------------------------------------------------------------------------------
# the registry


def test_registry_has_every_rule_of_the_issue_in_order():
    assert list(all_rules()) == [
        "conda-pip-duplicate",
        "pip-overwrote-conda",
        "mixed-channels",
        "channel-priority",
        "unpinned",
        "fuzzy-pin",
        "listed-twice",
        "vcs-unpinned",
        "stale-lock",
        "lock-unsatisfied",
        "env-drift",
        "python-abi-mismatch",
        "cuda-mismatch",
        "cuda-unused",
        "wheel-index",
        "torch-pairing",
        "leaked-secret",
        "leaked-prefix",
        "insecure-url",
        "missing-hash",
        "duplicate-key",
        "pip-without-pip",
        "no-channels",
        "platform-only",
        "short-exact-pin",
        "pypi-only-in-conda",
        "legacy-url",
        "missing-requirements-file",
        "yaml-number",
        "pip-lock-missing-hash",
        "lock-python-mismatch",
        "pip-lock-one-platform",
        "machine-platform",
        "machine-virtual-package",
        "machine-cuda-driver",
        "machine-gpu-arch",
        "machine-wheel-tag",
        "known-vulnerability",
        "licence-not-allowed",
        "no-advisory-source",
    ]
    for r in all_rules().values():
        assert r.severity in ("error", "warning", "info") and r.summary and r.description
        assert r.example and r.example_fixed


@pytest.mark.parametrize("name", [n for n, r in all_rules().items() if r.example_kind == "file"])
def test_documented_example_fails_and_fixed_example_passes(name):
    r = all_rules()[name]
    assert [f.rule for f in example_findings(r)] and all(f.rule == name for f in example_findings(r))
    assert example_findings(r, fixed=True) == []


def test_inline_suppression_parsing():
    assert suppressions("  - numpy  # envkit: ignore[conda-pip-duplicate, unpinned]") == {
        "conda-pip-duplicate",
        "unpinned",
    }
    assert suppressions("  - numpy  # envkit: ignore") == frozenset()
    assert suppressions("  - numpy  # a comment") is None


# --------------------------------------------------------------------------------------------
# conda-pip-duplicate

DUP = """
    channels: [conda-forge, nodefaults]
    dependencies:
      - python=3.11
      - numpy>=1.24
      - pytorch=2.1
      - pyyaml
      - pip
      - pip:
        - numpy==1.26.4
        - torch==2.1.0
        - PyYAML
        - requests
"""


def test_conda_pip_duplicate_of_the_same_version_is_none_unless_two_distributions():
    # pip finds conda's numpy 1.26.4 (and pytorch's torch 2.1.0) installed and installs nothing;
    # psycopg2-binary is another distribution of the `psycopg2` import package: pip installs it
    text = """
    channels: [conda-forge, nodefaults]
    dependencies:
      - numpy==1.26.4
      - pytorch=2.1.0=py311_0
      - psycopg2=2.9.9
      - scipy=1.11
      - pip
      - pip:
        - numpy==1.26.4
        - torch==2.1.0
        - psycopg2-binary==2.9.9
        - scipy==1.11.4
    """
    assert [(f.line, f.packages) for f in findings(text, rule="conda-pip-duplicate")] == [
        (11, ("psycopg2", "psycopg2-binary")),
        (12, ("scipy",)),  # conda's `=1.11` is any 1.11.x
    ]


def test_conda_pip_duplicate_uses_the_name_map_and_pep503():
    fs = findings(DUP, rule="conda-pip-duplicate")
    assert [(f.line, f.message, f.packages) for f in fs] == [
        (9, "numpy is installed by conda (>=1.24) and pip (==1.26.4)", ("numpy",)),
        (10, "torch is installed by conda (pytorch =2.1) and pip (==2.1.0)", ("pytorch", "torch")),
        (11, "pyyaml is installed by conda (any version) and pip (any version)", ("pyyaml", "PyYAML")),
    ]
    assert fs[0].severity == "error"


def test_conda_pip_duplicate_passes_when_each_project_has_one_manager():
    assert (
        hits(
            """
        dependencies:
          - python=3.11
          - graphviz
          - pip
          - pip:
            - graphviz==0.20
            - requests
        """,
            "conda-pip-duplicate",
        )
        == []
    )  # conda's graphviz is the C library, not PyPI graphviz


def test_conda_pip_duplicate_config_extends_the_map_and_inline_suppression():
    text = """
        dependencies:
          - my-conda-tool
          - pip
          - pip:
            - my-pypi-tool==1.0
        """
    assert hits(text, "conda-pip-duplicate") == []
    cfg = Config(select=("conda-pip-duplicate",), pypi_names={"my-conda-tool": ("my_pypi_tool",)})
    assert hits(text, "conda-pip-duplicate", config=cfg) == [("conda-pip-duplicate", 5)]
    suppressed = text.replace("my-pypi-tool==1.0", "my-pypi-tool==1.0  # envkit: ignore[conda-pip-duplicate]")
    assert hits(suppressed, "conda-pip-duplicate", config=cfg) == []


def test_conda_pip_duplicate_in_a_lock_names_the_platforms():
    lock = Lock(
        kind="conda-lock",
        platforms=("linux-64", "osx-64"),
        packages=(
            pkg("numpy", "2.2.4", "py312h0_0", line=10),
            pkg("numpy", "2.1.3", manager="pip", line=20),
            pkg("numpy", "2.2.4", "py312h1_0", platform="osx-64", line=30),
            pkg("numpy", "2.1.3", manager="pip", platform="osx-64", line=40),
            pkg("scipy", "1.14", manager="pip", line=50),
        ),
    )
    fs = model_findings(lock, "conda-pip-duplicate")
    assert [(f.line, f.message) for f in fs] == [
        (20, "numpy is installed by conda (2.2.4) and pip (2.1.3) on linux-64, osx-64")
    ]


# --------------------------------------------------------------------------------------------
# mixed-channels


def test_mixed_channels_defaults_aliases_and_channel_prefixes():
    assert hits(
        """
        channels:
          - conda-forge
          - main
        dependencies: [python]
        """,
        "mixed-channels",
    ) == [("mixed-channels", 3)]
    fs = findings(
        """
        channels: [pytorch, nodefaults]
        dependencies:
          - defaults::python
          - conda-forge::numpy
        """,
        rule="mixed-channels",
    )
    assert [(f.line, f.severity) for f in fs] == [(4, "warning")]


def test_mixed_channels_conda_forge_without_nodefaults_and_other_passing_cases():
    # what conda appends behind conda-forge is each user's .condarc, not the file's
    assert hits("channels: [conda-forge]\ndependencies: [python]\n", "mixed-channels") == []
    assert (
        hits(
            """
        channels: [conda-forge, nodefaults]
        dependencies: [python]
        """,
            "mixed-channels",
        )
        == []
    )
    assert (
        hits(
            """
        channels: [pytorch, nvidia, defaults]
        dependencies: [pytorch]
        """,
            "mixed-channels",
        )
        == []
    )


def test_mixed_channels_allowed_channels_config():
    cfg = Config(select=("mixed-channels",), allowed_channels=("conda-forge",))
    fs = findings(
        """
        channels: [conda-forge, nodefaults, pytorch]
        dependencies:
          - bioconda::samtools
        """,
        rule="mixed-channels",
        config=cfg,
    )
    assert [(f.line, f.message) for f in fs] == [
        (1, "channel pytorch (listed) is not in allowed-channels (conda-forge)"),
        (3, "channel bioconda (prefix of samtools) is not in allowed-channels (conda-forge)"),
    ]


def test_mixed_channels_in_a_lock_uses_package_channels():
    lock = linux_lock(
        pkg("python", "3.11.8", "h0", channel="conda-forge", line=3),
        pkg("zlib", "1.2.13", "h0", channel="pkgs/main", line=4),
        kind="explicit",
    )
    fs = model_findings(lock, "mixed-channels")
    assert [(f.line, f.packages) for f in fs] == [(4, ("pkgs/main", "conda-forge"))]


# --------------------------------------------------------------------------------------------
# channel-priority


def test_channel_priority_in_a_file_is_ignored_by_conda():
    fs = findings(
        """
        channels: [conda-forge, nodefaults]
        channel_priority: strict
        variables:
          CONDA_CHANNEL_PRIORITY: strict
        dependencies: [python]
        """,
        rule="channel-priority",
    )
    assert [f.line for f in fs] == [2, 4]
    assert hits("channels: [conda-forge]\ndependencies: [python]\n", "channel-priority") == []


def _live(priority, channels=("conda-forge", "pytorch"), packages=(), **kw):
    return LiveEnv(
        prefix="/envs/x",
        name="x",
        platform="linux-64",
        packages=tuple(packages),
        channels=tuple(Channel(name=c) for c in channels),
        channel_priority=priority,
        **kw,
    )


def test_channel_priority_live():
    fs = model_findings(_live("flexible"), "channel-priority")
    assert [(f.file, f.line, f.severity) for f in fs] == [("/envs/x", None, "warning")]
    assert "an environment.yml cannot set it" in fs[0].message
    assert model_findings(_live("strict"), "channel-priority") == []
    assert model_findings(_live(None), "channel-priority") == []
    assert model_findings(_live("flexible", channels=("conda-forge",)), "channel-priority") == []


# --------------------------------------------------------------------------------------------
# unpinned / fuzzy-pin

EXPORT = """
    name: x
    channels: [conda-forge]
    dependencies:
      - python=3.11.9=h0_0_cpython
      - numpy=1.26.4=py311h0_0
      - pip=24.0=pyhd8ed1ab_0
      - pip:
        - requests==2.32.3
        - gdown
        - rich>=13
    prefix: /opt/envs/x
"""


def test_unpinned_in_an_export():
    assert hits(EXPORT, "unpinned") == [("unpinned", 9), ("unpinned", 10)]


def test_unpinned_not_in_a_hand_written_file():
    assert (
        hits(
            """
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - numpy
          - pip
          - pip: [gdown]
        """,
            "unpinned",
        )
        == []
    )


def test_fuzzy_pin_in_a_no_builds_export_is_one_finding():
    fs = findings(
        """
        name: x
        dependencies:
          - python=3.11.9
          - openssl=1.1.1
        prefix: /opt/envs/x
        """,
        rule="fuzzy-pin",
    )
    assert [(f.line, f.severity, f.packages) for f in fs] == [(3, "info", ("python", "openssl"))]
    assert hits(EXPORT, "fuzzy-pin") == []


# --------------------------------------------------------------------------------------------
# stale-lock / lock-unsatisfied


def _envkit_lock(spec_text: str, packages, tmp_path):
    from envkit.formats import read_text as read_model
    from envkit.formats.condalock import write_conda_lock
    from envkit.lock import spec_content_hash

    spec = read_model(textwrap.dedent(spec_text).lstrip("\n"), filename="environment.yml")
    lock = Lock(
        kind="conda-lock",
        platforms=("linux-64",),
        packages=tuple(packages),
        channels=spec.channels,
        content_hash=(("linux-64", spec_content_hash(spec, "linux-64")),),
        sources=("environment.yml",),
    )
    return write_conda_lock(lock)


LOCKED = [
    pkg(
        "python",
        "3.11.9",
        "hb806964_0_cpython",
        url="https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda",
        md5="a" * 32,
        sha256="b" * 64,
    ),
    pkg(
        "numpy",
        "1.26.4",
        "py311h64a7726_0",
        url="https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
        md5="c" * 32,
        sha256="d" * 64,
    ),
]
SPEC = """
channels: [conda-forge]
dependencies:
  - python=3.11
  - numpy
"""


def _pair(spec_text, lock_text):
    targets = targets_from_text(textwrap.dedent(spec_text).lstrip("\n"), "environment.yml")
    targets += targets_from_text(lock_text, "conda-lock.yml")
    pair(targets)
    return targets


def test_stale_lock_and_lock_unsatisfied(tmp_path):
    lock_text = _envkit_lock(SPEC, LOCKED, tmp_path)
    fresh = run_checks(_pair(SPEC, lock_text), Config(select=("stale-lock", "lock-unsatisfied")))
    assert fresh == []
    changed = SPEC.replace("  - numpy", "  - numpy>=2")
    fs = run_checks(_pair(changed, lock_text), Config(select=("stale-lock", "lock-unsatisfied")))
    hash_line = next(i for i, ln in enumerate(lock_text.splitlines(), 1) if "content_hash" in ln)
    assert [(f.rule, f.file, f.line) for f in fs] == [
        ("lock-unsatisfied", "environment.yml", 4),
        ("stale-lock", "conda-lock.yml", hash_line),
    ]
    assert "numpy>=2" in fs[0].message and "does not match" in fs[0].message


def test_stale_lock_ignores_a_hash_envkit_did_not_write(tmp_path):
    lock_text = _envkit_lock(SPEC, LOCKED, tmp_path).replace("generated by envkit", "generated by conda-lock")
    changed = SPEC.replace("  - numpy", "  - numpy  # a comment\n  - python")
    assert run_checks(_pair(changed, lock_text), Config(select=("stale-lock",))) == []


# --------------------------------------------------------------------------------------------
# env-drift


def test_env_drift_lists_added_removed_changed():
    lock = linux_lock(
        pkg("python", "3.11.9", "h0"),
        pkg("numpy", "1.26.4", "py311h0_0"),
        pkg("zlib", "1.3", "h0"),
        pkg("requests", "2.31.0", manager="pip"),
    )
    env = _live(
        "strict",
        packages=[
            pkg("python", "3.11.9", "h0"),
            pkg("numpy", "2.0.0", "py311h1_0"),
            pkg("requests", "2.31.0", manager="pip"),
            pkg("rich", "13.7.1", manager="pip"),
        ],
    )
    t = Target(path="/envs/x", kind="live", model=env)
    t.lock = Target(path="conda-lock.yml", kind="lock", model=lock)
    fs = run_checks([t], Config(select=("env-drift",)))
    assert [f.message for f in fs] == [  # in the order `envkit diff` ranks them
        "numpy changed: locked 1.26.4 (py311h0_0), installed 2.0.0 (py311h1_0)",
        "zlib 1.3 is in the lock but not installed",
        "rich 13.7.1 (pip) is installed but not in the lock",
    ]
    same = _live("strict", packages=lock.packages)
    t2 = Target(path="/envs/x", kind="live", model=same)
    t2.lock = t.lock
    assert run_checks([t2], Config(select=("env-drift",))) == []


def test_env_drift_is_ranked_as_diff_ranks_it():
    # a CPU -> CUDA pytorch first and an error; a small package that went missing last, a warning
    lock = linux_lock(
        pkg("python", "3.11.9", "h0"),
        pkg("aiosignal", "1.3.1", "pyhd8ed1ab_0"),
        pkg("pytorch", "2.2.2", "cpu_generic_py311h0_0"),
    )
    env = _live(
        "strict",
        packages=[pkg("python", "3.11.9", "h0"), pkg("pytorch", "2.2.2", "cuda120_py311h0_300")],
    )
    t = Target(path="/envs/x", kind="live", model=env)
    t.lock = Target(path="conda-lock.yml", kind="lock", model=lock)
    fs = run_checks([t], Config(select=("env-drift",)))
    assert [(f.severity, f.message) for f in fs] == [
        (
            "error",
            "pytorch changed: locked 2.2.2 (cpu_generic_py311h0_0), installed 2.2.2 (cuda120_py311h0_300)",
        ),
        ("warning", "aiosignal 1.3.1 is in the lock but not installed"),
    ]


# --------------------------------------------------------------------------------------------
# python-abi-mismatch


def test_python_abi_mismatch_in_an_export_and_wheels():
    assert hits(
        """
        dependencies:
          - python=3.12.4=h0_0_cpython
          - numpy=1.26.4=py311h64a7726_0
          - python_abi=3.12=4_cp312
          - six=1.16.0=pyhd8ed1ab_0
          - pip
          - pip:
            - pkg @ https://example.org/pkg-1.0-cp311-cp311-manylinux2014_x86_64.whl
            - ok @ https://example.org/ok-1.0-cp38-abi3-manylinux2014_x86_64.whl
        """,
        "python-abi-mismatch",
    ) == [("python-abi-mismatch", 3), ("python-abi-mismatch", 8)]


def test_python_abi_mismatch_build_globs_are_prefixes():
    # py31* matches py311 (Python 3.11): not flagged; py39* matches no tag that fits 3.11
    found = findings(
        """
        dependencies:
          - python=3.11
          - numpy=*=py31*
          - scipy=1.13=*py311*
          - pandas=2.2=py39*
          - pyzmq=26=py31_*
          - six=*=py3*
          - tqdm=4=py312*
        """,
        "environment.yml",
        rule="python-abi-mismatch",
    )
    assert [(f.line, f.message) for f in found] == [
        (
            5,
            "pandas build glob 'py39*' matches only builds for Python 3.9 or 3.90-3.99, but python "
            "is pinned to 3.11",
        ),
        (6, "pyzmq build 'py31_*' is for Python 3.1, but python is pinned to 3.11"),
        (8, "tqdm build 'py312*' is for Python 3.12, but python is pinned to 3.11"),
    ]


def test_python_abi_mismatch_in_a_lock_trusts_recorded_depends():
    lock = linux_lock(
        pkg("python", "3.14.0", "h0_cp314", line=1),
        # conda-forge abi3 build: tagged py312, works with every later Python
        pkg(
            "pyzmq",
            "27.1.0",
            "py312hda471dd_3",
            line=2,
            depends=(("_python_abi3_support", "1.*"), ("cpython", ">=3.12")),
        ),
        pkg("numpy", "2.3.0", "py313h0_0", line=3, depends=(("python", ">=3.13,<3.14.0a0"),)),
        pkg("pandas", "2.3.0", "py314h0_0", line=4, depends=(("python", ">=3.14,<3.15.0a0"),)),
        kind="pixi",
    )
    assert [f.line for f in model_findings(lock, "python-abi-mismatch")] == [3]


def test_python_abi_mismatch_an_older_tag_beside_abi3_support_has_one_verdict_in_every_format():
    # a py310 build whose recorded depends say nothing about Python, beside Python 3.12 and
    # `_python_abi3_support` (no python_abi pin): the explicit file of the same solve has no
    # depends and is not flagged, so neither is the lock; a python_abi pin of 3.10 still is
    def lock(depends):
        return linux_lock(
            pkg("python", "3.12.11", "h9e4cc4f_0_cpython", line=1),
            pkg("_python_abi3_support", "1.0", "hd8ed1ab_2", line=2, depends=(("cpython", ""),)),
            pkg("polars-runtime-32", "1.41.1", "py310h49dadd8_0", line=3, depends=depends),
        )

    assert model_findings(lock((("libgcc", ">=14"), ("libstdcxx", ">=14"))), "python-abi-mismatch") == []
    assert model_findings(lock(()), "python-abi-mismatch") == []
    pinned = lock((("python_abi", "3.10.* *_cp310"), ("libgcc", ">=14")))
    assert [f.line for f in model_findings(pinned, "python-abi-mismatch")] == [3]


# --------------------------------------------------------------------------------------------
# cuda-mismatch


def test_cuda_mismatch_cpu_pytorch_with_cuda_pins():
    assert hits(
        """
        dependencies:
          - pytorch=1.5.0=cpu_py37hd91cbb3_0
          - cudatoolkit=10.2
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 2)]
    assert hits(
        """
        dependencies:
          - python=3.11
          - pip
          - cuda-version=12.1
          - pip:
            - torch==2.3.1+cpu
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 6)]


def test_cuda_mismatch_finds_cuda_stacks_split_across_managers_and_versions():
    # conda's pytorch-cuda beside pip's CUDA torch and no conda pytorch: two CUDA runtimes
    assert hits(
        """
        channels: [pytorch, nvidia, conda-forge]
        dependencies:
          - python=3.11
          - pytorch-cuda=12.4
          - pip
          - pip:
            - --extra-index-url https://download.pytorch.org/whl/cu124
            - torch==2.5.1+cu124
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 4)]
    # conda-forge's CUDA 11 compiler toolkit beside pip's CUDA 12 torch: extensions fail to build
    found = findings(
        """
        channels: [conda-forge]
        dependencies:
          - python=3.10
          - cudatoolkit-dev=11.7
          - gxx=11
          - pip
          - pip:
            - torch==2.4.0+cu121
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message) for f in found] == [
        (
            8,
            "pip torch==2.4.0+cu121 is built for CUDA 12.1, but conda's cudatoolkit-dev=11.7 provides "
            "CUDA 11.7",
        )
    ]
    # a CUDA 12.3 component beside the CUDA 11.8 the pins agree on
    found = findings(
        """
        channels: [nvidia, conda-forge]
        dependencies:
          - cuda-version=11.8
          - cuda-cudart=11.8.89
          - cuda-cccl=12.3.52
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message) for f in found] == [
        (
            5,
            "cuda-cccl=12.3.52 is CUDA 12.3's, beside CUDA 11.8 (cuda-version=11.8): two CUDA versions' "
            "headers and libraries in one environment",
        )
    ]


def test_cuda_mismatch_judges_each_build_once_per_distinct_pin_not_per_pin(monkeypatch):
    # 300 CUDA builds against 301 pins of two (name, version)s: each build is judged against the
    # two, not against all 301 (a file near the size limits would be quadratic), and still reported
    # against the one pin it contradicts
    from envkit.checks import rules_cuda

    calls = []
    judge = rules_cuda._newer_or_other_major
    monkeypatch.setattr(rules_cuda, "_newer_or_other_major", lambda *a: calls.append(a) or judge(*a))
    n = 300
    text = "dependencies:\n"
    text += "".join(f"  - pkg{i}=1.0=cuda112_0\n" for i in range(n))
    text += "  - cuda-version=11.2\n" * n + "  - cudatoolkit=10.2\n"
    found = [(f.line, f.message) for f in findings(text, rule="cuda-mismatch")]
    assert len(calls) == 2 * n
    assert found[0] == (
        2,
        "pkg0=1.0=cuda112_0 is built for CUDA 11.2, but cudatoolkit=10.2 pins CUDA 10.2",
    )
    assert [line for line, _ in found] == [*range(2, n + 2), 2 * n + 2]  # the pins contradicting too


def test_cuda_mismatch_build_newer_than_cuda_version_and_pytorch_cuda():
    assert hits(
        """
        dependencies:
          - pytorch=2.5.1=cuda126_mkl_py312_h0_300
          - cuda-version=12.4
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 2)]
    assert hits(
        """
        dependencies:
          - pytorch=2.5.1=cuda118_mkl_py312_h0_300
          - cuda-version=12.4
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 2)]  # another major
    assert (
        hits(
            """
        dependencies:
          - pytorch=2.5.1=cuda120_mkl_py312_h0_300
          - cudnn=9.3.0.75=cuda12_0
          - cuda-version=12.4
        """,
            "cuda-mismatch",
        )
        == []
    )  # older minor of the same major is fine on conda-forge
    assert hits(
        """
        dependencies:
          - pytorch=2.2.1=py3.12_cuda12.1_cudnn8.9.2_0
          - pytorch-cuda=11.8
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 2)]
    assert hits(
        """
        dependencies:
          - pytorch=*=cuda118*
          - pytorch=2.4.1=cuda118_mkl_py312_h0_300
          - cuda-version=12
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 2), ("cuda-mismatch", 3)]  # `cuda-version=12` pins the major
    # a build glob in a spec asks for that CUDA as much as a full build string does
    fs = findings(
        """
        dependencies:
          - pytorch=2.5.1=cuda126*
          - cuda-version=11.8
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message) for f in fs] == [
        (2, "pytorch=2.5.1=cuda126* selects a build for CUDA 12.6, but cuda-version=11.8 pins CUDA 11.8")
    ]
    assert (
        hits(
            """
        dependencies:
          - pytorch=2.5.1=cuda126*
          - cuda-version=12.6
        """,
            "cuda-mismatch",
        )
        == []
    )
    # `py3.11*` may match a CUDA build: not taken for a CPU build
    assert (
        hits(
            """
        dependencies:
          - pytorch=2.1.0=py3.11*
          - pytorch-cuda=12.1
        """,
            "cuda-mismatch",
        )
        == []
    )


def test_cuda_mismatch_cuda_pins_that_contradict_each_other():
    fs = findings(
        """
        dependencies:
          - pytorch::pytorch=2.1
          - pytorch-cuda=12.1
          - cudatoolkit=11.8
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message, f.packages, f.severity) for f in fs] == [
        (
            4,
            "cudatoolkit=11.8 pins CUDA 11.8, but pytorch-cuda=12.1 pins CUDA 12.1: the CUDA pins "
            "contradict each other (conda fails to solve, or installs two CUDA runtimes)",
            ("pytorch-cuda", "cudatoolkit"),
            "error",
        )
    ]
    assert hits(
        """
        dependencies:
          - pytorch-cuda=12.1
          - cuda-version=11.2
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 3)]  # another major
    assert hits(
        """
        dependencies:
          - cuda-version=11.8
          - pytorch-cuda=11.7
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 3)]  # pytorch-cuda's minor differs
    assert hits(
        """
        dependencies:
          - cuda-version=11.2
          - cudatoolkit=11.8
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 3)]  # cuda-version constrains cudatoolkit
    for ok in (
        "cuda-version=12\n  - pytorch-cuda=12.1",
        "cudatoolkit=11.8.0\n  - pytorch-cuda=11.8",
        "cuda-version=11.8\n  - cudatoolkit=11.8",
        "cudatoolkit>=11.2\n  - pytorch-cuda=12.1",
    ):
        assert hits(f"dependencies:\n  - {ok}\n", "cuda-mismatch") == [], ok
    # a lock reports it once, at the later pin, naming every pin it contradicts
    lock = linux_lock(
        pkg("cuda-version", "11.8", "h70ddcb2_3", line=1),
        pkg("cudatoolkit", "11.8.0", "h4ba93d1_13", line=2),
        pkg("pytorch-cuda", "11.7", "h778d358_5", line=3),
    )
    assert [(f.line, f.packages) for f in model_findings(lock, "cuda-mismatch")] == [
        (3, ("cuda-version", "cudatoolkit", "pytorch-cuda"))
    ]


def test_cuda_mismatch_pytorch_cuda_with_a_pytorch_the_pytorch_channel_never_built():
    fs = findings(
        """
        channels: [pytorch, nvidia, conda-forge]
        dependencies:
          - pytorch=2.7
          - pytorch-cuda=12.1
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message, f.packages) for f in fs] == [
        (
            3,
            "pytorch=2.7 is newer than the pytorch channel's last release (2.5, pytorch/pytorch#138506), "
            "so pytorch-cuda=12.1 selects nothing: conda fails to solve or installs another channel's "
            "pytorch, which ignores pytorch-cuda",
            ("pytorch", "pytorch-cuda"),
        )
    ]
    fs = findings(
        """
        channels: [pytorch, nvidia]
        dependencies:
          - pytorch=2.1.2
          - pytorch-cuda=12.4
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message) for f in fs] == [
        (
            4,
            "the pytorch channel has no pytorch 2.1 build for CUDA 12.4 (pytorch-cuda=12.4); it offers "
            "CUDA 11.8, 12.1",
        )
    ]
    for ok in (
        "pytorch=2.5.1\n  - pytorch-cuda=12.4",
        "pytorch=2.1.2\n  - pytorch-cuda=12.1",
        "pytorch=2.7\n  - cuda-version=12.6",
        "pytorch>=2.6\n  - pytorch-cuda=12.1",
    ):
        assert hits(f"channels: [pytorch, nvidia]\ndependencies:\n  - {ok}\n", "cuda-mismatch") == [], ok
    # a lock: conda-forge's pytorch 2.7 next to the pytorch channel's pytorch-cuda
    lock = linux_lock(
        pkg("pytorch", "2.7.0", "cuda126_mkl_py312_h0_300", line=10),
        pkg("pytorch-cuda", "12.1", "ha16c6d3_6", line=20),
    )
    assert [(f.line, f.rule) for f in model_findings(lock, "cuda-mismatch")] == [(10, "cuda-mismatch")]


def test_cuda_mismatch_pytorch_cuda_beside_a_conda_forge_pytorch_build_is_a_warning():
    # conda-forge's cuda112 build runs on any CUDA 11 >= 11.2; pytorch-cuda does not constrain it,
    # so "built for CUDA 11.2, but pytorch-cuda=11.7 pins CUDA 11.7" would be wrong: it has no effect
    fs = findings(
        """
        channels: [conda-forge, nodefaults]
        dependencies:
          - pytorch=1.13.1=cuda112*
          - pytorch-cuda=11.7
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message, f.packages, f.severity) for f in fs] == [
        (
            3,
            "pytorch=1.13.1=cuda112* is a conda-forge build, which pytorch-cuda=11.7 does not select or "
            "constrain (pytorch-cuda is the legacy pytorch channel's CUDA selector): it only adds the "
            "nvidia channel's CUDA 11.7 packages; drop it and pin the CUDA with cuda-version",
            ("pytorch", "pytorch-cuda"),
            "warning",
        )
    ]
    # a CUDA build newer than cuda-version is still an error beside it
    assert [
        (f.line, f.severity)
        for f in findings(
            """
        dependencies:
          - pytorch=2.1=cuda118*
          - cuda-version=11.2
          - pytorch-cuda=11.8
        """,
            rule="cuda-mismatch",
        )
    ] == [(2, "warning"), (2, "error"), (4, "error")]  # 4: pins contradict
    # the pytorch channel's own builds still need exactly the pinned pytorch-cuda
    assert [
        (f.line, f.severity)
        for f in findings(
            """
        dependencies:
          - pytorch=1.13.1=py3.9_cuda11.6_cudnn8.3.2_0
          - pytorch-cuda=11.7
        """,
            rule="cuda-mismatch",
        )
    ] == [(2, "error")]


def test_cuda_mismatch_major_only_and_old_cuda_tags():
    # defaults' cudnn `cuda11_0` and RAPIDS' `cuda_11_py39_...` name CUDA 11, the major alone
    # (they once decoded as "CUDA 1.1" and were reported against every CUDA 11 pin)
    assert (
        hits(
            """
        dependencies:
          - cudatoolkit=11.7.0=hd8887f6_10
          - pytorch-cuda=11.7
          - cudnn=8.9.2.26=cuda11_0
          - cudf=22.12.01=cuda_11_py39_gf700408e68_0
          - cuml=22.12.00=cuda11_py39_ga9bca9036_0
          - libfaiss=1.7.0=cuda112h5bea7ad_8_cuda
        """,
            "cuda-mismatch",
        )
        == []
    )
    fs = findings(
        """
        dependencies:
          - cuda-version=12.1
          - cudnn=8.9.2.26=cuda11_0
        """,
        rule="cuda-mismatch",
    )
    assert [(f.line, f.message) for f in fs] == [
        (3, "cudnn=8.9.2.26=cuda11_0 is built for CUDA 11.x, but cuda-version=12.1 pins CUDA 12.1")
    ]
    # the pytorch channel's 2018 builds: `cuda90` is CUDA 9.0 (not a major version "90")
    assert (
        hits(
            """
        dependencies:
          - pytorch=0.4.1=py36_cuda90_cudnn7he774522_1
          - cudatoolkit=9.0
        """,
            "cuda-mismatch",
        )
        == []
    )
    assert hits(
        """
        dependencies:
          - pytorch=0.4.1=py36_cuda92_cudnn7he774522_1
          - cudatoolkit=9.0
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 2)]


def test_cuda_mismatch_pip_local_version_and_index_against_conda():
    assert hits(
        """
        dependencies:
          - cudatoolkit=11.8
          - pip
          - pip:
            - torch==2.1.0+cu121
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 5)]
    assert hits(
        """
        dependencies:
          - cudatoolkit=11.8
          - pip
          - pip:
            - --index-url https://download.pytorch.org/whl/cu121
            - torch==2.1.0
        """,
        "cuda-mismatch",
    ) == [("cuda-mismatch", 6)]
    assert (
        hits(
            """
        dependencies:
          - cudatoolkit=11.6
          - pip
          - pip:
            - torch==1.12.1+cu116
        """,
            "cuda-mismatch",
        )
        == []
    )


def test_cuda_mismatch_pip_wheel_cuda_from_its_locked_runtime_dependency():
    # PyPI's torch wheels have no `+cuXXX`; a lock records the CUDA runtime wheel they pin
    runtime = (("filelock", "*"), ("nvidia-cuda-runtime-cu12", "12.1.105"))
    torch = pkg("torch", "2.3.1", manager="pip", line=9, depends=runtime)
    bad = linux_lock(
        pkg("cuda-version", "11.8", "h70ddcb2_3", line=2),
        pkg("cudatoolkit", "11.8.0", "h4ba93d1_13", line=3),
        torch,
    )
    fs = model_findings(bad, "cuda-mismatch")
    assert [(f.line, f.message) for f in fs] == [
        (
            9,
            (
                "pip torch==2.3.1 (its nvidia-cuda-runtime-cu12 12.1.105) is built for CUDA 12.1, but "
                "conda's "
                "CUDA pins provide CUDA 11.8 (cuda-version=11.8=h70ddcb2_3, cudatoolkit=11.8.0=h4ba93d1_13)"
            ),
        )
    ]
    assert fs[0].packages == ("torch", "cuda-version", "cudatoolkit")
    ok = Lock(
        kind="conda-lock",
        platforms=("linux-64",),
        packages=(pkg("cuda-version", "12.4", "h3060b56_3", line=2), torch),
    )
    assert model_findings(ok, "cuda-mismatch") == []  # an older CUDA 12 wheel runs on CUDA 12.4
    assert (
        model_findings(
            linux_lock(
                pkg("cuda-version", "11.8", "h70ddcb2_3", line=2),
                pkg("torch", "2.3.1", manager="pip", line=9),
            ),
            "cuda-mismatch",
        )
        == []
    )  # nothing recorded


def test_torch_pairing_triple():
    # a version-pairing problem is its own rule, not cuda-mismatch
    text = """
        dependencies:
          - pytorch=1.10.1
          - torchvision=0.12.0
          - torchaudio=0.10.1
        """
    assert hits(text, "torch-pairing") == [("torch-pairing", 3)]  # 1.10 goes with torchvision 0.11
    assert hits(text, "cuda-mismatch") == []
    assert (
        hits(
            """
        dependencies:
          - pytorch=2.3.1
          - torchvision=0.18.1
          - torchaudio=2.3.1
        """,
            "torch-pairing",
        )
        == []
    )


# --------------------------------------------------------------------------------------------
# leaked-secret / leaked-prefix


def test_leaked_secret_kinds_and_non_secrets():
    fs = findings(
        """
        channels:
          - https://conda.anaconda.org/t/ab-1234567890/private   # envkit-test
          - https://${ANACONDA_TOKEN}@conda.example.org/c
        # - https://conda.anaconda.org/t/zz-0987654321/old
        dependencies:
          - pip
          - pip:
            - --index-url https://user:hunter2@pypi.example.org/simple
            - --extra-index-url https://pypi.example.org/simple?token=abc123
            - pkg @ git+https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/o/pkg.git
            - other @ git+ssh://git@github.com/o/other.git
            - third @ git+https://${GH_TOKEN}@github.com/o/third.git
        # see https://discuss.pytorch.org/t/some-topic/12345
        """,
        rule="leaked-secret",
    )
    assert [f.line for f in fs] == [2, 4, 8, 9, 10]
    assert "ab-1234567890" not in " ".join(f.message for f in fs)
    assert (
        fs[2].message
        == "a user name and password in a URL: https://<USER>:<PASSWORD>@pypi.example.org/simple"
    )


def test_leaked_secret_in_variables():
    fs = findings(
        """
        name: x
        dependencies: [python=3.11]
        variables:
          HF_TOKEN: hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ
          TOKENIZERS_PARALLELISM: "false"
          WANDB_API_KEY: "${WANDB_API_KEY}"
          AWS_SECRET_ACCESS_KEY: <TOKEN>
          HF_TOKEN_PATH: /data/hf/token
          PGPASSWORD: 'hunter2'
          OMP_NUM_THREADS: 4
        """,
        rule="leaked-secret",
    )
    assert [(f.line, f.message) for f in fs] == [
        (4, "a credential in a variable: HF_TOKEN: <TOKEN>"),
        (9, "a credential in a variable: PGPASSWORD: <TOKEN>"),
    ]
    assert all(f.fixable for f in fs)
    # flow style, as `variables: {HF_TOKEN: hf_...}`
    flow = findings(
        "dependencies: [python]\nvariables: {HF_TOKEN: hf_abc123, API_TOKEN: '${T}'}\n", rule="leaked-secret"
    )
    assert [(f.line, f.message) for f in flow] == [(2, "a credential in a variable: HF_TOKEN: <TOKEN>")]
    # a file whose YAML cannot be read (a duplicated key) is scanned as text
    dup = findings(
        "dependencies: [python]\ndependencies: [numpy]\nvariables:\n  API_TOKEN: hunter2\n",
        rule="leaked-secret",
    )
    assert [(f.line, f.message) for f in dup] == [(4, "a credential in a variable: API_TOKEN: <TOKEN>")]


def test_fix_redacts_secret_variables(tmp_path):
    from envkit.checks.fix import apply_fixes

    text = (
        "name: x  # envkit-test\ndependencies: [python]\nvariables: {HF_TOKEN: hf_abc123, X: 'y'}\n# keep\n"
    )
    path = tmp_path / "environment.yml"
    path.write_text(text)
    fs = findings(text, str(path), rule="leaked-secret")
    done = apply_fixes(fs, {str(path): text})
    assert [d.line for d in done] == [3]
    assert path.read_text() == (
        "name: x  # envkit-test\ndependencies: [python]\nvariables: {HF_TOKEN: <TOKEN>, X: 'y'}\n# keep\n"
    )
    assert findings(path.read_text(), str(path), rule="leaked-secret") == []


def test_fix_writes_no_file_when_one_of_them_changed_on_disk(tmp_path):
    from envkit.checks.fix import apply_fixes
    from envkit.errors import EnvkitError

    text = "name: x\ndependencies: [python]\nprefix: /home/alice/envs/x\n"
    a, b = tmp_path / "a.yml", tmp_path / "b.yml"
    a.write_text(text)
    b.write_text(text)
    fs = findings(text, str(a), rule="leaked-prefix") + findings(text, str(b), rule="leaked-prefix")
    assert [(f.file, f.fixable) for f in fs] == [(str(a), True), (str(b), True)]
    b.write_text(text + "# edited meanwhile\n")
    with pytest.raises(EnvkitError, match="changed while it was being checked; nothing was fixed"):
        apply_fixes(fs, {str(a): text, str(b): text})
    assert a.read_text() == text  # not rewritten behind a refusal
    b.write_text(text)
    assert [(d.file, d.line) for d in apply_fixes(fs, {str(a): text, str(b): text})] == [
        (str(a), 3),
        (str(b), 3),
    ]
    assert a.read_text() == b.read_text() == "name: x\ndependencies: [python]\n"


def test_leaked_prefix_and_home_paths():
    fs = findings(
        """
        name: x
        dependencies:
          - pip
          - pip:
            - -e /Users/bob/src/tool
            - file:///home/<user>/wheels/a.whl
        prefix: /opt/conda/envs/x
        """,
        rule="leaked-prefix",
    )
    assert [f.line for f in fs] == [5, 7]
    assert "user bob" in fs[0].message
    assert hits("name: x\ndependencies: [python]\n# https://example.com/home/page\n", "leaked-prefix") == []


# --------------------------------------------------------------------------------------------
# insecure-url


def test_insecure_url_channels_options_and_lock_urls():
    assert hits(
        """
        channels:
          - http://conda.example.org/main
          - http://localhost:8000/local
        dependencies:
          - pip
          - pip:
            - --trusted-host pypi.example.org
            - -f http://wheels.example.org/
        # http://example.com in a comment is not a channel
        """,
        "insecure-url",
    ) == [("insecure-url", 2), ("insecure-url", 7), ("insecure-url", 8)]
    lock = linux_lock(
        pkg("a", "1", "0", url="http://conda.example.org/c/linux-64/a-1-0.conda", line=3),
        pkg("b", "1", "0", url="http://conda.example.org/c/noarch/b-1-0.conda", line=4),
        pkg("c", "1", "0", url="https://conda.anaconda.org/conda-forge/linux-64/c-1-0.conda", line=5),
        kind="explicit",
    )
    fs = model_findings(lock, "insecure-url")
    assert [(f.line, f.packages) for f in fs] == [(3, ("a",)), (4, ("b",))] or [
        (f.line, f.packages) for f in fs
    ] == [(3, ("a", "b"))]


# --------------------------------------------------------------------------------------------
# missing-hash


def test_missing_hash_some_and_all():
    lock = linux_lock(
        pkg("a", "1", "0", url="https://x/linux-64/a-1-0.conda", md5="a" * 32, line=3),
        pkg("b", "1", "0", url="https://x/linux-64/b-1-0.conda", line=9),
        pkg("c", "1", manager="pip", url="https://files/c-1-py3-none-any.whl", line=15),
        pkg("d", "0.1", manager="pip", url="file:///src/d", editable=True, line=20),
    )
    assert [(f.line, f.packages) for f in model_findings(lock, "missing-hash")] == [(9, ("b",)), (15, ("c",))]
    bare = linux_lock(
        pkg("a", "1", "0", url="https://x/linux-64/a-1-0.conda", line=3),
        pkg("b", "1", "0", url="https://x/linux-64/b-1-0.conda", line=4),
        kind="explicit",
    )
    fs = model_findings(bare, "missing-hash")
    assert [(f.line, f.packages) for f in fs] == [(3, ("a", "b"))]
    assert fs[0].message == (
        "none of the 2 locked conda packages has an md5 or sha256 checksum; downloads cannot be verified"
    )
    # envkit's own lock of a local channel: only the 2 pip packages are downloaded, and it says so
    local = linux_lock(
        pkg("a", "1", "0", url="file:///chan/linux-64/a-1-0.conda", md5="a" * 32, line=3),
        pkg("c", "1", manager="pip", url="https://files/c-1-py3-none-any.whl", line=9),
        pkg("e", "2", manager="pip", url="https://files/e-2-py3-none-any.whl", line=15),
    )
    fs = model_findings(local, "missing-hash")
    assert [f.message for f in fs] == [
        "none of the 2 locked pip packages (besides 1 local or editable package, not downloaded) has an md5 "
        "or sha256 checksum; downloads cannot be verified"
    ]
    assert (
        model_findings(
            Lock(kind="conda-list", platforms=("linux-64",), packages=bare.packages), "missing-hash"
        )
        == []
    )


# --------------------------------------------------------------------------------------------
# duplicate-key / pip-without-pip


def test_duplicate_key_still_runs_the_raw_text_rules():
    fs = findings("""
        channels: [conda-forge]
        channels: [defaults]
        dependencies: [python]
        prefix: /home/alice/envs/x
        """)
    assert [(f.rule, f.line) for f in fs] == [("duplicate-key", 2), ("leaked-prefix", 4)]


def test_pip_without_pip():
    assert hits(
        """
        dependencies:
          - python
          - pip:
            - requests
        """,
        "pip-without-pip",
    ) == [("pip-without-pip", 3)]
    assert (
        hits(
            """
        dependencies:
          - python
          - pip=24
          - pip:
            - requests
        """,
            "pip-without-pip",
        )
        == []
    )


def test_severity_override_and_hit_severity():
    cfg = Config(severity={"mixed-channels": "error"})
    fs = findings("channels: [conda-forge, defaults]\ndependencies: [python]\n", config=cfg)
    assert [(f.rule, f.severity) for f in fs] == [("mixed-channels", "error")]


def test_pixi_lock_environments_are_all_checked_and_findings_not_repeated():
    text = textwrap.dedent("""\
        version: 6
        environments:
          default:
            channels:
            - url: https://conda.anaconda.org/conda-forge/
            - url: https://conda.anaconda.org/main/
            packages:
              linux-64:
              - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.1-h0_0_cpython.conda
          dev:
            channels:
            - url: https://conda.anaconda.org/conda-forge/
            - url: https://conda.anaconda.org/main/
            packages:
              linux-64:
              - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.1-h0_0_cpython.conda
        packages:
        - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.1-h0_0_cpython.conda
          sha256: 0000000000000000000000000000000000000000000000000000000000000000
          md5: 00000000000000000000000000000000
          depends: []
        """)
    targets = targets_from_text(text, "pixi.lock")
    assert [t.model.environment for t in targets] == ["default", "dev"]
    fs = run_checks(targets, Config(select=("mixed-channels",)))
    assert [(f.rule, f.file) for f in fs] == [("mixed-channels", "pixi.lock")]


def test_cuda_mismatch_reads_every_pytorch_index_url_as_the_lock_does():
    # PyTorch's release-candidate channel `/whl/test/cuXYZ`: the rule's own index parser knew only
    # `nightly/`, so the cu121 index beside CUDA 11.8 went unreported
    text = """
        dependencies:
          - cudatoolkit=11.8
          - pip
          - pip:
            - --index-url https://download.pytorch.org/whl/test/cu121
            - torch==2.1.0
        """
    assert hits(text, "cuda-mismatch") == [("cuda-mismatch", 6)]
    # the CPU index beside CUDA pins is the CPU torch, the same way
    assert hits(text.replace("test/cu121", "cpu"), "cuda-mismatch") == [("cuda-mismatch", 6)]
