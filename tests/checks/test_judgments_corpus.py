"""Judgments on real files (tests/data/corpus): selectors, conda-lock hashes of other releases,
abi3 builds, one cause reported once.  Through the CLI, as users run it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, run_envkit


def _c(number: str) -> str:
    [path] = sorted(CORPUS.glob(f"{number}_*"))
    return path.name


def test_selectors_apply_per_platform_in_lock_check_and_check():
    # 71 lists `pytorch-cuda=11.8  # [linux]` and `# [win]`; its lock has none for osx-arm64
    r = run_envkit("lock", "--check", "-f", _c("71"), "--lock", _c("72"), cwd=CORPUS)
    assert r.exit_code == 0, r.stdout
    assert r.stdout.splitlines()[-1] == f"{_c('72')} satisfies {_c('71')} (linux-64, osx-arm64, win-64)"
    assert "missing" not in r.stdout
    r = run_envkit("check", "--format", "json", "--ignore", "cuda-mismatch", _c("71"), _c("72"), cwd=CORPUS)
    assert r.exit_code == 0 and json.loads(r.stdout)["findings"] == []


@pytest.mark.parametrize(("spec", "lock"), [("73", "74"), ("75", "76"), ("69", "70")])
def test_a_conda_lock_hash_envkit_cannot_reproduce_is_not_comparable_never_stale(spec, lock):
    # 74/76: conda-lock 1.0.x CI locks (2022) of their spec; 70: conda-lock 2.5 `--with-cuda`
    r = run_envkit("lock", "--check", "-f", _c(spec), "--lock", _c(lock), cwd=CORPUS)
    assert r.exit_code == 0, r.stdout
    lines = r.stdout.splitlines()
    assert lines[-1].startswith(f"{_c(lock)} satisfies {_c(spec)} (")
    assert all(": note: " in line and "hash not comparable" in line for line in lines[:-1])
    assert "stale" not in r.stdout


@pytest.mark.parametrize("number", ["89", "90"])
def test_abi3_builds_beside_python_abi3_support_are_no_mismatch(number):
    r = run_envkit("check", "--select", "python-abi-mismatch", _c(number), cwd=CORPUS)
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")


def test_one_home_directory_in_every_pip_compile_comment_is_one_finding():
    r = run_envkit("check", "--format", "json", _c("87"), cwd=CORPUS)
    [f] = json.loads(r.stdout)["findings"]
    assert (f["rule"], f["line"]) == ("leaked-prefix", 9)
    assert f["message"].endswith("48 lines name this home (lines 9, 13, 14, 17, 23, 27, 35, 40, 45, 56, ...)")


def test_a_package_listed_twice_in_one_section_is_found():
    r = run_envkit("check", "--select", "listed-twice", _c("13"), cwd=CORPUS)
    assert r.exit_code == 0  # a warning; --fail-on decides
    assert r.stdout.splitlines()[0] == (
        f"{_c('13')}:32: warning listed-twice: h5py is listed 2 times in the conda section: "
        "'h5py' (line 27), 'h5py==3.13.0' (line 32); keep one entry"
    )
    # 01's two `pytorch-cuda` lines carry selectors: alternatives, not repeats
    r = run_envkit("check", "--select", "listed-twice", _c("01"), cwd=CORPUS)
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")


@pytest.mark.parametrize(("number", "line"), [("03", 40), ("06", 20), ("11", 39), ("18", 61), ("24", 144)])
def test_a_vcs_requirement_without_a_revision_is_found(number, line):
    r = run_envkit("check", "--format", "json", "--select", "vcs-unpinned", _c(number), cwd=CORPUS)
    [f] = json.loads(r.stdout)["findings"]
    assert (f["rule"], f["line"]) == ("vcs-unpinned", line)
    assert f["message"].startswith("git+https://github.com/")


def test_a_vcs_requirement_with_a_branch_or_commit_is_not_flagged():
    # 09 pins `@master` / `@main`
    r = run_envkit("check", "--select", "vcs-unpinned", _c("09"), cwd=CORPUS)
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")


@pytest.mark.parametrize(("spec", "lock"), [("77", "78"), ("69", "70"), ("71", "72")])
def test_diff_of_a_spec_and_its_lock_ignores_nodefaults(spec, lock):
    # conda-lock keeps `nodefaults` in 72's channels and drops it from 70's and 78's: a directive
    r = run_envkit("diff", _c(spec), _c(lock), cwd=CORPUS)
    assert (r.exit_code, r.stdout.splitlines()[-1]) == (0, "Same: every spec entry is satisfied.")
    assert "only on" not in r.stdout


def test_lock_check_of_a_requirements_file_finds_torch_as_the_conda_pytorch(tmp_path):
    # 78 locks conda-forge's pytorch 2.1.0 (and numpy) as conda packages
    req = tmp_path / "requirements.txt"
    req.write_text("torch>=2.1,<2.2\nnumpy\n")
    lock = CORPUS / _c("78")
    r = run_envkit("lock", "--check", "-f", str(req), "--lock", str(lock))
    assert r.exit_code == 0, r.stdout
    assert r.stdout == (
        f"{lock}: note: linux-64: hash not comparable (lock written by conda-lock; conda-lock hashes "
        "environment files, and this is a pip requirements file); only checked that the lock satisfies "
        "the spec\n"
        f"{lock} satisfies {req} (linux-64)\n"
    )
    req.write_text("torch>=2.3\n")
    r = run_envkit("lock", "--check", "-f", str(req), "--lock", str(lock))
    assert r.exit_code == 1
    assert f"{req}:1: unsatisfied: linux-64: pip torch>=2.3: locked " in r.stdout


def test_lock_refuses_a_requirements_file_and_a_spec_with_nothing_to_lock(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("numpy\n")
    r = run_envkit("lock", "-f", str(req), "-o", str(tmp_path / "lock.yml"))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {req}: this is a pip requirements file: ")
    spec = tmp_path / "environment.yml"
    spec.write_text("name: x\nchannels:\n  - conda-forge\n")
    r = run_envkit("lock", "-f", str(spec), "-o", str(tmp_path / "lock.yml"))
    assert (r.exit_code, r.stderr.splitlines()[0]) == (
        2,
        f"error: {spec}: the environment file lists no dependencies: nothing to lock",
    )
    assert not (tmp_path / "lock.yml").exists()


@pytest.mark.parametrize(
    ("typo", "key", "line"), [("dependences", "dependencies", 4), ("chanels", "channels", 2)]
)
@pytest.mark.parametrize("command", [["validate"], ["check"], ["lock", "-o", "lock.yml", "-f"]])
def test_a_misspelled_top_level_key_is_an_error_with_did_you_mean(tmp_path, typo, key, line, command):
    text = "name: x\nchannels:\n  - conda-forge\ndependencies:\n  - numpy\n".replace(f"{key}:", f"{typo}:")
    (tmp_path / "environment.yml").write_text(text)
    r = run_envkit(*command, "environment.yml", cwd=tmp_path)
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: environment.yml:{line}: unknown top-level key `{typo}:`\nhint: did you mean `{key}:`?\n"
    )
    assert not (tmp_path / "lock.yml").exists()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_check_reports_an_unreadable_file_checks_the_rest_and_exits_2(fmt):
    r = run_envkit("check", "--format", fmt, _c("02"), "README.md", _c("06"), cwd=CORPUS)
    assert r.exit_code == 2
    assert r.stderr == (
        "error: README.md: cannot tell the format of this file\n"
        "hint: pass --input-format (one of: env, explicit, conda-lock, pixi, requirements, conda-list-json, "
        "conda-list-export, pylock, uv-lock, conda-requirements, pixi-manifest, pyproject)\n"
    )
    if fmt == "text":
        assert r.stdout.splitlines()[-1] == "2 findings (2 warnings) in 2 files checked"
    elif fmt == "json":
        found = [(f["file"], f["rule"]) for f in json.loads(r.stdout)["findings"]]
        assert found == [
            (_c("06"), "mixed-channels"),
            (_c("06"), "vcs-unpinned"),
        ]
    else:
        assert len(json.loads(r.stdout)["runs"][0]["results"]) == 2


def test_a_mirror_of_conda_forge_and_defaults_counts_as_those_channels(tmp_path):
    # the layout of https://mirrors.tuna.tsinghua.edu.cn/help/anaconda/ (cloud/conda-forge, pkgs/main)
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "name: x\nchannels:\n  - https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge/\n"
        "  - https://mirrors.tuna.tsinghua.edu.cn/anaconda/pkgs/main/\ndependencies:\n  - numpy\n"
    )
    r = run_envkit("check", "--format", "json", "--select", "mixed-channels", str(spec))
    [f] = json.loads(r.stdout)["findings"]
    assert (f["severity"], f["line"]) == ("warning", 4)
    assert f["message"].startswith(
        "defaults channels (https://mirrors.tuna.tsinghua.edu.cn/anaconda/pkgs/main) are mixed with "
        "conda-forge"
    )
    spec.write_text(
        "name: x\nchannels:\n  - https://prefix.dev/conda-forge\n  - defaults\ndependencies:\n  - numpy\n"
    )
    r = run_envkit("check", "--format", "json", "--select", "mixed-channels", str(spec))
    [f] = json.loads(r.stdout)["findings"]
    assert (f["severity"], f["line"]) == ("warning", 4)


def test_platform_only_is_one_finding_per_subdir_and_none_for_an_export_in_effect(tmp_path):
    # the `channel/subdir::name==version=build` lines conda prints in its package plan, pasted
    # into an environment file: every entry pins an exact build, so it records one machine
    entries = ["bzip2==1.0.8=h0ad9c76_8", "libffi==3.4.6=h537db12_1", "openssl==3.5.3=h725018a_1"]
    entries += ["python==3.10.8=h4de0772_0_cpython", "tk==8.6.13=h2c6b04d_2"]
    spec = tmp_path / "environment.yml"
    body = "".join(f"  - conda-forge/win-64::{e}\n" for e in entries)
    spec.write_text("name: x\nchannels:\n  - conda-forge\ndependencies:\n" + body)
    r = run_envkit("check", "--select", "platform-only", str(spec))
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")
    # without builds, the five win-64 prefixes are one cause: one finding, with the lines
    spec.write_text(
        "name: x\nchannels:\n  - conda-forge\ndependencies:\n"
        + "".join(f"  - conda-forge/win-64::{e.split('=')[0]}\n" for e in entries)
    )
    r = run_envkit("check", "--format", "json", "--select", "platform-only", str(spec))
    [f] = json.loads(r.stdout)["findings"]
    assert (f["line"], f["packages"]) == (5, ["bzip2", "libffi", "openssl", "python", "tk"])
    assert f["message"].startswith("5 entries are pinned to the win-64 subdir, for Windows only, in a file")
    assert f["message"].endswith("; lines 5, 6, 7, 8, 9)")


def test_torch_pulled_in_by_a_conda_package_and_installed_by_pip_is_a_duplicate(tmp_path):
    # 53 (conda-lock) shows what this spec shape solves to: conda pytorch-lightning -> conda
    # pytorch, and pip torch beside it
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "name: x\nchannels:\n  - conda-forge\n  - nodefaults\ndependencies:\n  - python=3.11\n"
        "  - pytorch-lightning=2.2\n  - pip\n  - pip:\n    - torch==2.3.1\n"
    )
    r = run_envkit("check", "--format", "json", "--select", "conda-pip-duplicate", str(spec))
    [f] = json.loads(r.stdout)["findings"]
    assert (f["line"], f["packages"]) == (10, ["pytorch-lightning", "torch"])
    assert f["message"].startswith(
        "torch is installed by conda (pytorch, which conda's pytorch-lightning at line 7 depends on) and pip"
    )
    r = run_envkit(
        "check",
        "--format",
        "json",
        "--select",
        "conda-pip-duplicate",
        "53_EthanMarx__ztf-lfi-demo__conda-lock.yml",
        cwd=CORPUS,
    )
    assert [f["packages"] for f in json.loads(r.stdout)["findings"]] == [["pytorch", "torch"]]


def _cuda_10_1_machine(tmp_path) -> str:
    doc = json.loads((CORPUS.parent / "machine" / "centos7-server.json").read_text())
    doc.update(driver="418.67", driver_cuda="10.1", driver_cuda_source="nvidia-smi")
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize(
    ("number", "line", "start"),
    [
        ("01", 15, "pytorch::pytorch-cuda=11.8 needs CUDA 11.8; "),
        ("03", 18, "cudatoolkit=11.3 needs CUDA 11.3; "),
        ("14", 15, "torch==2.10.0+cu128 needs CUDA 12.8 [its +cu local version]; "),
    ],
)
def test_check_machine_judges_what_a_spec_asks_for(tmp_path, number, line, start):
    machine = _cuda_10_1_machine(tmp_path)
    r = run_envkit(
        "check",
        "--format",
        "json",
        "--select",
        "machine-cuda-driver",
        "--machine",
        machine,
        _c(number),
        cwd=CORPUS,
    )
    [f] = json.loads(r.stdout)["findings"]
    assert (f["severity"], f["line"]) == ("error", line)
    assert f["message"].startswith(start)
    assert "has driver 418.67, CUDA 10.1" in f["message"]


@pytest.mark.parametrize(("number", "line", "cu", "index"), [("15", 9, "126", 8), ("22", 11, "124", 10)])
def test_check_machine_does_not_take_an_unpinned_torch_for_the_index_build(tmp_path, number, line, cu, index):
    # 22: the cu124 index only as --extra-index-url; 15: the cu126 index with PyPI as an extra one.
    # pip takes PyPI's newer torch either way (the wheel-index warning), so its CUDA is not cu1XY's
    r = run_envkit(
        "check", "--format", "json", "--select", "machine-cuda-driver", "--machine",
        _cuda_10_1_machine(tmp_path), _c(number), cwd=CORPUS,
    )  # fmt: skip
    [f] = json.loads(r.stdout)["findings"]
    assert (f["severity"], f["line"]) == ("info", line)
    assert f["message"] == (
        f"torch: pip searches another index beside the cu{cu} one (line {index}) and takes the highest "
        f"torch, PyPI's newer release, not a cu{cu} build; which CUDA that carries only a solve decides; "
        f"pin torch==X or make the cu{cu} index the only one, then lock it (`envkit lock`) and check "
        "the lock with --machine"
    )


def test_check_machine_on_a_spec_says_when_only_a_solve_decides_the_cuda(tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "name: x\nchannels:\n  - conda-forge\n  - nodefaults\ndependencies:\n  - python=3.11\n  - pip\n"
        "  - pip:\n    - jax[cuda13]\n    - tensorflow[and-cuda]\n"
    )
    r = run_envkit(
        "check",
        "--format",
        "json",
        "--select",
        "machine-cuda-driver",
        "--machine",
        _cuda_10_1_machine(tmp_path),
        str(spec),
    )
    found = [(f["severity"], f["line"], f["message"].split(";")[0]) for f in json.loads(r.stdout)["findings"]]
    assert found == [
        ("error", 9, "jax[cuda13] needs CUDA 13.x"),
        ("info", 10, "tensorflow[and-cuda] asks for a CUDA build whose CUDA version only a solve decides"),
    ]


def test_check_machine_says_not_checked_for_a_conda_forge_cuda_torch(tmp_path):
    doc = json.loads((CORPUS.parent / "machine" / "centos7-server.json").read_text())
    doc.update(
        driver="570.86.15", driver_cuda="12.8", driver_cuda_source="nvidia-smi", gpu_source="nvidia-smi"
    )
    doc["gpus"] = [
        {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "memory_mib": 32607}
    ]
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps(doc))
    r = run_envkit(
        "check",
        "--format",
        "json",
        "--select",
        "machine-gpu-arch",
        "--machine",
        str(machine),
        _c("70"),
        cwd=CORPUS,
    )
    [f] = json.loads(r.stdout)["findings"]
    assert (f["severity"], f["line"]) == ("info", 5317)
    assert f["message"].startswith(
        "pytorch 2.1.2 is a CUDA 12.0 build whose GPU architectures envkit has no list for (conda-forge's "
    )
    assert "not checked against NVIDIA GeForce RTX 5090 (compute capability 12.0)" in f["message"]


def test_diff_a_package_from_another_channel_with_another_build_is_a_channel_change(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    head = "# platform: linux-64\n@EXPLICIT\n"
    a.write_text(head + "https://repo.anaconda.com/pkgs/main/linux-64/zlib-1.2.13-h5eee18b_1.conda\n")
    b.write_text(head + "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.2.13-h4ab18f5_6.conda\n")
    r = run_envkit("diff", "--format", "json", str(a), str(b))
    [c] = json.loads(r.stdout)["changes"]
    assert (c["name"], c["kind"], c["impact"], c["group"]) == ("zlib", "channel", "medium", "matter")
    assert c["reason"].startswith("same version from another channel (pkgs/main → conda-forge)")


def test_a_quoted_editable_in_the_pip_section_is_the_path_pip_reads(tmp_path):
    # pip splits an option's value as a shell does: `-e ".[dev]"` installs the path `.[dev]`
    from pip._internal.network.session import PipSession
    from pip._internal.req.req_file import parse_requirements

    req = tmp_path / "requirements.txt"
    req.write_text('-e ".[dev]"\n')
    [parsed] = parse_requirements(str(req), session=PipSession())
    assert (parsed.requirement, parsed.is_editable) == (".[dev]", True)
    spec = tmp_path / "environment.yml"
    spec.write_text('name: x\nchannels: [conda-forge]\ndependencies:\n  - pip\n  - pip:\n    - -e ".[dev]"\n')
    r = run_envkit("validate", str(spec))
    assert (r.exit_code, r.stdout) == (0, f"ok: {spec}: environment spec, 1 conda, 1 pip\n")
    r = run_envkit("normalize", str(spec))
    assert r.stdout.splitlines()[-1] == "    - -e .[dev]"


@pytest.mark.parametrize(
    ("options", "torch", "found"),
    [
        (["--extra-index-url https://download.pytorch.org/whl/cu118"], "torch>=2.0", True),
        (["--extra-index-url https://download.pytorch.org/whl/cu118"], "torch", True),
        (
            ["--extra-index-url https://download.pytorch.org/whl/cu118"],
            "torch<2.8",
            False,
        ),  # 2.7: cu118's last
        (["--extra-index-url https://download.pytorch.org/whl/cu118"], "torch==2.7.1+cu118", False),
        (["--index-url https://download.pytorch.org/whl/cu118"], "torch>=2.0", False),  # PyPI not searched
    ],
)
def test_an_unpinned_torch_beside_pypi_and_a_cuda_index_gets_pypis_build(tmp_path, options, torch, found):
    spec = tmp_path / "environment.yml"
    pip = "".join(f"    - {o}\n" for o in [*options, torch])
    spec.write_text(f"name: x\nchannels: [conda-forge]\ndependencies:\n  - pip\n  - pip:\n{pip}")
    r = run_envkit("check", "--format", "json", "--select", "wheel-index", str(spec))
    hits = json.loads(r.stdout)["findings"]
    assert [h["line"] for h in hits] == ([7] if found else [])
    if found:
        assert hits[0]["message"].startswith(
            f"{torch}: the newest torch on https://download.pytorch.org/whl/cu118 is 2.7,"
        )


def test_validate_counts_pip_packages_not_pip_options():
    # 06's pip section: `--extra-index-url https://pypi.nvidia.com` and packages
    r = run_envkit("validate", _c("06"), cwd=CORPUS)
    assert r.stdout.endswith(" pip (1 pip option)\n"), r.stdout


def test_diff_takes_the_environment_option_under_convert_s_names():
    for flag in ("-e", "--env", "--environment"):
        lock = "59_43ravens__NEMO_Nowcast__pixi.lock"
        r = run_envkit("diff", flag, "test-py312", lock, lock, cwd=CORPUS)
        assert (r.exit_code, r.stderr) == (0, ""), (flag, r.stderr)


def test_an_editable_among_hashed_requirements_is_refused_as_pip_refuses_it(tmp_path):
    import subprocess
    import sys

    req = tmp_path / "requirements.txt"
    req.write_text(
        "flask==3.0.0 \\\n"
        "    --hash=sha256:21128f47e4e3b9d597a3e8521a329bf56909b690fcc3fa3e477725aa81367638\n-e .\n"
    )
    (tmp_path / "setup.py").write_text("")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "-r", str(req)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert pip.returncode != 0 and "cannot be installed when requiring hashes" in pip.stderr
    r = run_envkit("check", "--format", "json", "--select", "missing-hash", str(req))
    assert [(f["line"], f["severity"]) for f in json.loads(r.stdout)["findings"]] == [(3, "error")]
