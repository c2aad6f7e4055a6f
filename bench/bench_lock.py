"""`envkit lock` benchmarks.

* lock of a generated 500-package prefix (plus 20 pip packages), in-process: read the prefix, build
  the Lock, write conda-lock.yml and environment.lock.yml text, with the pip artifacts given (pip's
  part is the third case); against py-rattler reading the same 500 `conda-meta/*.json` records
  (`PrefixRecord.from_path`), the floor of any prefix reader.
* `envkit lock --check` of a 3,000-package, 3-platform conda-lock.yml against a 100-entry
  environment.yml, end to end (a process each); against a process that only loads the same lock
  with libyaml's CSafeLoader (the alternative: reading it as YAML at all); floor: json.loads of it.
* resolving the artifacts of that prefix's 20 index-installed pip packages
  (`envkit.lock.resolve_index_artifacts`, local wheels through `--find-links`, no network); against
  one bare `pip install --dry-run --no-deps --report` of the same 20 pins (pip itself is the floor).
"""

from __future__ import annotations

import glob
import hashlib
import os
import sys
from pathlib import Path

from _sides import json_loads_proc
from run import Case

REPO = Path(__file__).resolve().parent.parent
PLATFORMS = ("linux-64", "osx-arm64", "win-64")


def _prefix(work: Path) -> Path:
    sys.path.insert(0, str(REPO / "tests"))
    from support.condafactory import large_prefix

    prefix = work / "lock-prefix-500"
    if not (prefix / "conda-meta").is_dir():
        large_prefix(prefix, 500, pip=20)
    return prefix


def _big_lock(work: Path) -> tuple[Path, Path]:
    from envkit.formats.condalock import write_conda_lock
    from envkit.formats.envyml import read_env
    from envkit.lock import spec_content_hash
    from envkit.model import Channel, Lock, LockedPackage

    spec_path, lock_path = work / "lock-check-environment.yml", work / "lock-check-3000.yml"
    spec_text = "name: big\nchannels:\n  - conda-forge\ndependencies:\n" + "".join(
        f"  - pkg{i:04d} >=1\n" for i in range(0, 1000, 10)
    )
    spec = read_env(spec_text, filename=str(spec_path))
    pkgs = []
    for plat in PLATFORMS:
        for i in range(1000):
            name, version, build = f"pkg{i:04d}", f"{1 + i % 7}.{i % 13}.{i % 5}", f"h{i:07x}_0"
            fn = f"{name}-{version}-{build}.conda"
            pkgs.append(
                LockedPackage(
                    manager="conda",
                    name=name,
                    version=version,
                    build=build,
                    build_number=0,
                    channel="conda-forge",
                    platform=plat,
                    subdir=plat,
                    url=f"https://conda.anaconda.org/conda-forge/{plat}/{fn}",
                    md5=hashlib.md5(fn.encode()).hexdigest(),
                    sha256=hashlib.sha256(fn.encode()).hexdigest(),
                    depends=tuple((f"pkg{j:04d}", f">={1 + j % 7}") for j in (i - 1, i - 3) if j > 0),
                )
            )
    lock = Lock(
        kind="conda-lock",
        platforms=PLATFORMS,
        packages=tuple(pkgs),
        channels=(Channel(name="conda-forge", url="https://conda.anaconda.org/conda-forge"),),
        content_hash=tuple((p, spec_content_hash(spec, p)) for p in PLATFORMS),
    )
    spec_path.write_text(spec_text)
    lock_path.write_text(write_conda_lock(lock))
    return spec_path, lock_path


def _pip_wheels(work: Path) -> tuple[Path, Path]:
    """Wheels of the 20 pip packages `large_prefix` writes (pippkgNNN 0.N) and their pins."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.condafactory import build_wheel

    wheels, req = work / "lock-pip-wheels", work / "lock-pip-pins.txt"
    if not wheels.is_dir():
        for k in range(20):
            build_wheel(wheels, f"pippkg{k:03d}", f"0.{k}")
    req.write_text("".join(f"pippkg{k:03d}==0.{k}\n" for k in range(20)))
    return wheels, req


def cases(work):
    work = Path(work)
    prefix = _prefix(work)
    wheels, pins = _pip_wheels(work)
    pip_vars = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}

    from dataclasses import replace

    from envkit.backends import open_env

    # the synthetic prefix's `python` record is version 1.0.0; its site-packages says 3.11
    pip_env = replace(open_env(prefix=str(prefix)), python_version="3.11.8")

    def resolve_pip():
        from envkit.lock import resolve_index_artifacts

        saved = {k: os.environ.get(k) for k in pip_vars}
        os.environ.update(pip_vars)
        try:
            res = resolve_index_artifacts(pip_env)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        assert len(res.found) == 20 and not res.warnings, res.warnings
        return res

    # lock_live asks pip for the artifacts of the 20 index-installed pip packages unless it is given
    # them; pip (the case below measures it) is resolved once here, against the local wheels, so that
    # this case measures the lock itself and never reaches for the network's index
    artifacts = resolve_pip().found

    def floor_pip():
        import subprocess

        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--ignore-installed",
                "--no-deps",
                "--quiet",
                "--report",
                str(work / "lock-pip-report.json"),
                "-r",
                str(pins),
            ],
            env=dict(os.environ, **pip_vars),
            check=True,
            stdout=subprocess.DEVNULL,
        )

    records = sorted(glob.glob(str(prefix / "conda-meta" / "*.json")))

    def floor_records():
        import rattler

        for f in records:
            rattler.PrefixRecord.from_path(f)

    def lock_prefix():
        from envkit.backends import open_env
        from envkit.formats.condalock import write_conda_lock
        from envkit.formats.envyml import write_env
        from envkit.lock import live_env_spec, lock_live

        env = open_env(prefix=str(prefix))
        lock = lock_live(env, index_artifacts=artifacts)
        assert len(lock.packages) == 520
        assert sum(p.manager == "pip" and p.sha256 is not None for p in lock.packages) == 20
        write_conda_lock(lock, header="bench")
        write_env(live_env_spec(env), header="bench")

    spec_path, lock_path = _big_lock(work)
    envkit = [sys.executable, "-m", "envkit"]
    load = f"import yaml; yaml.load(open({str(lock_path)!r}).read(), Loader=yaml.CSafeLoader)"
    return [
        Case(
            name="lock -p of a 500-package prefix (in-process)",
            measure=lock_prefix,
            floor=floor_records,
            floor_label="py-rattler PrefixRecord.from_path x500",
            target=5.0,
            repeat=5,
            notes="reads the prefix (records, history, 20 pip dist-infos, .condarc), builds the Lock, "
            "renders conda-lock.yml and environment.lock.yml; the 20 pip artifacts are given "
            "(`index_artifacts`, resolved by pip once: the pip case measures that)",
        ),
        Case(
            name="lock --check of a 3,000-package lock (process)",
            measure=envkit + ["lock", "--check", "-f", str(spec_path), "--lock", str(lock_path)],
            floor=[sys.executable, "-c", load],
            floor_label="python + PyYAML CSafeLoader load",
            floor_kind="alternative",
            target=2.0,
            repeat=5,
            others=[json_loads_proc(lock_path)],
            notes="3 platforms x 1,000 conda packages, 100 spec entries checked per platform",
        ),
        Case(
            name="lock -p: resolve 20 index-installed pip packages with pip (in-process)",
            measure=resolve_pip,
            floor=floor_pip,
            floor_label="one bare pip install --dry-run --report of the 20 pins",
            target=1.5,
            repeat=3,
            notes="the prefix's Python cannot run, so envkit's pip targets its platform (--platform/--abi, "
            "wheels only); local wheels via --find-links",
        ),
    ]
