"""The pip packages of a lock installed with the new environment's own pip (`--no-deps`, hashes
required when every package has one), and pip's uninstall of a conda package's Python files."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from envkit.backends.prefix_scan import site_packages_dirs
from envkit.conda.platform import python_of
from envkit.errors import BackendError
from envkit.model import LockedPackage


def pip_requirement_lines(packages: Sequence[LockedPackage]) -> tuple[list[str], bool]:
    """Requirement lines for the locked pip packages, and whether every one has a hash.

    A package with a URL is installed from exactly that URL (`name @ URL`), otherwise (no URL, or
    envkit.lock's `#envkit-unresolved` marker, see `envkit.lock.UNRESOLVED_URL`) by pin
    (`name==version`, from the index pip is configured with); `--hash=sha256:...` is added to each
    line when every package has a sha256 (pip's hash-checking mode is all or nothing).
    """
    from envkit.lock import is_index_placeholder

    all_hashed = bool(packages) and all(p.sha256 for p in packages)
    lines = []
    for p in packages:
        url = None if is_index_placeholder(p) else p.url
        if p.editable and url:
            lines.append(f"-e {url}")
            continue
        line = f"{p.name} @ {url}" if url else f"{p.name}=={p.version}"
        if all_hashed:
            line += f" --hash=sha256:{p.sha256}"
        lines.append(line)
    return lines, all_hashed


def pip_option_lines(options: Sequence[str]) -> tuple[list[str], list[str]]:
    """The lock's pip options as requirement-file lines, and warnings.

    A URL whose credentials were redacted when it was locked (`https://<USER>:<PASSWORD>@host/...`,
    `<TOKEN>@`) is passed without them, so pip takes them from its keyring or .netrc, as for any
    URL without credentials; each such option is named in a warning.  `${VAR}` references are
    kept (pip expands them in requirement files).
    """
    import re

    from envkit.urls import TOKEN, USERINFO

    lines, warnings = [], []
    for opt in options:
        if USERINFO in opt or TOKEN in opt:
            cleaned = re.sub(rf"(://)(?:{re.escape(USERINFO)}|{re.escape(TOKEN)})@", r"\1", opt)
            cleaned = re.sub(rf"([?&][A-Za-z_]*token=){re.escape(TOKEN)}&?", r"\1", cleaned).rstrip("?&")
            cleaned = re.sub(r"[?&][A-Za-z_]*token=$", "", cleaned)
            warnings.append(
                f"pip option {opt!r} had credentials removed when it was locked; passing "
                f"{cleaned!r} (pip looks the credentials up in its keyring or .netrc; or write the "
                "URL with ${VARIABLES} in the spec)"
            )
            opt = cleaned
        lines.append(opt)
    return lines, warnings


def install_pip(
    prefix: str,
    platform: str,
    packages: Sequence[LockedPackage],
    *,
    options: Sequence[str] = (),
    timeout: float = 1800,
    cwd: str | None = None,
) -> bool:
    """Install the locked pip packages with the prefix's own Python: `pip install --no-deps`.

    `options` (the lock's pip options, see `pip_option_lines`) come first in the requirements file;
    relative paths in them are relative to `cwd` (the lock's directory).  Returns whether
    `--require-hashes` was used.  Raises BackendError when the prefix has no Python or pip fails.
    """
    from envkit._proc import run

    python = python_of(prefix, platform)
    if not os.path.exists(python):
        raise BackendError(
            f"the lock has pip packages but the new environment has no Python ({python})",
            hint="lock python and pip as conda packages",
        )
    lines, hashed = pip_requirement_lines(packages)
    # pip installs into `--prefix` with the interpreter's own scheme, which for a conda python is
    # exactly its site-packages.  When `python` is a launcher for another interpreter (its
    # sys.prefix is elsewhere), pip must also not skip what that interpreter already has.
    probe = run([python, "-c", "import sys; print(sys.prefix)"], timeout=60, check=False, what="python")
    foreign = probe.ok and os.path.realpath(probe.stdout.strip()) != os.path.realpath(prefix)
    with tempfile.TemporaryDirectory(prefix="envkit-create-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        Path(req).write_text("\n".join(pip_option_lines(options)[0] + lines) + "\n", encoding="utf-8")
        argv = [
            python,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-input",
            "--disable-pip-version-check",
            "--no-warn-script-location",
            "--prefix",
            prefix,
        ]
        if foreign:
            argv.append("--ignore-installed")
        if hashed:
            argv.append("--require-hashes")
        argv += ["-r", req]
        env = dict(os.environ, PIP_NO_INPUT="1")
        run(argv, timeout=timeout, env=env, cwd=cwd, what="pip install")
    strip_direct_urls(prefix)
    return hashed


def strip_direct_urls(prefix: str) -> None:
    """Remove the credentials pip keeps in the `direct_url.json` of a package installed from a URL
    (a `/t/TOKEN/` path, a `?token=` query; pip itself drops a `user:password@`), as conda-meta's
    records lose theirs: the download used them, the environment keeps none.  The file's line in
    the dist-info's RECORD gets its new hash and size."""
    import base64
    import glob
    import hashlib
    import json

    from envkit.io import atomic_write
    from envkit.urls import strip_credentials

    found = [
        p
        for site in site_packages_dirs(prefix)
        for p in glob.glob(os.path.join(prefix, site, "*.dist-info", "direct_url.json"))
    ]
    for path in sorted(found):
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            continue
        url = data.get("url") if isinstance(data, dict) else None
        if not isinstance(url, str) or strip_credentials(url) == url:
            continue
        data["url"] = strip_credentials(url)
        text = json.dumps(data, sort_keys=True)
        atomic_write(path, text, redact=False)
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record = os.path.join(os.path.dirname(path), "RECORD")
        if os.path.isfile(record):
            name = f"{os.path.basename(os.path.dirname(path))}/direct_url.json,"
            with open(record, encoding="utf-8", newline="") as fh:
                rows = fh.read().splitlines(keepends=True)
            rows = [
                f"{name}sha256={digest},{len(text.encode())}\n" if row.startswith(name) else row
                for row in rows
            ]
            atomic_write(record, "".join(rows), redact=False)


def uninstall_dists(prefix: str, projects: Iterable[str]) -> list[str]:
    """Uninstall the Python distributions of `projects` (PEP 503 names) from `prefix`'s
    site-packages as `pip uninstall` does: every file the `.dist-info`'s RECORD lists (inside the
    prefix), the dist-info itself, then the directories left empty.  A dist-info without RECORD is
    left alone (pip refuses to uninstall one).  Returns the prefix-relative dist-info directories
    removed, in order.  Conda's records are not touched: they keep listing the files, as after a
    `pip install` over a conda package."""
    from envkit.conda.names import pep503

    wanted = set(projects)
    root = os.path.realpath(prefix)
    removed = []
    for rel_site in site_packages_dirs(prefix):
        site = os.path.join(prefix, rel_site)
        for entry in sorted(os.listdir(site)):
            if not entry.endswith(".dist-info") or pep503(entry.split("-", 1)[0]) not in wanted:
                continue
            dist = os.path.join(site, entry)
            record = os.path.join(dist, "RECORD")
            if not os.path.isfile(record):
                continue
            with open(record, encoding="utf-8", errors="replace") as fh:
                rows = [line.split(",", 1)[0] for line in fh if line.strip()]
            parents = set()
            for rel in rows:
                path = os.path.realpath(os.path.join(site, rel))
                if not path.startswith(root + os.sep) or path.startswith(os.path.realpath(dist) + os.sep):
                    continue  # outside the prefix, or in the dist-info (removed whole below)
                if os.path.isfile(path) or os.path.islink(path):
                    os.unlink(path)
                    parents.add(os.path.dirname(path))
            shutil.rmtree(dist)
            for d in sorted(parents, key=len, reverse=True):
                while d.startswith(os.path.realpath(site) + os.sep):
                    try:
                        os.rmdir(d)  # only when empty
                    except OSError:
                        break
                    d = os.path.dirname(d)
            removed.append(os.path.relpath(dist, prefix))
    return removed
