"""The live-environment rules on real prefixes built by py-rattler (tests/support/condafactory.py)."""

from __future__ import annotations

import json

import pytest
from support.condafactory import build_wheel, copy_prefix, pip_install, pip_overwrite, write_condarc

from envkit.backends import open_env
from envkit.checks import live_target, run_checks
from envkit.config import Config

pytestmark = pytest.mark.slow


def _env(prefix, tmp_path):
    # an empty HOME: the user's own .condarc must not leak into the test
    return open_env(prefix=str(prefix), environ={"HOME": str(tmp_path / "home"), "PATH": ""})


def _check(env, *rules, lock=None):
    t = live_target(env)
    t.lock = lock
    return run_checks([t], Config(select=rules or None))


def test_clean_prefix_has_no_live_findings(tmp_path, default_prefix):
    env = _env(default_prefix, tmp_path)
    assert [(f.rule, f.message) for f in _check(env)] == []


def test_pip_beside_conda_is_a_duplicate(tmp_path, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "wheels", "numpy", "2.0.0"))  # conda's dist-info stays
    fs = _check(_env(prefix, tmp_path), "conda-pip-duplicate", "pip-overwrote-conda")
    assert [(f.rule, f.file, f.line, f.message) for f in fs] == [
        ("conda-pip-duplicate", str(prefix), None, "numpy is installed by conda (1.26.4) and pip (2.0.0)")
    ]


def test_pip_over_conda_is_reported_once_as_overwrite(tmp_path, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_overwrite(prefix, build_wheel(tmp_path / "wheels", "numpy", "2.0.0"))
    fs = _check(_env(prefix, tmp_path), "conda-pip-duplicate", "pip-overwrote-conda")
    assert [(f.rule, f.packages) for f in fs] == [("pip-overwrote-conda", ("numpy",))]
    assert fs[0].message.startswith("pip installed numpy 2.0.0 over conda's numpy 1.26.4")


def test_pip_reinstall_of_the_same_version_is_an_overwrite_not_a_duplicate(tmp_path, default_prefix):
    # `pip install --force-reinstall numpy==1.26.4`: conda's dist-info name stays, pip owns it now
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "wheels", "numpy", "1.26.4"))
    fs = _check(_env(prefix, tmp_path), "conda-pip-duplicate", "pip-overwrote-conda")
    assert [(f.rule, f.packages) for f in fs] == [("pip-overwrote-conda", ("numpy",))]
    assert fs[0].message.startswith("pip installed numpy 1.26.4 over conda's numpy 1.26.4")


def test_channel_priority_from_the_prefix_condarc(tmp_path, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_condarc(prefix / ".condarc", channels=["conda-forge", "pytorch"], channel_priority="flexible")
    fs = _check(_env(prefix, tmp_path), "channel-priority")
    assert [(f.rule, f.severity) for f in fs] == [("channel-priority", "warning")]
    assert "channel_priority is 'flexible'" in fs[0].message
    write_condarc(prefix / ".condarc", channels=["conda-forge", "pytorch"], channel_priority="strict")
    assert _check(_env(prefix, tmp_path), "channel-priority") == []


def test_env_drift_against_a_lock_of_the_same_prefix(tmp_path, default_prefix):
    from envkit.checks.core import Target
    from envkit.lock import lock_live

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    lock = lock_live(_env(prefix, tmp_path))
    lock_target = Target(path="conda-lock.yml", kind="lock", model=lock)
    assert _check(_env(prefix, tmp_path), "env-drift", lock=lock_target) == []
    pip_install(prefix, build_wheel(tmp_path / "wheels", "tinyreq", "2.0"))
    fs = _check(_env(prefix, tmp_path), "env-drift", lock=lock_target)
    assert [f.message for f in fs] == ["tinyreq 2.0 (pip) is installed but not in the lock"]


def test_cli_checks_a_prefix_with_its_lock(tmp_path, default_prefix, envkit_cli):
    from envkit.formats.condalock import write_conda_lock
    from envkit.lock import lock_live

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    lock_file = tmp_path / "conda-lock.yml"
    lock_file.write_text(write_conda_lock(lock_live(_env(prefix, tmp_path))))
    pip_overwrite(prefix, build_wheel(tmp_path / "wheels", "numpy", "2.0.0"))
    r = envkit_cli(
        "check",
        "-p",
        str(prefix),
        "--lock",
        str(lock_file),
        "--format",
        "json",
        env={"HOME": str(tmp_path / "home")},
    )
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    assert [(f["rule"], f["file"], f["message"]) for f in doc["findings"]] == [
        ("env-drift", str(prefix), "numpy 2.0.0 (pip) is installed but not in the lock"),
        (
            "pip-overwrote-conda",
            str(prefix),
            "pip installed numpy 2.0.0 over conda's numpy 1.26.4: conda's files are gone but its record "
            f"remains in conda-meta; repair: `{prefix}/bin/python -m pip uninstall -y numpy`, then "
            f"`conda install -p {prefix} --force-reinstall --no-deps --override-channels -c "
            f"{_numpy_channel(prefix)} numpy=1.26.4=py311h64a7726_0`",
        ),
    ]
    assert (doc["summary"]["checked"], doc["summary"]["environments"]) == ([str(lock_file)], [str(prefix)])
    assert r.stderr == ""  # the findings, not also a warning


def _numpy_channel(prefix) -> str:
    """The channel of the conda record, as envkit names it (a local channel: its URL)."""
    record = next((prefix / "conda-meta").glob("numpy-1.26.4-*.json"))
    return json.loads(record.read_text())["channel"].rsplit("/", 1)[0]


def test_the_repair_pip_overwrote_conda_names_repairs_it_with_a_real_conda(
    tmp_path, default_prefix, real_conda
):
    import shlex
    import shutil

    from support.condafactory import site_packages

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_overwrite(prefix, build_wheel(tmp_path / "wheels", "numpy", "2.0.0"))
    [finding] = _check(_env(prefix, tmp_path), "pip-overwrote-conda")
    pip_cmd, conda_cmd = (c.strip("`") for c in finding.message.split("repair: ")[1].split(", then "))
    # the pip half, as pip would do it (the prefix's python is the factory's stand-in, without pip)
    assert shlex.split(pip_cmd)[1:] == ["-m", "pip", "uninstall", "-y", "numpy"]
    for dist in site_packages(prefix).glob("numpy-2.0.0.dist-info"):
        for row in (dist / "RECORD").read_text().splitlines():
            (site_packages(prefix) / row.split(",")[0]).unlink(missing_ok=True)
        shutil.rmtree(dist)
    argv = shlex.split(conda_cmd)
    assert argv[:2] == ["conda", "install"]
    conda = real_conda.isolated(tmp_path / "conda")
    conda.run(*argv[1:], "-y", "--offline")
    assert _check(_env(prefix, tmp_path), "pip-overwrote-conda", "conda-pip-duplicate") == []


def test_abi_and_cuda_mismatch_on_a_built_prefix(tmp_path):
    from support.condafactory import ChannelBuilder, Pkg, default_packages, make_prefix, python_pkg

    chan = ChannelBuilder(tmp_path / "chan", name="local")
    chan.add(*default_packages())
    # a compiled extension built for Python 3.12 that forgot its python dependency (so the solver
    # lets it into a 3.11 env), and the CUDA 11.8 toolkit beside the CPU build of pytorch
    chan.add(
        python_pkg("fastext", "1.0", build="py312h0_0", py="3.12", depends=["zlib"]),
        Pkg(name="cudatoolkit", version="11.8.0", build="h0_13"),
    )
    chan.index()
    prefix = make_prefix(
        tmp_path / "env",
        [chan],
        ["python=3.11", "pytorch", "fastext", "cudatoolkit=11.8"],
        cache_dir=tmp_path / "pkgs",
    )
    fs = _check(_env(prefix, tmp_path), "python-abi-mismatch", "cuda-mismatch")
    assert [(f.rule, f.packages) for f in fs] == [
        ("cuda-mismatch", ("pytorch", "cudatoolkit")),
        ("python-abi-mismatch", ("fastext", "python")),
    ]
    assert fs[0].message == (
        "pytorch=2.2.1=cpu_py311h0_0 selects a CPU build of PyTorch, but the "
        "environment pins CUDA (cudatoolkit=11.8.0=h0_13)"
    )
    assert fs[1].message == "fastext 1.0 build 'py312h0_0' is for Python 3.12, but the python package is 3.11"


def test_duplicate_name_map_comes_from_the_dist_info_conda_owns(tmp_path):
    # conda `fastlib-conda` ships the PyPI project `fastlib-py` (a pair no shipped map knows): the
    # prefix's own records say so, so pip's fastlib-py beside it is the same project
    from support.condafactory import ChannelBuilder, default_packages, make_prefix, python_pkg

    from envkit.conda.names import find_duplicates

    assert find_duplicates(["fastlib-conda"], ["fastlib-py"]) == []
    chan = ChannelBuilder(tmp_path / "chan", name="local")
    chan.add(*default_packages())
    chan.add(python_pkg("fastlib-conda", "1.0", pypi_name="fastlib-py"))
    chan.index()
    prefix = make_prefix(
        tmp_path / "env", [chan], ["python=3.11", "fastlib-conda"], cache_dir=tmp_path / "pkgs"
    )
    assert _check(_env(prefix, tmp_path), "conda-pip-duplicate") == []
    pip_install(prefix, build_wheel(tmp_path / "wheels", "fastlib-py", "2.0"))
    fs = _check(_env(prefix, tmp_path), "conda-pip-duplicate")
    assert [(f.message, f.packages) for f in fs] == [
        (
            "fastlib-py is installed by conda (fastlib-conda 1.0) and pip (2.0)",
            ("fastlib-conda", "fastlib-py"),
        )
    ]


def _relabel_channels(prefix, channel_of):
    """Record in conda-meta the channel each package came from, as conda writes it for packages
    installed from anaconda.org or repo.anaconda.com (`channel_of(name)` -> channel URL or None)."""
    for rec_path in (prefix / "conda-meta").glob("*.json"):
        rec = json.loads(rec_path.read_text())
        url = channel_of(rec["name"])
        if url:
            rec["channel"] = f"{url}/{rec['subdir']}"
            rec["url"] = f"{url}/{rec['subdir']}/{rec['fn']}"
            rec_path.write_text(json.dumps(rec, indent=2))


def test_mixed_channels_in_a_live_prefix(tmp_path, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    _relabel_channels(prefix, lambda name: "https://conda.anaconda.org/conda-forge")
    assert _check(_env(prefix, tmp_path), "mixed-channels") == []
    # zlib from Anaconda's defaults (pkgs/main), everything else from conda-forge
    _relabel_channels(prefix, lambda name: "https://repo.anaconda.com/pkgs/main" if name == "zlib" else None)
    fs = _check(_env(prefix, tmp_path), "mixed-channels")
    assert [(f.rule, f.severity, f.line, f.packages) for f in fs] == [
        ("mixed-channels", "warning", None, ("pkgs/main", "conda-forge"))
    ]
    assert fs[0].message.startswith("defaults channels (pkgs/main) are mixed with conda-forge")


def test_insecure_url_from_the_prefix_condarc(tmp_path, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_condarc(prefix / ".condarc", channels=["https://conda.example.org/internal"])
    assert _check(_env(prefix, tmp_path), "insecure-url") == []
    write_condarc(prefix / ".condarc", channels=["http://conda.example.org/internal"])
    fs = _check(_env(prefix, tmp_path), "insecure-url")
    assert [(f.rule, f.line, f.message) for f in fs] == [
        (
            "insecure-url",
            None,
            "channel http://conda.example.org/internal is reached over plain http: "
            "http://conda.example.org/internal",
        )
    ]
