"""Build real conda channels, real prefixes and real pip installs, offline, for tests.

Everything here produces the genuine artifacts that conda, mamba and pip produce, with py-rattler 0.28
doing the conda work: package archives (`.tar.bz2`, with `info/index.json`, `info/paths.json`,
`info/files` and payload), a local `file://` channel indexed by `rattler.index.index_fs`, solves with
settable virtual packages (`__cuda`, `__glibc`, ...), installs into temporary prefixes, a
`conda-meta/history` written the way conda writes it, and pip packages installed by a real
`pip install --no-deps --target <site-packages>` of wheels built here.

Usage::

    from support.condafactory import ChannelBuilder, Pkg, python_pkg, make_prefix, build_wheel, pip_install

(`tests/` is on sys.path under pytest, so the package is `support`; from the repository root,
`tests.support.condafactory` works too, as the benchmarks use it.)

    chan = ChannelBuilder(tmp_path / "chan", name="local")
    chan.add(python_pkg("numpy", "1.26.4", build="py311h0_0", depends=["python 3.11.*"]))
    chan.add(Pkg(name="zlib", version="1.3.1", build="h0_0"))
    chan.index()
    prefix = make_prefix(tmp_path / "env", [chan], ["python=3.11", "numpy"],
                         history=True)          # solve + install + conda-meta/history
    whl = build_wheel(tmp_path / "wheels", "tinyreq", "2.0")
    pip_install(prefix, whl)                    # a PyPI-like install (no direct_url.json)
    pip_install(prefix, whl, direct=True)       # a URL install: pip writes direct_url.json

Fixtures (tests/conftest.py makes them available to every test module):

- `default_channel` (session): a `ChannelBuilder` with a small python-like set (python 3.11 and 3.12,
  numpy, pip, requests + its deps, six, zlib, openssl, a cuda-only `pytorch`-like package, ...).
- `default_prefix` (session, read-only!): python 3.11 + numpy + requests + pip installed from it, with
  history.  Copy it (`copy_prefix`) before changing anything.
- `isolated_conda` (function): HOME is a fresh directory and CONDARC / CONDA_* / MAMBA_* are unset,
  so that no real .condarc reaches the code under test.

Also: `pip_overwrite` (pip replacing a conda package's files, as `pip install -U` does),
`write_direct_url` (URL/VCS/editable installs), `write_condarc`, `write_history`, `named_env`
(a prefix under an `envs_dirs` root plus `environments.txt`), and `large_prefix(path, n=500)`,
which writes a synthetic n-package prefix for benchmarks.
Nothing here uses the network: channels are `file://` URLs and pip runs with `--no-index`.
"""

from __future__ import annotations

import asyncio
import base64
import bz2
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

try:
    import pytest
except ImportError:  # the benchmark imports this module without pytest
    pytest = None

#: Default platform of the packages and prefixes built here.
PLATFORM = "linux-64"
#: A fixed timestamp (ms) so archives and repodata are identical from run to run.
TIMESTAMP = 1_700_000_000_000


# --------------------------------------------------------------------------------------------
# packages and channels


@dataclass
class Pkg:
    """One conda package to build.

    `files` maps prefix-relative paths to content (str or bytes).  `subdir` is the platform subdir;
    `noarch` is None, "generic" or "python" (a noarch package always goes to `noarch/`; for
    `noarch: python` write files under `site-packages/...` as conda-build does).  `extra_index` adds
    more keys to `info/index.json` (e.g. `track_features`, `license`).
    """

    name: str
    version: str
    build: str = "0"
    build_number: int = 0
    depends: Sequence[str] = ()
    constrains: Sequence[str] = ()
    subdir: str = PLATFORM
    noarch: str | None = None
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    license: str | None = "MIT"
    timestamp: int = TIMESTAMP
    extra_index: Mapping[str, object] = field(default_factory=dict)

    @property
    def target_subdir(self) -> str:
        return "noarch" if self.noarch else self.subdir

    @property
    def filename(self) -> str:
        return f"{self.name}-{self.version}-{self.build}.tar.bz2"

    def index_json(self) -> dict:
        data: dict[str, object] = {
            "name": self.name,
            "version": self.version,
            "build": self.build,
            "build_number": self.build_number,
            "depends": list(self.depends),
            "constrains": list(self.constrains),
            "subdir": self.target_subdir,
            "timestamp": self.timestamp,
        }
        if self.license:
            data["license"] = self.license
        if self.noarch:
            data["noarch"] = self.noarch
        else:
            data["arch"] = "x86_64" if self.subdir.endswith("-64") else None
            data["platform"] = self.subdir.split("-")[0]
        data.update(self.extra_index)
        return data


def dist_info_files(
    pypi_name: str,
    version: str,
    site: str,
    *,
    installer: str = "conda",
    modules: Mapping[str, str] | None = None,
    requires: Sequence[str] = (),
    top_level: str | None = None,
) -> dict[str, str]:
    """The files a python package ships: `<site>/<module>/__init__.py` and a complete
    `<site>/<Name>-<ver>.dist-info/` (METADATA, RECORD, INSTALLER, top_level.txt).

    `site` is the site-packages path relative to the prefix (`lib/python3.11/site-packages`, or
    `site-packages` for noarch: python).  RECORD lists every file with its sha256 as pip does.
    """
    module = top_level or pypi_name.replace("-", "_").lower()
    mods = dict(modules) if modules is not None else {f"{module}/__init__.py": f'__version__ = "{version}"\n'}
    dist = f"{pypi_name.replace('-', '_')}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {pypi_name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    files: dict[str, str] = {f"{site}/{k}": v for k, v in mods.items()}
    files[f"{site}/{dist}/METADATA"] = "\n".join(meta) + "\n"
    files[f"{site}/{dist}/INSTALLER"] = installer + "\n"
    files[f"{site}/{dist}/top_level.txt"] = module + "\n"
    rows = []
    for path, content in files.items():
        rel = path[len(site) + 1 :]
        rows.append(f"{rel},{_record_hash(content.encode())},{len(content.encode())}")
    rows.append(f"{dist}/RECORD,,")
    files[f"{site}/{dist}/RECORD"] = "\n".join(rows) + "\n"
    return files


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def python_pkg(
    name: str,
    version: str,
    *,
    build: str | None = None,
    build_number: int = 0,
    py: str = "3.11",
    depends: Sequence[str] = (),
    constrains: Sequence[str] = (),
    pypi_name: str | None = None,
    noarch: bool = False,
    extra_files: Mapping[str, str | bytes] | None = None,
    subdir: str = PLATFORM,
) -> Pkg:
    """A python-like conda package shipping `lib/python<py>/site-packages/<module>` and its
    `<Name>-<ver>.dist-info/` (INSTALLER=conda), like conda-forge's python packages.

    `pypi_name` is the PyPI project the package installs (default: `name`), e.g. conda `pytorch`
    ships `torch`.  `depends` defaults to `python <py>.*` (or `python` for noarch).
    """
    pypi = pypi_name or name
    if noarch:
        site = "site-packages"
        deps = list(depends) or ["python"]
        build = build or "pyhd8ed1ab_0"
    else:
        site = f"lib/python{py}/site-packages"
        deps = list(depends) or [f"python {py}.*"]
        build = build or f"py{py.replace('.', '')}h0_{build_number}"
    files = dist_info_files(pypi, version, site)
    files.update(extra_files or {})
    return Pkg(
        name=name,
        version=version,
        build=build,
        build_number=build_number,
        depends=deps,
        constrains=constrains,
        files=files,
        noarch="python" if noarch else None,
        subdir=subdir,
    )


def python_interpreter_pkg(
    version: str = "3.11.8", *, build: str | None = None, subdir: str = PLATFORM
) -> Pkg:
    """A `python` package: a `bin/python` shim (a shell script that runs the test interpreter) and
    an empty `lib/pythonX.Y/site-packages`, so the prefix looks like a real env to readers."""
    xy = ".".join(version.split(".")[:2])
    shim = f'#!/bin/sh\nexec "{sys.executable}" "$@"\n'
    files = {
        "bin/python": shim,
        f"bin/python{xy}": shim,
        f"lib/python{xy}/site-packages/README.txt": (
            "This directory exists so that you can install packages here.\n"
        ),
        f"lib/python{xy}/os.py": "# stand-in for the standard library\n",
    }
    return Pkg(
        name="python",
        version=version,
        build=build or "h0_0_cpython",
        files=files,
        depends=["zlib >=1.2", "openssl >=3"],
        subdir=subdir,
        license="PSF-2.0",
    )


def interpreter_packages(subdirs: Sequence[str], version: str = "3.11.8") -> list[Pkg]:
    """A `python` (python_interpreter_pkg) with what it depends on (zlib, openssl) for each of
    `subdirs`, and a noarch `pip`: the packages on which an environment file with a pip section
    solves for every one of those platforms, so its pip part is locked for each."""
    out: list[Pkg] = []
    for sub in subdirs:
        out += [
            Pkg(name="zlib", version="1.3.1", build="h0_0", subdir=sub),
            Pkg(name="openssl", version="3.2.1", build="h0_0", subdir=sub),
            python_interpreter_pkg(version, subdir=sub),
        ]
    return out + [python_pkg("pip", "24.0", noarch=True, depends=["python >=3.7"])]


def build_archive(pkg: Pkg, directory: str | os.PathLike[str]) -> Path:
    """Write `pkg` as a `.tar.bz2` conda package under `directory` and return its path.

    The archive holds the payload and `info/index.json`, `info/paths.json` (with sha256 and size of
    every file), `info/files`; it is byte-identical from run to run.
    """
    out = Path(directory) / pkg.filename
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {k: (v.encode() if isinstance(v, str) else v) for k, v in sorted(pkg.files.items())}
    paths = [
        {
            "_path": p,
            "path_type": "hardlink",
            "sha256": hashlib.sha256(d).hexdigest(),
            "size_in_bytes": len(d),
        }
        for p, d in payload.items()
    ]
    info = {
        "info/index.json": json.dumps(pkg.index_json(), indent=2, sort_keys=True).encode(),
        "info/paths.json": json.dumps({"paths": paths, "paths_version": 1}, indent=2).encode(),
        "info/files": "".join(f"{p}\n" for p in payload).encode(),
    }
    if pkg.noarch == "python":
        info["info/link.json"] = json.dumps(
            {"noarch": {"type": "python"}, "package_metadata_version": 1}
        ).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in list(info.items()) + list(payload.items()):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = pkg.timestamp // 1000
            ti.mode = 0o755 if name.startswith("bin/") else 0o644
            tar.addfile(ti, io.BytesIO(data))
    out.write_bytes(bz2.compress(buf.getvalue(), 6))
    return out


class ChannelBuilder:
    """A local conda channel in `root` (one folder per subdir), served as a `file://` URL.

    `add()` builds package archives into it; `index()` runs `rattler.index.index_fs` to write
    `repodata.json` for every subdir (noarch and the default platform always exist).
    """

    def __init__(self, root: str | os.PathLike[str], name: str | None = None) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.name = name or self.root.name
        self.packages: list[Pkg] = []
        self._dirty = True

    @property
    def url(self) -> str:
        """The channel's `file://` URL (no trailing slash)."""
        return self.root.as_uri()

    def add(self, *pkgs: Pkg) -> ChannelBuilder:
        for pkg in pkgs:
            build_archive(pkg, self.root / pkg.target_subdir)
            self.packages.append(pkg)
        self._dirty = True
        return self

    def index(self, force: bool = False) -> ChannelBuilder:
        from rattler.index import index_fs

        if not self._dirty and not force:
            return self
        for sub in ("noarch", PLATFORM):
            (self.root / sub).mkdir(exist_ok=True)
        asyncio.run(index_fs(channel_directory=self.root, force=True, write_zst=False, write_shards=False))
        self._dirty = False
        return self

    def package_url(self, pkg: Pkg) -> str:
        return f"{self.url}/{pkg.target_subdir}/{pkg.filename}"

    def __str__(self) -> str:
        return self.url


# --------------------------------------------------------------------------------------------
# solving and installing


def virtual_packages(overrides: Mapping[str, str | None] | None = None, platform: str = PLATFORM) -> list:
    """Virtual packages for a solve: a linux default (`__unix`, `__linux=6.5`, `__glibc=2.35`,
    `__archspec=1=x86_64`) updated with `overrides` ({"__cuda": "12.4"}; a value None removes one).
    Values are versions; a `version=build` value sets the build string too."""
    from rattler import GenericVirtualPackage, PackageName, Version
    from rattler.package.build_string import BuildString

    base: dict[str, str | None] = {}
    if platform.startswith("linux"):
        base = {"__unix": "0", "__linux": "6.5", "__glibc": "2.35", "__archspec": "1=x86_64"}
    elif platform.startswith("osx"):
        base = {"__unix": "0", "__osx": "14.0", "__archspec": "1=arm64"}
    elif platform.startswith("win"):
        base = {"__win": "0", "__archspec": "1=x86_64"}
    base.update(overrides or {})
    out = []
    for name, value in base.items():
        if value is None:
            continue
        version, _, build = value.partition("=")
        out.append(GenericVirtualPackage(PackageName(name), Version(version), BuildString(build or "0")))
    return out


def solve(
    channels: Sequence[ChannelBuilder | str],
    specs: Sequence[str],
    *,
    platform: str = PLATFORM,
    virtual: Mapping[str, str | None] | None = None,
    channel_priority: str = "strict",
) -> list:
    """Solve `specs` against `channels` (in priority order) and return rattler RepoDataRecords."""
    from rattler import Channel, ChannelPriority
    from rattler import solve as rsolve

    for ch in channels:
        if isinstance(ch, ChannelBuilder):
            ch.index()
    sources = [Channel(ch.url if isinstance(ch, ChannelBuilder) else ch) for ch in channels]
    prio = {"strict": ChannelPriority.Strict, "disabled": ChannelPriority.Disabled}[channel_priority]
    return asyncio.run(
        rsolve(
            sources=sources,
            specs=list(specs),
            platforms=[platform, "noarch"],
            virtual_packages=virtual_packages(virtual, platform),
            channel_priority=prio,
        )
    )


def install(
    records: list,
    prefix: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    requested_specs: Sequence[str] | None = None,
    platform: str = PLATFORM,
) -> Path:
    """Install solved `records` into `prefix` with rattler (no network; the package cache defaults
    to `<prefix>/../.pkgs-cache`) and return the prefix path."""
    from rattler import MatchSpec, Subdir
    from rattler import install as rinstall

    prefix = Path(prefix).resolve()
    cache = Path(cache_dir) if cache_dir else prefix.parent / ".pkgs-cache"
    asyncio.run(
        rinstall(
            records,
            target_prefix=prefix,
            cache_dir=cache,
            show_progress=False,
            platform=Subdir(platform),
            # py-rattler 0.28 forwards `requested_specs` to Rust unwrapped: pass the inner object
            requested_specs=[MatchSpec(s)._match_spec for s in requested_specs] if requested_specs else None,
        )
    )
    return prefix


def write_history(prefix: str | os.PathLike[str], blocks: Iterable[Mapping[str, object]]) -> Path:
    """Append blocks to `<prefix>/conda-meta/history` exactly as conda writes them.

    Each block: {"cmd": "conda install -c x numpy", "update_specs": [...], "remove_specs": [...],
    "neutered_specs": [...], "add": ["chan/linux-64::numpy-1.26.4-py311h0_0", ...], "remove": [...],
    "time": "2024-01-02 03:04:05"}.
    """
    path = Path(prefix) / "conda-meta" / "history"
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for i, b in enumerate(blocks):
        out.append(f"==> {b.get('time', f'2024-01-0{1 + i % 9} 12:00:00')} <==")
        out.append(f"# cmd: {b.get('cmd', 'conda install')}")
        out.append(f"# conda version: {b.get('conda_version', '24.1.2')}")
        out += [f"-{d}" for d in b.get("remove", ())]
        out += [f"+{d}" for d in b.get("add", ())]
        for key in ("update", "remove", "neutered"):
            specs = b.get(f"{key}_specs")
            if specs is not None:
                out.append(f"# {key} specs: {list(specs)!r}")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")
    return path


def history_dists(records: Iterable) -> list[str]:
    """`channel/subdir::name-version-build` lines for records, as conda's history lists them."""
    out = []
    for r in records:
        chan = str(r.channel).rstrip("/") if r.channel else ""
        out.append(f"{chan}/{r.subdir}::{r.name.normalized}-{r.version}-{r.build}")
    return sorted(out)


def make_prefix(
    prefix: str | os.PathLike[str],
    channels: Sequence[ChannelBuilder | str],
    specs: Sequence[str],
    *,
    platform: str = PLATFORM,
    virtual: Mapping[str, str | None] | None = None,
    history: bool = True,
    cmd: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Solve and install `specs` into a new `prefix`; with `history`, also write the
    `conda-meta/history` block conda would write for `conda create -n x -c ... SPECS`."""
    records = solve(channels, specs, platform=platform, virtual=virtual)
    path = install(records, prefix, cache_dir=cache_dir, requested_specs=specs, platform=platform)
    if history:
        chans = " ".join(f"-c {c.url if isinstance(c, ChannelBuilder) else c}" for c in channels)
        hist = path / "conda-meta" / "history"
        if hist.exists():  # rattler may have started one; conda's format is what we want
            hist.unlink()
        write_history(
            path,
            [
                {
                    "cmd": cmd or f"conda create -p {path} {chans} {' '.join(specs)}",
                    "add": history_dists(records),
                    "update_specs": list(specs),
                }
            ],
        )
    return path


def copy_prefix(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> Path:
    """Copy a prefix (e.g. the session's read-only `default_prefix`) so a test can change it."""
    shutil.copytree(src, dst, symlinks=True)
    return Path(dst)


def answering_exe(
    directory: str | os.PathLike[str], name: str, answers: Mapping[str, object], *, fail: str | None = None
) -> Path:
    """Write an executable `directory/name` (a fake conda, mamba or micromamba) that prints the
    recorded answer for its argv joined by spaces: JSON, or a str as is.  An argv not in `answers`
    exits 2 (`unexpected: ...` on stderr); one starting with `fail` exits 1 with conda's
    could-not-find-environment error.  Returns its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data = directory / f"{name}.answers.json"
    data.write_text(json.dumps(answers))
    exe = directory / name
    exe.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"answers = json.load(open({str(data)!r}))\n"
        "key = ' '.join(sys.argv[1:])\n"
        f"fail = {fail!r}\n"
        "if fail and key.startswith(fail):\n"
        "    sys.stderr.write('CondaValueError: could not find environment: ml\\n'); sys.exit(1)\n"
        "if key not in answers:\n"
        "    sys.stderr.write('unexpected: ' + key + '\\n'); sys.exit(2)\n"
        "answer = answers[key]\n"
        "print(answer if isinstance(answer, str) else json.dumps(answer, indent=4))\n"
    )
    exe.chmod(exe.stat().st_mode | 0o111)
    return exe


def put_token_in_zlib_record(prefix: str | os.PathLike[str]) -> Path:
    """Rewrite the zlib record of a (copied) default prefix as if installed from the private
    anaconda.org channel `private` through the token path `/t/abc-123/`; returns the record's path."""
    path = next((Path(prefix) / "conda-meta").glob("zlib-*.json"))
    rec = json.loads(path.read_text())
    rec["channel"] = "https://conda.anaconda.org/t/abc-123/private/linux-64"
    rec["url"] = "https://conda.anaconda.org/t/abc-123/private/linux-64/zlib-1.3.1-h4ab18f5_1.conda"
    path.write_text(json.dumps(rec))
    return path


def site_packages(prefix: str | os.PathLike[str], py: str | None = None) -> Path:
    """`<prefix>/lib/pythonX.Y/site-packages` (the first one found when `py` is None)."""
    prefix = Path(prefix)
    if py:
        return prefix / "lib" / f"python{py}" / "site-packages"
    found = sorted(prefix.glob("lib/python3*/site-packages"))
    if not found:
        raise FileNotFoundError(f"no lib/python3*/site-packages in {prefix}")
    return found[0]


# --------------------------------------------------------------------------------------------
# wheels and pip


def build_wheel(
    directory: str | os.PathLike[str],
    name: str,
    version: str,
    *,
    modules: Mapping[str, str] | None = None,
    requires: Sequence[str] = (),
    tag: str = "py3-none-any",
) -> Path:
    """Build a valid wheel `<name>-<version>-<tag>.whl` in `directory` and return its path.

    It has the modules (default `<name>/__init__.py`) and `<name>-<version>.dist-info/` with
    WHEEL, METADATA (Requires-Dist from `requires`) and a RECORD of sha256 hashes.
    """
    norm = name.replace("-", "_")
    module = norm.lower()
    mods = dict(modules) if modules is not None else {f"{module}/__init__.py": f'__version__ = "{version}"\n'}
    dist = f"{norm}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    files = dict(mods)
    files[f"{dist}/METADATA"] = "\n".join(meta) + "\n"
    files[f"{dist}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: envkit-tests\nRoot-Is-Purelib: true\nTag: {tag}\n"
    )
    files[f"{dist}/top_level.txt"] = module.split("/")[0] + "\n"
    record = [f"{p},{_record_hash(c.encode())},{len(c.encode())}" for p, c in files.items()]
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    out = Path(directory) / f"{norm}-{version}-{tag}.whl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, content in files.items():
            zi = zipfile.ZipInfo(path, date_time=(2024, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zf.writestr(zi, content)
    return out


def pip_install(
    prefix: str | os.PathLike[str],
    wheel: str | os.PathLike[str],
    *,
    direct: bool = False,
    py: str | None = None,
    timeout: float = 120,
) -> Path:
    """Install `wheel` into the prefix's site-packages with a real
    `pip install --no-deps --target <site-packages>` and return the new `.dist-info` directory.

    `direct=False` installs by name from the wheel's folder (`--no-index --find-links`), as an
    install from an index would (pip writes no direct_url.json); `direct=True` installs the file
    path, and pip records it in `direct_url.json` (`archive_info`), as for a URL install.
    """
    wheel = Path(wheel).resolve()
    target = site_packages(prefix, py)
    name, version = wheel.name.split("-")[:2]
    before = set(target.glob("*.dist-info"))
    argv = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-index",
        "--disable-pip-version-check",
        "--no-compile",
        "--no-warn-conflicts",
        "--upgrade",
        "--target",
        str(target),
    ]
    if direct:
        argv.append(str(wheel))
    else:
        argv += ["--find-links", str(wheel.parent), f"{name}=={version}"]
    env = dict(os.environ, PIP_NO_INPUT="1", PIP_CONFIG_FILE=os.devnull)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"pip install failed ({proc.returncode}):\n{proc.stderr}")
    after = set(target.glob("*.dist-info"))
    new = sorted(after - before) or sorted(target.glob(f"{name}-{version}.dist-info"))
    return new[0]


def pip_overwrite(
    prefix: str | os.PathLike[str], wheel: str | os.PathLike[str], *, py: str | None = None
) -> Path:
    """Install `wheel` over the conda package that provides the same project, as a plain
    `pip install -U` does: pip uninstalls the old distribution (every file its RECORD lists, the
    conda package's dist-info included), then installs the wheel.  The conda record in conda-meta
    stays, now listing files that are gone.  Returns the new `.dist-info`."""
    target = site_packages(prefix, py)
    project = Path(wheel).name.split("-")[0].lower()
    for dist in list(target.glob("*.dist-info")):
        if dist.name.split("-")[0].lower().replace("-", "_") != project:
            continue
        record = dist / "RECORD"
        for row in record.read_text().splitlines() if record.exists() else ():
            rel = row.split(",")[0]
            if rel:
                (target / rel).unlink(missing_ok=True)
        shutil.rmtree(dist, ignore_errors=True)
        for d in sorted(
            {(target / r.split(",")[0]).parent for r in record.read_text().splitlines() if r}
            if record.exists()
            else (),
            reverse=True,
        ):
            try:
                d.rmdir()
            except OSError:
                pass
    return pip_install(prefix, wheel, py=py)


def write_direct_url(
    dist_info: str | os.PathLike[str],
    url: str,
    *,
    vcs: str | None = None,
    commit: str | None = None,
    requested_revision: str | None = None,
    editable: bool = False,
    archive_hash: str | None = None,
) -> Path:
    """Write `direct_url.json` (PEP 610) into `dist_info` for a URL, VCS or editable install, and
    add it to RECORD.  VCS: `vcs="git", commit="abc..."`; editable: `url="file:///src", editable=True`;
    archive: `archive_hash="sha256=..."`."""
    data: dict[str, object] = {"url": url}
    if vcs:
        info: dict[str, str] = {"vcs": vcs, "commit_id": commit or "0" * 40}
        if requested_revision:
            info["requested_revision"] = requested_revision
        data["vcs_info"] = info
    elif editable or url.startswith("file:") and not url.endswith((".whl", ".tar.gz", ".zip")):
        data["dir_info"] = {"editable": True} if editable else {}
    else:
        data["archive_info"] = {"hash": archive_hash} if archive_hash else {}
    path = Path(dist_info) / "direct_url.json"
    path.write_text(json.dumps(data, sort_keys=True))
    record = Path(dist_info) / "RECORD"
    if record.exists():
        rows = record.read_text().splitlines()
        rel = f"{Path(dist_info).name}/direct_url.json"
        if not any(r.startswith(rel + ",") for r in rows):
            rows.append(f"{rel},,")
            record.write_text("\n".join(rows) + "\n")
    return path


# --------------------------------------------------------------------------------------------
# configuration: .condarc, named environments


def write_condarc(
    path: str | os.PathLike[str],
    *,
    channels: Sequence[str] | None = None,
    channel_priority: str | None = None,
    envs_dirs: Sequence[str] | None = None,
    extra: str = "",
) -> Path:
    """Write a `.condarc` at `path` (a file; for a prefix's own condarc pass `<prefix>/.condarc`)."""
    lines = []
    if channels is not None:
        lines.append("channels:")
        lines += [f"  - {c}" for c in channels]
    if channel_priority is not None:
        lines.append(f"channel_priority: {channel_priority}")
    if envs_dirs is not None:
        lines.append("envs_dirs:")
        lines += [f"  - {d}" for d in envs_dirs]
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("\n".join(lines) + ("\n" if lines else "") + extra)
    return p


def write_state(prefix: str | os.PathLike[str], variables: Mapping[str, str]) -> Path:
    """Write `conda-meta/state` as `conda env config vars set` does."""
    p = Path(prefix) / "conda-meta" / "state"
    p.write_text(json.dumps({"env_vars": dict(variables)}, indent=2))
    return p


def named_env(
    envs_dir: str | os.PathLike[str],
    name: str,
    source: str | os.PathLike[str],
    environments_txt: str | os.PathLike[str] | None = None,
) -> Path:
    """Copy prefix `source` to `<envs_dir>/<name>` (a named environment) and, when given, list it
    in `environments_txt` as conda does."""
    dst = copy_prefix(source, Path(envs_dir) / name)
    if environments_txt is not None:
        t = Path(environments_txt)
        t.parent.mkdir(parents=True, exist_ok=True)
        with open(t, "a") as fh:
            fh.write(f"{dst}\n")
    return dst


# --------------------------------------------------------------------------------------------
# the default channel, and fixtures


def default_packages() -> list[Pkg]:
    """A small python-like package set used by the session fixtures."""
    return [
        Pkg(name="zlib", version="1.3.1", build="h4ab18f5_1", build_number=1),
        Pkg(
            name="openssl",
            version="3.2.1",
            build="hd590300_1",
            build_number=1,
            files={"lib/libssl.so.3": b"\x7fELF fake"},
        ),
        Pkg(
            name="ca-certificates",
            version="2024.2.2",
            build="hbcca054_0",
            noarch="generic",
            files={"ssl/cacert.pem": "# certs\n"},
        ),
        python_interpreter_pkg("3.11.8", build="hab00c5b_0_cpython"),
        python_interpreter_pkg("3.12.2", build="hab00c5b_0_cpython"),
        python_pkg("pip", "24.0", noarch=True, depends=["python >=3.7"]),
        python_pkg("six", "1.16.0", noarch=True, depends=["python"]),
        python_pkg("numpy", "1.26.4", build="py311h64a7726_0", depends=["python >=3.11,<3.12.0a0", "zlib"]),
        python_pkg(
            "numpy", "1.26.4", build="py312heda63a1_0", py="3.12", depends=["python >=3.12,<3.13.0a0"]
        ),
        python_pkg("numpy", "1.26.3", build="py311h64a7726_0", depends=["python >=3.11,<3.12.0a0"]),
        python_pkg("idna", "3.6", noarch=True),
        python_pkg("urllib3", "2.2.1", noarch=True),
        python_pkg(
            "requests",
            "2.31.0",
            noarch=True,
            depends=["python >=3.7", "idna >=2.5,<4", "urllib3 >=1.21.1,<3", "ca-certificates"],
        ),
        python_pkg(
            "pyyaml",
            "6.0.1",
            build="py311h459d7ec_1",
            build_number=1,
            pypi_name="PyYAML",
            depends=["python >=3.11,<3.12.0a0"],
        ),
        # conda `pytorch` installs PyPI `torch`; the cuda build needs __cuda.
        python_pkg(
            "pytorch",
            "2.2.1",
            build="cpu_py311h0_0",
            pypi_name="torch",
            depends=["python >=3.11,<3.12.0a0", "numpy"],
        ),
        python_pkg(
            "pytorch",
            "2.2.1",
            build="cuda120_py311h0_300",
            build_number=300,
            pypi_name="torch",
            depends=["python >=3.11,<3.12.0a0", "numpy", "__cuda >=12"],
        ),
    ]


def build_default_channel(root: str | os.PathLike[str]) -> ChannelBuilder:
    """Build and index the default package set into a channel at `root`."""
    chan = ChannelBuilder(root, name="local")
    chan.add(*default_packages())
    return chan.index()


DEFAULT_SPECS = ("python=3.11", "numpy", "requests", "pip")


if pytest is not None:

    @pytest.fixture(scope="session")
    def default_channel(tmp_path_factory) -> ChannelBuilder:
        """Session-wide indexed channel of `default_packages()` (do not add to it)."""
        return build_default_channel(tmp_path_factory.mktemp("condachan") / "local")

    @pytest.fixture(scope="session")
    def default_prefix(tmp_path_factory, default_channel) -> Path:
        """Session-wide prefix: python 3.11, numpy, requests, pip from `default_channel`, with
        history.  Read-only: `copy_prefix` it before changing anything."""
        root = tmp_path_factory.mktemp("condaenv")
        return make_prefix(root / "env", [default_channel], list(DEFAULT_SPECS), cache_dir=root / "pkgs")


# --------------------------------------------------------------------------------------------
# benchmarks


def large_prefix(
    path: str | os.PathLike[str],
    n: int = 500,
    *,
    py: str = "3.11",
    channel: str = "https://conda.anaconda.org/conda-forge",
    pip: int = 0,
    files_per_pkg: int = 40,
) -> Path:
    """Write a synthetic `n`-package prefix at `path` (conda-meta records like conda writes them,
    their files, a history, dist-info for the python packages) and return it.

    Written directly rather than installed, so that generating 500 packages takes well under a
    second; every record is a complete PrefixRecord that py-rattler reads.  `pip` adds that many
    pip-installed dist-info directories.  Each record also lists `files_per_pkg` more files (with
    their paths_data), as real records do, without writing them: readers pay the real parsing cost.
    """
    prefix = Path(path)
    meta = prefix / "conda-meta"
    meta.mkdir(parents=True, exist_ok=True)
    site = f"lib/python{py}/site-packages"
    (prefix / site).mkdir(parents=True, exist_ok=True)
    adds = []
    names = []
    for i in range(n):
        name = "python" if i == 0 else f"pkg{i:04d}"
        version = f"{1 + i % 7}.{i % 13}.{i % 5}"
        is_py = i % 2 == 1
        build = f"py{py.replace('.', '')}h{i:07x}_0" if is_py else f"h{i:07x}_0"
        sub = PLATFORM
        files: dict[str, str] = {}
        if is_py:
            files = dist_info_files(name, version, site)
        else:
            files = {f"lib/lib{name}.so": f"lib {name}\n", f"include/{name}.h": f"// {name}\n"}
        for rel, content in files.items():
            p = prefix / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
        listed = dict(files)
        for k in range(files_per_pkg):
            listed[f"share/{name}/data/file{k:03d}.dat"] = f"{name}{k}"
        depends = [f"pkg{j:04d} >={1 + j % 7}" for j in (i - 1, i - 3) if j > 0]
        if is_py:
            depends.append(f"python >={py},<{py.split('.')[0]}.{int(py.split('.')[1]) + 1}.0a0")
        fn = f"{name}-{version}-{build}.conda"
        rec = {
            "name": name,
            "version": version,
            "build": build,
            "build_number": 0,
            "channel": f"{channel}/{sub}",
            "subdir": sub,
            "fn": fn,
            "url": f"{channel}/{sub}/{fn}",
            "md5": hashlib.md5(fn.encode()).hexdigest(),
            "sha256": hashlib.sha256(fn.encode()).hexdigest(),
            "depends": depends,
            "constrains": [],
            "license": "MIT",
            "size": 1000 + i,
            "timestamp": TIMESTAMP,
            "arch": "x86_64",
            "platform": "linux",
            "files": sorted(listed),
            "paths_data": {
                "paths": [
                    {
                        "_path": p,
                        "path_type": "hardlink",
                        "sha256": hashlib.sha256(c.encode()).hexdigest(),
                        "size_in_bytes": len(c.encode()),
                    }
                    for p, c in sorted(listed.items())
                ],
                "paths_version": 1,
            },
            "link": {"source": f"/opt/conda/pkgs/{fn[:-6]}", "type": 1},
            "requested_spec": name if i % 25 == 0 else "",
        }
        (meta / f"{name}-{version}-{build}.json").write_text(json.dumps(rec, indent=2))
        adds.append(f"conda-forge/{sub}::{name}-{version}-{build}")
        if i % 25 == 0:
            names.append(name)
    write_history(
        prefix,
        [{"cmd": "conda create -n big " + " ".join(names), "add": sorted(adds), "update_specs": names}],
    )
    for k in range(pip):
        name = f"pippkg{k:03d}"
        dist = prefix / site / f"{name}-0.{k}.dist-info"
        files = dist_info_files(name, f"0.{k}", site, installer="pip")
        for rel, content in files.items():
            p = prefix / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
        assert dist.is_dir()
    return prefix


if pytest is not None:

    @pytest.fixture
    def isolated_conda(tmp_path, monkeypatch) -> Path:
        """A clean conda configuration for one test: HOME is a fresh directory (returned), and
        CONDARC, CONDA_*, MAMBA_* and XDG_CONFIG_HOME are unset, so no real .condarc leaks in."""
        home = tmp_path / "home"
        home.mkdir()
        monkeypatch.setenv("HOME", str(home))
        for var in list(os.environ):
            if var.startswith(("CONDA_", "MAMBA_")) or var in ("CONDARC", "XDG_CONFIG_HOME"):
                monkeypatch.delenv(var, raising=False)
        return home
