"""envkit.lock without solving: content hash, virtual packages, wheel tags, lock checks, CLI usage."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import CORPUS

from envkit.errors import UsageError
from envkit.formats.envyml import read_env
from envkit.lock import (
    LockProblem,
    VirtualPackage,
    check_lock,
    conda_lock_argv,
    parse_virtual_package,
    spec_content_hash,
    split_depend,
    target_markers,
    virtual_package_spec_yaml,
    virtual_packages_for,
    wheel_platform_tags,
)
from envkit.model import Lock, LockedPackage

SPEC = """\
name: demo
channels:
  - conda-forge
  - nodefaults
dependencies:
  - python=3.11
  - numpy >=1.26
  - pip
  - pip:
    - --index-url https://pypi.org/simple
    - requests>=2
    - tinyreq==2.0
"""

# Same meaning: other name, comments, quoting, spacing, dependency order, variables.
SPEC_REFORMATTED = """\
# a comment
name: other   # the name is not part of the hash
channels: [conda-forge, nodefaults]
variables:
  FOO: bar
dependencies:
  - pip
  - "numpy>=1.26"
  - python =3.11
  - pip:
    - --index-url https://pypi.org/simple
    - tinyreq==2.0
    - requests>=2
"""


def spec_of(text: str, name: str = "environment.yml"):
    return read_env(text, filename=name)


def test_content_hash_is_a_fixed_function_of_the_spec():
    # Pinned: changing the definition makes every existing lock stale, so it must not happen by
    # accident.  _golden() spells the documented definition out independently.
    h = spec_content_hash(spec_of(SPEC), "linux-64")
    assert h == "717c1e80cbee996e5299b4e2d00251248ceab34425b9821df93f1ee6ccc3016f"
    assert h == _golden()


def _golden() -> str:
    import hashlib
    import json

    doc = {
        "version": "envkit-content-hash/1",
        "platform": "linux-64",
        "channels": ["conda-forge", "nodefaults"],
        "conda": sorted(["python=3.11", "numpy>=1.26", "pip"]),
        "pip": {
            "options": ["--index-url https://pypi.org/simple"],
            "requirements": ["requests>=2", "tinyreq==2.0"],
        },
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def test_content_hash_ignores_comments_formatting_name_variables_and_order():
    assert spec_content_hash(spec_of(SPEC), "linux-64") == spec_content_hash(
        spec_of(SPEC_REFORMATTED), "linux-64"
    )


@pytest.mark.parametrize(
    "change",
    [
        ("numpy >=1.26", "numpy >=1.27"),  # a constraint
        ("  - conda-forge\n  - nodefaults\n", "  - nodefaults\n  - conda-forge\n"),  # channel priority
        ("tinyreq==2.0", "tinyreq==2.1"),  # a pip pin
        ("  - pip\n  - pip:", "  - pip\n  - zlib\n  - pip:"),  # a new dependency
    ],
)
def test_content_hash_changes_with_what_the_solve_depends_on(change):
    old, new = change
    assert old in SPEC
    assert spec_content_hash(spec_of(SPEC), "linux-64") != spec_content_hash(
        spec_of(SPEC.replace(old, new)), "linux-64"
    )


def test_content_hash_is_per_platform():
    spec = spec_of(SPEC)
    assert spec_content_hash(spec, "linux-64") != spec_content_hash(spec, "osx-arm64")


def test_parse_virtual_package_forms():
    assert parse_virtual_package("linux-64:__cuda=12.4") == VirtualPackage(
        name="__cuda", version="12.4", platform="linux-64"
    )
    assert parse_virtual_package("__glibc=2.17") == VirtualPackage(name="__glibc", version="2.17")
    assert parse_virtual_package("osx-arm64:__archspec=1=m1") == VirtualPackage(
        name="__archspec", version="1", build="m1", platform="osx-arm64"
    )


@pytest.mark.parametrize("bad", ["cuda=12", "__cuda", "mars-64:__cuda=12", "__cuda=", "__cuda=1..2=x"])
def test_parse_virtual_package_rejects(bad):
    with pytest.raises(UsageError):
        parse_virtual_package(bad)


def test_virtual_packages_defaults_and_overrides():
    base = {v.name: v.version for v in virtual_packages_for("linux-64")}
    assert base == {"__archspec": "1", "__glibc": "2.28", "__linux": "5.10", "__unix": "0"}
    assert "__cuda" not in base  # CUDA only when asked for
    over = [
        parse_virtual_package("__glibc=2.17"),
        parse_virtual_package("linux-64:__cuda=12.4"),
        parse_virtual_package("osx-arm64:__cuda=11.8"),
    ]
    got = {v.name: v.version for v in virtual_packages_for("linux-64", over)}
    assert got["__glibc"] == "2.17" and got["__cuda"] == "12.4"
    osx = {v.name: v.version for v in virtual_packages_for("osx-arm64", over)}
    assert osx == {"__archspec": "1", "__cuda": "11.8", "__glibc": "2.17", "__osx": "11.0", "__unix": "0"}
    # a platform-specific setting beats an all-platform one, whatever the order
    both = [parse_virtual_package("linux-64:__glibc=2.31"), parse_virtual_package("__glibc=2.17")]
    assert {v.name: v.version for v in virtual_packages_for("linux-64", both)}["__glibc"] == "2.31"


def test_wheel_tags_follow_glibc_and_osx():
    tags = wheel_platform_tags(
        "linux-64", virtual_packages_for("linux-64", [parse_virtual_package("__glibc=2.17")])
    )
    assert tags[:3] == ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_16_x86_64"]
    assert "manylinux_2_28_x86_64" not in tags and "manylinux1_x86_64" in tags and tags[-1] == "linux_x86_64"
    osx = wheel_platform_tags("osx-arm64", virtual_packages_for("osx-arm64"))
    assert osx == ["macosx_11_0_arm64", "macosx_11_0_universal2"]
    assert wheel_platform_tags("win-64") == ["win_amd64"]
    assert "manylinux_2_28_aarch64" in wheel_platform_tags(
        "linux-aarch64", virtual_packages_for("linux-aarch64")
    )


def test_target_markers():
    m = target_markers("osx-arm64", "3.12.1")
    assert (m["sys_platform"], m["platform_machine"], m["python_version"], m["python_full_version"]) == (
        "darwin",
        "arm64",
        "3.12",
        "3.12.1",
    )
    w = target_markers("win-64", "3.11")
    assert (w["sys_platform"], w["os_name"], w["platform_machine"], w["python_full_version"]) == (
        "win32",
        "nt",
        "AMD64",
        "3.11.0",
    )


def test_split_depend():
    assert split_depend("python >=3.11,<3.12.0a0") == ("python", ">=3.11,<3.12.0a0")
    assert split_depend("zlib") == ("zlib", "")
    assert split_depend("libblas 3.9.0 *_openblas") == ("libblas", "3.9.0 *_openblas")
    # one splitter for every reader: the name ends at an operator or bracket too, and a
    # channel-qualified name stays whole
    assert split_depend("  python>=3.8 ") == ("python", ">=3.8")
    assert split_depend("numpy[build=py*]") == ("numpy", "[build=py*]")
    assert split_depend("conda-forge::zlib  >=1.3") == ("conda-forge::zlib", ">=1.3")
    assert split_depend(">=1") == (">=1", "")


# --------------------------------------------------------------------------------------------
# check_lock


def _lock_for(spec, platform="linux-64", **versions) -> Lock:
    pkgs = []
    table = {
        "python": ("3.11.8", "h0_cpython"),
        "numpy": ("1.26.4", "py311h0_0"),
        "pip": ("24.0", "pyhd8ed1ab_0"),
    }
    table.update({k: (v, "h0_0") for k, v in versions.items()})
    for name, (ver, build) in table.items():
        pkgs.append(
            LockedPackage(
                manager="conda",
                name=name,
                version=ver,
                build=build,
                build_number=0,
                channel="conda-forge",
                platform=platform,
            )
        )
    pkgs.append(LockedPackage(manager="pip", name="requests", version="2.31.0", platform=platform))
    pkgs.append(LockedPackage(manager="pip", name="tinyreq", version="2.0", platform=platform))
    return Lock(
        kind="conda-lock",
        platforms=(platform,),
        packages=tuple(pkgs),
        content_hash=((platform, spec_content_hash(spec, platform)),),
    )


def test_check_lock_fits():
    spec = spec_of(SPEC)
    assert check_lock(spec, _lock_for(spec)) == []


def test_check_lock_stale_hash():
    spec = spec_of(SPEC)
    lock = _lock_for(spec)
    newer = spec_of(SPEC.replace("numpy >=1.26", "numpy >=1.20"))  # still satisfied, but changed
    problems = check_lock(newer, lock)
    assert [p.kind for p in problems] == ["stale"]
    assert problems[0].platform == "linux-64" and "spec changed" in problems[0].message


def test_check_lock_unsatisfied_and_missing_entries():
    spec = spec_of(SPEC)
    lock = _lock_for(spec, numpy="1.25.2")
    problems = check_lock(spec, lock)
    assert [(p.kind, p.name, p.line) for p in problems] == [("unsatisfied", "numpy", 7)]
    assert "numpy>=1.26: locked conda-forge::numpy=1.25.2=h0_0 does not match" in problems[0].message
    no_pip = replace(
        lock,
        packages=tuple(p for p in lock.packages if p.name not in ("pip", "tinyreq")),
        content_hash=lock.content_hash,
    )
    kinds = [(p.kind, p.name) for p in check_lock(spec, no_pip)]
    assert kinds == [("unsatisfied", "numpy"), ("missing", "pip"), ("missing", "tinyreq")]


def test_check_lock_pip_version_and_marker():
    text = SPEC.replace("    - tinyreq==2.0\n", "    - tinyreq>=3\n    - macdep; sys_platform == 'darwin'\n")
    spec = spec_of(text)
    problems = check_lock(spec, _lock_for(spec))
    # macdep's marker does not apply on linux-64: not required there
    assert [(p.kind, p.name) for p in problems] == [("unsatisfied", "tinyreq")]
    assert str(problems[0]) == "linux-64: pip tinyreq>=3: locked tinyreq==2.0 does not match"


def test_check_lock_pip_marker_on_lock_file_variables_is_checked_not_skipped():
    # `extras` is a PEP 751 lock-file variable: no value on a requirement line.  The entry is
    # checked (as `envkit diff --spec` does), no longer an UndefinedEnvironmentName traceback.
    text = SPEC.replace("    - tinyreq==2.0\n", "    - tinyreq==2.0\n    - gpudep; 'gpu' in extras\n")
    spec = spec_of(text)
    problems = check_lock(spec, _lock_for(spec))
    assert [(p.kind, p.name, p.line) for p in problems] == [("missing", "gpudep", 13)]


def test_check_lock_pip_version_pep440_cannot_read_is_matched_by_its_text():
    """A locked pip version PEP 440 cannot read satisfies only `===` with exactly its text, as in
    `envkit diff`."""
    named = SPEC.replace("    - tinyreq==2.0\n", "    - tinyreq===2.0-custom\n")
    other = SPEC.replace("    - tinyreq==2.0\n", "    - tinyreq===2.0-other\n")
    for text, expected in ((named, []), (other, [("unsatisfied", "tinyreq")])):
        spec = spec_of(text)
        lock = _lock_for(spec)
        lock = replace(
            lock,
            packages=tuple(
                replace(p, version="2.0-custom") if p.name == "tinyreq" else p for p in lock.packages
            ),
        )
        assert [(p.kind, p.name) for p in check_lock(spec, lock)] == expected


def test_check_lock_build_and_channel_semantics():
    text = SPEC.replace("numpy >=1.26", "conda-forge::numpy=1.26.4=py311*")
    spec = spec_of(text)
    assert check_lock(spec, _lock_for(spec)) == []
    other = spec_of(SPEC.replace("numpy >=1.26", "pytorch::numpy"))
    assert [(p.kind, p.name) for p in check_lock(other, _lock_for(other))] == [("unsatisfied", "numpy")]


def test_check_lock_missing_platform_and_hash():
    spec = spec_of(SPEC + "platforms:\n  - linux-64\n  - osx-arm64\n")
    lock = replace(_lock_for(spec), content_hash=())
    problems = check_lock(spec, lock)
    assert [(p.kind, p.platform) for p in problems] == [
        ("missing-platform", "osx-arm64"),
        ("stale", "linux-64"),
    ]
    assert isinstance(problems[0], LockProblem)


# --------------------------------------------------------------------------------------------
# conda-lock as solver: the command and its virtual-package file


def test_conda_lock_virtual_package_file_and_argv(tmp_path):
    yml = virtual_package_spec_yaml(
        ["linux-64", "osx-arm64"], [parse_virtual_package("linux-64:__cuda=12.4")]
    )
    assert yml.splitlines()[:9] == [
        "subdirs:",
        "  linux-64:",
        "    packages:",
        "      __archspec: 1 x86_64",
        '      __cuda: "12.4"',
        '      __glibc: "2.28"',
        '      __linux: "5.10"',
        '      __unix: "0"',
        "  osx-arm64:",
    ]
    argv = conda_lock_argv(
        "/x/environment.yml", ["linux-64", "osx-arm64"], "/t/out.yml", "/opt/conda/bin/conda", "/t/vp.yml"
    )
    assert argv[1:] == [
        "-m",
        "conda_lock",
        "lock",
        "--file",
        "/x/environment.yml",
        "--lockfile",
        "/t/out.yml",
        "--conda",
        "/opt/conda/bin/conda",
        "--virtual-package-spec",
        "/t/vp.yml",
        "--kind",
        "lock",
        "--platform",
        "linux-64",
        "--platform",
        "osx-arm64",
    ]


def test_solver_conda_lock_without_conda_is_a_clear_error(envkit_cli, tmp_path):
    # without the pip option, which conda-lock cannot read (refused first, tests/lock/test_lock_env.py)
    (tmp_path / "environment.yml").write_text(SPEC.replace("    - --index-url https://pypi.org/simple\n", ""))
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {"PATH": str(empty), "CONDA_EXE": "", "MAMBA_EXE": ""}
    r = envkit_cli(
        "lock",
        "-f",
        str(tmp_path / "environment.yml"),
        "--platform",
        "linux-64",
        "--solver",
        "conda-lock",
        "-o",
        str(tmp_path / "out.yml"),
        env=env,
    )
    assert r.exit_code == 2
    assert "error: --solver conda-lock needs a conda executable, and none was found" in r.stderr
    assert "hint: install micromamba or conda, or use the default solver (--solver rattler)" in r.stderr
    assert not (tmp_path / "out.yml").exists()


# --------------------------------------------------------------------------------------------
# CLI usage errors


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "give exactly one of -n NAME, -p PREFIX or -f FILE"),
        (("-n", "a", "-f", "x.yml"), "give exactly one of -n NAME, -p PREFIX or -f FILE"),
        (("--check", "--lock", "conda-lock.yml"), "--check needs the environment file (-f)"),
        (("-n", "a", "--platform", "linux-64"), "--platform is for solving -f"),
        (("-f", "x.yml", "--no-env-lock"), "--env-lock/--no-env-lock are for -n/-p"),
        (("-n", "a", "--lock", "y.yml"), "--lock is for --check and -f (the lock to write is -o)"),
        (("-n", "a", "--update", "numpy"), "--update is for solving -f"),
        (("-f", "x.yml", "--update", "a", "--update-all"), "give --update NAME or --update-all, not both"),
        (("--check", "-f", "x.yml", "--update-all"), "--update-all is for locking; --check reads the lock"),
        (("-n", "a", "--format", "json"), "--format is for -f and --check"),
        (("-f", "x.yml", "-o", "-", "--format", "json"), "--format json prints the report on standard"),
        (
            ("--check", "-f", "x.yml", "--platform", "linux-64"),
            "--platform is for locking; --check reads the lock",
        ),
        (
            ("--check", "-f", "x.yml", "--solver", "conda-lock"),
            "--solver is for locking; --check reads the lock",
        ),
    ],
)
def test_lock_usage_errors(envkit_cli, args, message):
    r = envkit_cli("lock", *args)
    assert r.exit_code == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_lock_bad_virtual_package_and_platform(envkit_cli, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(SPEC)
    r = envkit_cli(
        "lock",
        "-f",
        str(spec),
        "--platform",
        "linux-64",
        "--virtual-package",
        "cuda=12",
        "-o",
        str(tmp_path / "o.yml"),
    )
    assert r.exit_code == 2 and "expected [PLATFORM:]__name=version[=build]" in r.stderr
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-65", "-o", str(tmp_path / "o.yml"))
    assert r.exit_code == 2 and "error: unknown platform 'linux-65'" in r.stderr


def test_lock_check_reports_lock_file_that_is_a_spec(envkit_cli, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(SPEC)
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(spec))
    assert r.exit_code == 2 and "not a lock file" in r.stderr


# --------------------------------------------------------------------------------------------
# staleness of locks conda-lock wrote: conda-lock's own content hash (tests/data/corpus 02 + 53)

ZTF_SPEC = CORPUS / "02_EthanMarx__ztf-lfi-demo__environment.yaml"
ZTF_LOCK = CORPUS / "53_EthanMarx__ztf-lfi-demo__conda-lock.yml"
ZTF_HASH = "f43f3486dcc3a06eeb4d0cccc22bac9d771d2adf1b55b8d45c301490a09c8387"


def _ztf(tmp_path, spec_text=None, lock_hash=None):
    """Copies of the ztf spec and its conda-lock lock (optionally edited) in tmp_path."""
    spec = tmp_path / "environment.yaml"
    spec.write_text(spec_text if spec_text is not None else ZTF_SPEC.read_text())
    lock = tmp_path / "conda-lock.yml"
    text = ZTF_LOCK.read_text()
    lock.write_text(text.replace(ZTF_HASH, lock_hash) if lock_hash else text)
    return spec, lock


def test_lock_writer_from_headers():
    from envkit.lock import lock_writer

    assert lock_writer(ZTF_LOCK.read_text()) == "conda-lock"
    assert (
        lock_writer((CORPUS / "48_Cecca__repro-course-ci__conda-linux-64.lock").read_text()) == "conda-lock"
    )
    assert (
        lock_writer("# Generated by envkit 0.1.0. Do not edit: regenerate with\n#  envkit lock\nversion: 1\n")
        == "envkit"
    )
    assert (
        lock_writer("# This lock file was generated by envkit, in conda-lock's format\nversion: 1\n")
        == "envkit"
    )
    assert lock_writer("version: 1\n# generated by envkit (not a header: after the first key)\n") == "unknown"
    assert lock_writer(None) == "unknown"


def test_conda_lock_rendered_explicit_file_records_the_same_hash_as_its_lock():
    # 48 (rendered explicit, linux-64) and 51 (conda-lock.yml) come from one conda-lock solve
    from envkit.formats import read_file

    explicit = read_file(str(CORPUS / "48_Cecca__repro-course-ci__conda-linux-64.lock"))
    lock = read_file(str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"))
    assert (
        explicit.hash_for("linux-64")
        == lock.hash_for("linux-64")
        == "09bbbf5511f447fb4d49239fcf44986ad96c5258f55cb6c3d02b10c4dffcaab6"
    )


def test_conda_lock_hash_of_the_corpus_pair_reproduces(tmp_path):
    from envkit.formats import read_file
    from envkit.lock import conda_lock_content_hashes, lock_staleness

    default, accepted = conda_lock_content_hashes(str(ZTF_SPEC), ["linux-64"])["linux-64"]
    # conda-lock 4's own definition for this spec (conda-lock's default virtual packages, with
    # __cuda 11.4); the lock (written by an older conda-lock) has one of its accepted variants
    assert ZTF_HASH in accepted and default != spec_content_hash(spec_of(ZTF_SPEC.read_text()), "linux-64")
    spec, lock = read_file(str(ZTF_SPEC)), read_file(str(ZTF_LOCK))
    [s] = lock_staleness(spec, lock)
    assert (s.status, s.method, s.writer, s.recorded) == ("fresh", "conda-lock", "conda-lock", ZTF_HASH)
    assert check_lock(spec, lock) == []


def test_lock_check_on_a_conda_lock_lock(envkit_cli, tmp_path):
    spec, lock = _ztf(tmp_path)
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert (r.exit_code, r.stdout) == (0, f"{lock} is up to date with {spec} (linux-64)\n")
    # comments and order are not part of conda-lock's hash either
    edited = (
        ZTF_SPEC.read_text()
        .replace("  # Data Science (TM) deps\n", "")
        .replace("  - bokeh\n  - scipy\n", "  - scipy\n  - bokeh  # plots\n")
    )
    spec, lock = _ztf(tmp_path, edited)
    assert envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock)).exit_code == 0
    # a recorded hash that no conda-lock definition envkit can compute reproduces is "not
    # comparable" (another conda-lock version, other virtual packages, or an edit): a note, and the
    # lock is judged by whether it satisfies the spec (scipy is locked at 1.13.1)
    spec, lock = _ztf(tmp_path, ZTF_SPEC.read_text().replace("  - scipy\n", "  - scipy>=1.10\n"))
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.exit_code == 0
    first, last = r.stdout.splitlines()
    assert first.startswith(f"{lock}: note: linux-64: hash not comparable: content hash f43f3486dcc3...")
    assert last == f"{lock} satisfies {spec} (linux-64)"
    spec, lock = _ztf(tmp_path, ZTF_SPEC.read_text().replace("  - scipy\n", "  - scipy>=2\n"))
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.exit_code == 1
    assert "stale" not in r.stdout
    assert f"{spec}:16: unsatisfied: linux-64: scipy>=2: locked conda-forge::scipy=1.13.1=" in r.stdout


def test_conda_lock_hash_with_other_virtual_packages(envkit_cli, tmp_path):
    from conda_lock.content_hash import compute_content_hashes
    from conda_lock.src_parser import make_lock_spec
    from conda_lock.virtual_package import default_virtual_package_repodata

    mapping = tmp_path / "map.json"
    mapping.write_text("{}")
    lock_spec = make_lock_spec(
        src_files=[ZTF_SPEC], platform_overrides=["linux-64"], mapping_url=str(mapping)
    )

    def conda_lock_hash(cuda):  # what `conda-lock lock --with-cuda CUDA` records
        return compute_content_hashes(lock_spec, default_virtual_package_repodata(cuda_version=cuda))[
            "linux-64"
        ]

    # the spec pins pytorch-cuda=11.7, so --with-cuda 11.7 is recognised without being told
    spec, lock = _ztf(tmp_path, lock_hash=conda_lock_hash("11.7"))
    assert envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock)).exit_code == 0
    spec, lock = _ztf(tmp_path, lock_hash=conda_lock_hash(""))  # --without-cuda
    assert envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock)).exit_code == 0
    # --with-cuda 12.0 must be told; envkit's defaults plus __cuda=12.0 are conda-lock's repository
    spec, lock = _ztf(tmp_path, lock_hash=conda_lock_hash("12.0"))
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert (r.exit_code, r.stdout.splitlines()[-1]) == (0, f"{lock} satisfies {spec} (linux-64)")
    assert "hash not comparable" in r.stdout
    r = envkit_cli(
        "lock", "--check", "-f", str(spec), "--lock", str(lock), "--virtual-package", "__cuda=12.0"
    )
    assert (r.exit_code, r.stdout) == (0, f"{lock} is up to date with {spec} (linux-64)\n")
    # a virtual-packages.yml beside the spec is what conda-lock itself picks up
    (tmp_path / "virtual-packages.yml").write_text(
        virtual_package_spec_yaml(["linux-64"], [VirtualPackage(name="__cuda", version="12.0")])
    )
    assert envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock)).exit_code == 0


def test_conda_lock_hash_not_comparable_without_conda_lock(envkit_cli, tmp_path, monkeypatch):
    import sys

    spec, lock = _ztf(tmp_path, ZTF_SPEC.read_text().replace("  - scipy\n", "  - scipy>=1.10\n"))
    monkeypatch.setitem(sys.modules, "conda_lock", None)  # `import conda_lock` raises ImportError
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.exit_code == 0, r.stdout
    assert r.stdout == (
        f"{lock}: note: linux-64: hash not comparable (lock written by conda-lock; conda-lock is not "
        "installed, "
        "and its hash is its own definition; install envkit[lock] (pip install 'envkit[lock]') to compare "
        "it); "
        "only checked that the lock satisfies the spec\n"
        f"{lock} satisfies {spec} (linux-64)\n"
    )
    # satisfaction is still checked
    spec, lock = _ztf(tmp_path, ZTF_SPEC.read_text().replace("  - scipy\n", "  - scipy>=2\n"))
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.exit_code == 1
    assert f"{spec}:16: unsatisfied: linux-64: scipy>=2: locked conda-forge::scipy=1.13.1=" in r.stdout


def test_staleness_of_locks_without_a_writer_header(tmp_path):
    from envkit.lock import lock_staleness

    spec = spec_of(SPEC)
    lock = Lock(
        kind="conda-lock",
        platforms=("linux-64",),
        packages=(),
        content_hash=(("linux-64", spec_content_hash(spec, "linux-64")),),
    )
    no_header = "version: 1\n"
    [s] = lock_staleness(spec, lock, lock_text=no_header)
    assert (s.status, s.method, s.writer) == ("fresh", "envkit", "unknown")
    [s] = lock_staleness(spec, replace(lock, content_hash=(("linux-64", "ab" * 32),)), lock_text=no_header)
    assert (s.status, s.method) == ("not-comparable", None)
    assert s.message == (
        "hash not comparable (lock not written by envkit or conda-lock; conda-lock hashes the "
        "environment file, and there is none on disk to hash); only checked that the lock "
        "satisfies the spec"
    )
    [s] = lock_staleness(spec, replace(lock, content_hash=()), lock_text=no_header)
    assert s.status == "not-comparable" and "which records no content hash" in s.message
    # an in-memory lock (no text, no file) is envkit's: a missing hash is stale
    [s] = lock_staleness(spec, replace(lock, content_hash=()))
    assert (s.status, s.message) == ("stale", "the lock records no content hash for this platform")


def test_stale_lock_rule_uses_conda_lock_hash(tmp_path):
    from envkit.checks import run_checks
    from envkit.checks.targets import load_targets
    from envkit.config import Config

    spec, lock = _ztf(tmp_path)
    targets = load_targets([str(spec), str(lock)])
    assert run_checks(targets, Config(select=("stale-lock",))) == []
    spec.write_text(ZTF_SPEC.read_text().replace("  - scipy\n", "  - scipy>=1.10\n"))
    targets = load_targets([str(spec), str(lock)])
    # a hash conda-lock does not reproduce is not comparable, never stale; the lock still satisfies
    assert run_checks(targets, Config(select=("stale-lock", "lock-unsatisfied"))) == []
    spec.write_text(ZTF_SPEC.read_text().replace("  - scipy\n", "  - scipy>=2\n"))
    targets = load_targets([str(spec), str(lock)])
    [f] = run_checks(targets, Config(select=("stale-lock", "lock-unsatisfied")))
    assert (f.rule, f.file, f.line) == ("lock-unsatisfied", str(spec), 16)


def test_pip_options_round_trip_through_conda_lock_yml(tmp_path):
    from conda_lock.lockfile import parse_conda_lock_file

    from envkit.formats.condalock import read_conda_lock, write_conda_lock

    pkg = LockedPackage(
        manager="pip",
        name="tinyreq",
        version="2.0",
        platform="linux-64",
        url="https://files.example/tinyreq-2.0-py3-none-any.whl",
        sha256="ab" * 32,
    )
    lock = Lock(
        kind="conda-lock",
        platforms=("linux-64",),
        packages=(pkg,),
        content_hash=(("linux-64", "0" * 64),),
        pip_options=(
            "--index-url https://pypi.example/simple",
            "--extra-index-url https://${TOK}@x.org/simple",
            "--find-links ./wheels",
        ),
    )
    text = write_conda_lock(lock)
    path = tmp_path / "conda-lock.yml"
    path.write_text(text)
    assert parse_conda_lock_file(path).metadata.custom_metadata == {
        "created_by": "envkit 0.1.0",
        "envkit.pip_options": (
            "--index-url https://pypi.example/simple\n--extra-index-url "
            "https://${TOK}@x.org/simple\n--find-links ./wheels"
        ),
    }
    back = read_conda_lock(text)
    assert back == lock and back.metadata == ()
    # other custom metadata (conda-lock's --metadata-yaml) is kept beside envkit's key, both ways
    with_meta = replace(lock, metadata=(("custom_metadata", '{"team":"ml"}'),))
    path.write_text(write_conda_lock(with_meta))
    assert parse_conda_lock_file(path).metadata.custom_metadata == {
        "created_by": "envkit 0.1.0",
        "team": "ml",
        "envkit.pip_options": lock.pip_options[0] + "\n" + lock.pip_options[1] + "\n" + lock.pip_options[2],
    }
    assert read_conda_lock(path.read_text()) == with_meta
    # no options: no custom_metadata written
    assert "custom_metadata" not in write_conda_lock(replace(lock, pip_options=()))


def test_lock_pip_options_and_rebasing():
    from envkit.lock import lock_pip_options, rebase_pip_options

    spec = spec_of(
        "dependencies:\n  - pip:\n    - -r extra.txt\n    - --pre\n    - -i https://u:pw@idx.example/simple\n"
        "    - --find-links=./wheels\n    - --no-index\n    - helper\n"
    )
    assert lock_pip_options(spec) == (
        "-i https://<USER>:<PASSWORD>@idx.example/simple",
        "--find-links=./wheels",
        "--no-index",
    )
    assert rebase_pip_options(
        ["--find-links=./wheels", "-f /abs/w", "-f https://h/w", "--no-index"], "/p", "/p/locks"
    ) == ("--find-links ../wheels", "-f /abs/w", "-f https://h/w", "--no-index")


def test_create_passes_redacted_pip_options_without_credentials():
    from envkit.create import pip_option_lines

    lines, warnings = pip_option_lines(
        [
            "-i https://<USER>:<PASSWORD>@idx.example/simple",
            "--extra-index-url https://${TOK}@x.org/simple",
            "--no-index",
        ]
    )
    assert lines == [
        "-i https://idx.example/simple",
        "--extra-index-url https://${TOK}@x.org/simple",
        "--no-index",
    ]
    assert warnings == [
        "pip option '-i https://<USER>:<PASSWORD>@idx.example/simple' had credentials removed when "
        "it was locked; passing '-i https://idx.example/simple' (pip looks the credentials up in "
        "its keyring or .netrc; or write the URL with ${VARIABLES} in the spec)"
    ]


# --------------------------------------------------------------------------------------------
# never write a conda-lock file over another tool's lock (or the spec)

PIXI = CORPUS / "57_1235467__SaltMPRIS__pixi.lock"
EXPLICIT = CORPUS / "42_3dlg-hcvc__paris__spec-file.txt"
PIXI_SPEC = "channels:\n  - conda-forge\ndependencies:\n  - python=3.11\n"


def test_check_of_a_pixi_lock_never_suggests_overwriting_it(envkit_cli, tmp_path):
    lock = tmp_path / "pixi.lock"
    lock.write_text(PIXI.read_text())
    spec = tmp_path / "environment.yml"
    spec.write_text(PIXI_SPEC)
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.exit_code == 1
    last = r.stdout.splitlines()[-1]
    assert last == (
        f"{lock} does not fit {spec}: 1 problem(s); it is pixi's pixi.lock: regenerate it with `pixi lock`"
    )
    assert "envkit lock" not in r.stdout and " -o " not in r.stdout


def test_check_of_an_explicit_file_suggests_a_conda_lock_file_beside_it(envkit_cli, tmp_path):
    lock = tmp_path / "spec-file.txt"
    lock.write_text(EXPLICIT.read_text())
    spec = tmp_path / "environment.yml"
    spec.write_text(PIXI_SPEC)
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.exit_code == 1
    beside = tmp_path / "conda-lock.yml"
    assert r.stdout.splitlines()[-1].endswith(
        "problem(s); it is an explicit file: regenerate it with the tool that wrote it, or lock the spec "
        "into a "
        f"conda-lock file: `envkit lock -f {spec} --platform linux-64 -o {beside}`"
    )
    # ... but not when conda-lock.yml there is something else
    beside.write_text(PIXI.read_text())
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock))
    assert r.stdout.splitlines()[-1].endswith(
        "problem(s); it is an explicit file: regenerate it with the tool that wrote it"
    )


@pytest.mark.parametrize(
    "name, content, what",
    [
        # by content, whatever the name (pixi.lock itself: tests/lock/test_lock_pixi_out.py)
        (
            "locked.yml",
            PIXI,
            "a pixi.lock (pixi's own lock: regenerate it with `pixi lock`)",
        ),
        ("spec-file.txt", EXPLICIT, "an explicit file (@EXPLICIT)"),
        ("environment.yml", None, "an environment file"),  # -o the spec itself
    ],
)
def test_lock_refuses_to_overwrite_another_format(envkit_cli, tmp_path, name, content, what):
    spec = tmp_path / "environment.yml"
    spec.write_text(PIXI_SPEC)
    out = tmp_path / name
    if content is not None:
        out.write_text(content.read_text())
    before = out.read_text()
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {out}: refusing to write the lock (-o) over {what}\n"
        "hint: write it elsewhere (-o conda-lock.yml), or remove the file first if it is no longer "
        "wanted\n"
    )
    assert out.read_text() == before


def test_lock_refuses_to_name_a_conda_lock_file_pixi_lock(envkit_cli, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(PIXI_SPEC)
    out = tmp_path / "sub" / "pixi.lock"
    r = envkit_cli("lock", "-f", str(spec), "-o", str(out), "--to", "conda-lock")
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {out}: refusing to write the lock (-o), a conda-lock file, under pixi's lock name "
        "(pixi would read it as its own lock)\nhint: write it elsewhere (-o conda-lock.yml)\n"
    )
    assert not out.exists()


def test_check_of_a_pixi_lock_environment(envkit_cli, tmp_path):
    """corpus 58: `default` is empty, `format` has the packages.  An empty environment would check
    nothing and pass; it is an error naming the others, and --env picks one."""
    lock = CORPUS / "58_16bit-ykiko__about-me__pixi.lock"
    spec = tmp_path / "environment.yml"
    spec.write_text("channels:\n  - conda-forge\ndependencies:\n  - clang-format >=21\n  - numpy\n")
    r = envkit_cli(
        "lock",
        "--check",
        "-f",
        str(spec),
        "--lock",
        str(lock),
    )
    assert r.exit_code == 2
    assert r.stderr.startswith(
        f"error: {lock}: pixi.lock environment 'default' has no packages; its other "
        "environments: format (linux-64, osx-64, osx-arm64)\nhint: pass --env format"
    )
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock), "--env", "format")
    assert r.exit_code == 1
    assert r.stdout.splitlines()[-4:] == [
        f"{spec}:5: missing: linux-64: numpy: no such conda package in the lock",
        f"{spec}:5: missing: osx-64: numpy: no such conda package in the lock",
        f"{spec}:5: missing: osx-arm64: numpy: no such conda package in the lock",
        f"{lock} does not fit {spec}: 3 problem(s); it is pixi's pixi.lock: regenerate it with `pixi lock`",
    ]
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(lock), "--env", "nope")
    assert r.exit_code == 2 and "hint: choose one with --env NAME\n" in r.stderr
    r = envkit_cli(
        "lock",
        "--check",
        "-f",
        str(spec),
        "--lock",
        str(CORPUS / "53_EthanMarx__ztf-lfi-demo__conda-lock.yml"),
        "--env",
        "format",
    )
    assert (
        r.exit_code == 2
        and "--env picks an environment of a pixi.lock; this is a conda-lock lock" in r.stderr
    )
    r = envkit_cli("lock", "-f", str(spec), "--env", "format")
    assert r.exit_code == 2 and "error: --env picks the environment of a pixi.lock --lock" in r.stderr


def test_lock_format_hints_name_no_missing_option(envkit_cli, tmp_path):
    """Format detection's hint says `pass --format`; `envkit lock` has none (its -f takes an
    environment file, --lock a lock), so the hint says that instead."""
    prose = tmp_path / "notes.txt"
    prose.write_text("hello there\nthis is prose\n")
    spec = tmp_path / "environment.yml"
    spec.write_text(SPEC)
    r = envkit_cli("lock", "--check", "-f", str(prose), "--lock", str(prose))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {prose}: cannot tell the format of this file\n"
        "hint: -f takes an environment file: environment.yml (or a requirements.txt)\n"
    )
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(prose))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {prose}: cannot tell the format of this file\nhint: --lock takes a lock: "
        "conda-lock.yml, pixi.lock, an explicit file (@EXPLICIT), `conda list --json` or "
        "`conda list --export` output\n"
    )
    r = envkit_cli("lock", "-f", str(prose), "-o", str(tmp_path / "out.yml"))
    assert (
        r.exit_code == 2 and "--format" not in r.stderr and "hint: -f takes an environment file" in r.stderr
    )


def test_check_lock_reads_defaults_as_the_channels_it_stands_for():
    """`defaults::numpy` is satisfied by numpy from pkgs/main (conda expands defaults); a package
    from another channel is not."""
    import envkit

    spec = envkit.read_text(
        "name: x\nchannels: [defaults]\ndependencies:\n  - defaults::numpy=1.26\n  - conda-forge::zlib\n",
        filename="environment.yml",
    )
    lock = envkit.read_text(
        "@EXPLICIT\n"
        "https://repo.anaconda.com/pkgs/main/linux-64/numpy-1.26.4-py311h08b1b3b_0.conda\n"
        "https://repo.anaconda.com/pkgs/main/linux-64/zlib-1.2.13-h5eee18b_1.conda\n",
        filename="explicit.txt",
    )
    unsatisfied = [p.name for p in envkit.check_lock(spec, lock).problems if p.kind == "unsatisfied"]
    assert unsatisfied == ["zlib"]


@pytest.mark.parametrize(
    "texts",
    [
        ["python >=3.11,<3.12.0a0", "zlib"],
        ["libblas 3.9.0 *_openblas"],
        ["python  >=3.11"],  # two spaces: split, then compared
        ["python >=3.11 "],
        ["foo bar >=1"],
        ["a=1"],
        [" x"],
        [],
    ],
)
def test_same_depends_answers_as_splitting_does(texts):
    from envkit.lock.packages import same_depends

    split = tuple(split_depend(t) for t in texts)
    assert same_depends(texts, split) == (tuple(f"{n} {s}" if s else n for n, s in split) == tuple(texts))
    # a pair split_depend never returns is not taken for the text it joins to
    assert same_depends(["foo bar >=1"], [("foo bar", ">=1")]) is False
    assert same_depends(["a  >=1"], [("a", " >=1")]) is False
    assert same_depends(["a >=1"], [("a", ">=2")]) is False


def _record(**over):
    from types import SimpleNamespace

    fields = dict(
        name=SimpleNamespace(normalized="numpy"),
        version="1.26.4",
        build="py311h0_0",
        build_number=0,
        subdir="linux-64",
        url="https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h0_0.conda",
        md5=bytes.fromhex("00" * 16),
        sha256=bytes.fromhex("11" * 32),
        depends=["python >=3.11,<3.12.0a0", "libblas >=3.9.0,<4.0a0"],
        channel="https://conda.anaconda.org/conda-forge/",
    )
    fields.update(over)
    return SimpleNamespace(**fields)


def test_record_to_package_keeps_the_previous_package_only_when_it_is_the_same():
    from dataclasses import replace

    from envkit.lock import record_to_package

    fresh = record_to_package(_record(), "linux-64")
    assert fresh.channel == "conda-forge" and fresh.depends[0] == ("python", ">=3.11,<3.12.0a0")
    assert record_to_package(_record(), "linux-64", {"numpy": fresh}) is fresh
    # read from a file: the same fields, without the file's line
    read = replace(fresh, line=12)
    kept = record_to_package(_record(), "linux-64", {"numpy": read})
    assert kept == fresh and kept.line is None
    # a patched dependency, a token in the URL, another platform: converted afresh
    patched = _record(depends=["python >=3.11,<3.13.0a0", "libblas >=3.9.0,<4.0a0"])
    assert record_to_package(patched, "linux-64", {"numpy": fresh}).depends[0] == (
        "python",
        ">=3.11,<3.13.0a0",
    )
    token = _record(url="https://conda.anaconda.org/t/ab-12345678-1234/conda-forge/linux-64/numpy.conda")
    assert record_to_package(token, "linux-64", {"numpy": fresh}) == record_to_package(token, "linux-64")
    other = record_to_package(_record(), "osx-64", {"numpy": fresh})
    assert other.platform == "osx-64" and other == record_to_package(_record(), "osx-64")
