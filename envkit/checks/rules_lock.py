"""Rules about locks: does the lock still fit its spec, does the live environment still fit its lock,
does every locked package carry a checksum; and the YAML-level duplicate key."""

from __future__ import annotations

import os
from collections.abc import Iterator

from envkit._text import plural
from envkit.checks.core import Context, Hit, Target, rule
from envkit.model import LiveEnv, Lock, pep503


def lock_problems(spec_target: Target, lock_target: Target) -> list:
    """`envkit.lock.check_lock(spec, lock)` for a pair, computed once and cached on the spec target."""
    key = ("check_lock", id(lock_target))
    cache = spec_target.cache
    if key not in cache:
        from envkit.checks._compiled import compiled_problems, is_compiled
        from envkit.checks._manifest_pairs import manifest_problems
        from envkit.lock import check_lock

        spec, lock = spec_target.env_file, lock_target.lock_model
        # a pixi.toml / pyproject.toml: its owner's rules
        judged = manifest_problems(spec_target, lock_target)
        compiled = lock_target.env_file if is_compiled(lock_target) else None
        if judged is None and compiled is not None:
            judged = compiled_problems(spec, compiled) if spec is not None else []
        if judged is not None:
            cache[key] = judged
        elif spec is not None and lock is not None:
            # the lock's header says whose content hash it records; conda-lock's is computed from
            # the spec file on disk (envkit.lock.lock_staleness decides, as `envkit lock --check` does)
            spec_path = spec_target.path if spec_target.path and os.path.isfile(spec_target.path) else None
            cache[key] = check_lock(spec, lock, spec_path=spec_path, lock_text=lock_target.text or "")
        else:
            cache[key] = []
    return cache[key]


@rule(
    "stale-lock",
    order=9,
    severity="error",
    summary="The lock's recorded content hash does not match its spec.",
    description="""
        `envkit lock` records, per platform, a hash of everything in the spec that the solve
        depends on (channels in order, conda specs, pip entries and options).  When the spec
        changes and the lock is not regenerated, CI and colleagues install a lock that no longer
        says what the spec says.  The lock is paired with its spec by `--lock`, by the lock's
        `sources:`, or - when one spec and one lock are checked together - with each other.
        Platforms the spec lists (`platforms:`) that the lock lacks are reported too.

        Whose hash is compared follows the lock's header: envkit's own (`envkit-content-hash/1`)
        on a lock envkit wrote; conda-lock's, computed from the spec file with conda-lock's
        library (`envkit[lock]`), on a lock conda-lock wrote.  When that cannot be computed
        (conda-lock not installed, no spec file on disk), or when a lock that names neither writer
        records a hash that is neither's, it is not called stale: only the `lock-unsatisfied`
        rule checks the lock.

        Fix: `envkit lock -f environment.yml -o conda-lock.yml` (or `envkit lock --check` in CI).
        """,
    example="""
        $ envkit lock -f environment.yml -o conda-lock.yml --platform linux-64
        $ echo "  - scipy" >> environment.yml
        $ envkit check environment.yml conda-lock.yml
        conda-lock.yml:6: error stale-lock: linux-64: content hash 4f2a... does not match the spec ...
        """,
    example_fixed="""
        $ envkit lock -f environment.yml -o conda-lock.yml --platform linux-64
        $ envkit check environment.yml conda-lock.yml
        no findings (2 files checked)
        """,
    applies_to=("lock",),
    example_kind="text",
)
def stale_lock(target: Target, ctx: Context) -> Iterator[Hit]:
    spec_target = target.spec
    if spec_target is None or target.lock_model is None:
        return
    hash_line = target.line_of_key("content_hash")
    for p in lock_problems(spec_target, target):
        if p.kind == "stale":
            yield Hit(hash_line, f"{p.platform}: {p.message} ({spec_target.path})")
        elif p.kind == "missing-platform":
            yield Hit(
                target.line_of_key("platforms"),
                f"{spec_target.path} lists platform {p.platform}, which the lock has no packages for",
            )


@rule(
    "lock-unsatisfied",
    order=10,
    severity="error",
    summary="A spec entry that the lock does not satisfy.",
    description="""
        Every conda entry of the spec must be matched by the locked conda package of that name
        (conda's match-spec semantics: version, build, build number, channel) on every locked
        platform, and every pip requirement whose marker applies to the platform by a locked pip
        package (PEP 440).  A miss means the lock was made from another spec, or edited by hand.
        Reported at the spec's line.  A requirements file that pip-compile or `uv pip compile`
        wrote is the lock of the `.in` file its header names: each requirement of the `.in` needs
        a pin there that satisfies it.

        Fix: regenerate the lock (`envkit lock -f environment.yml -o conda-lock.yml`).
        """,
    example="""
        # environment.yml says numpy>=2, conda-lock.yml locks numpy 1.26.4
        $ envkit check environment.yml conda-lock.yml
        environment.yml:4: error lock-unsatisfied: linux-64: numpy>=2: locked numpy=1.26.4=... does not match
        """,
    example_fixed="""
        $ envkit lock -f environment.yml -o conda-lock.yml --platform linux-64
        """,
    applies_to=("spec",),
    example_kind="text",
)
def lock_unsatisfied(target: Target, ctx: Context) -> Iterator[Hit]:
    lock_target = target.lock
    if lock_target is None or target.env_file is None:
        return
    for p in lock_problems(target, lock_target):
        if p.kind in ("missing", "unsatisfied"):
            scope = f"{p.platform}: " if p.platform else ""
            yield Hit(p.line, f"{scope}{p.message} ({lock_target.path})", (p.name,) if p.name else ())


@rule(
    "env-drift",
    order=11,
    severity="error",
    summary="A live environment differs from its lock: packages added, removed or changed.",
    description="""
        Compares a live environment (`-n NAME` / `-p PREFIX`) with the lock given by `--lock`, on
        the environment's platform: conda packages by name (version and build), pip packages by
        normalized name (version).  Each difference is one finding: installed but not locked
        (someone ran `conda install` or `pip install`), locked but not installed, or a different
        version or build.

        Fix: recreate the environment from the lock (`envkit create`), or re-lock it if the
        change was intended (`envkit lock -n NAME`).
        """,
    example=(
        """
        $ envkit check -p ./env --lock conda-lock.yml
        ./env: error env-drift: numpy changed: locked 1.26.4 (py311h64a7726_0), """
        """installed 2.0.0 (py311h1461c94_0)
        ./env: error env-drift: rich 13.7.1 (pip) is installed but not in the lock
        """
    ),
    example_fixed="""
        $ rm -rf ./env && envkit create --lock conda-lock.yml -p ./env
        $ envkit check -p ./env --lock conda-lock.yml
        no findings (1 file and 1 environment checked)
        """,
    applies_to=("live",),
    example_kind="text",
)
def env_drift(target: Target, ctx: Context) -> Iterator[Hit]:
    env = target.view.live if target.view is not None else None
    lock_target = target.lock
    lock = lock_target.lock_model if lock_target is not None else None
    if env is None or lock_target is None or lock is None:
        return
    locked = lock.for_platform(env.platform)
    if not locked:
        yield Hit(
            None,
            f"{lock_target.path} has no packages for {env.platform}, this environment's "
            f"platform (it has: {', '.join(lock.platforms) or 'none'})",
        )
        return

    def index(pkgs):  # (manager, name) -> its first package
        return {(p.manager, p.name if p.manager == "conda" else pep503(p.name)): p for p in reversed(pkgs)}

    want = index(locked)
    have = index(env.packages)
    ranked = _diff_ranking(lock, env)
    for key in sorted(set(want) | set(have), key=lambda k: (k[1], k[0])):
        w, h = want.get(key), have.get(key)
        tag = " (pip)" if key[0] == "pip" else ""
        if w is None:
            text = f"{h.name} {h.version}{tag} is installed but not in the lock"
        elif h is None:
            text = f"{w.name} {w.version}{tag} is in the lock but not installed"
        elif w.version != h.version or (key[0] == "conda" and w.build and h.build and w.build != h.build):
            text = f"{w.name}{tag} changed: locked {_vb(w)}, installed {_vb(h)}"
        else:
            continue
        name = (w or h).name
        rank, impact = ranked.get(pep503(name), (len(ranked), "low"))
        yield Hit(
            None,
            text,
            (name,),
            severity="warning" if impact == "low" else None,
            rank=rank,
        )


def _diff_ranking(lock: Lock, env: LiveEnv) -> dict[str, tuple[int, str]]:
    """name -> (rank, impact) as `envkit diff LOCK ENV` ranks the changes: a CPU->CUDA
    torch first and as an error, a rebuilt small package last and as a warning."""
    from envkit.envdiff import diff
    from envkit.errors import EnvkitError

    try:
        d = diff(lock, env, platform=env.platform, label_a="lock", label_b="environment")
    except EnvkitError:
        return {}
    out: dict[str, tuple[int, str]] = {}
    for i, c in enumerate(d.changes):
        for p in (c.a, c.b):
            if p is not None:
                out.setdefault(pep503(p.name), (i, c.impact))
        out.setdefault(pep503(c.name), (i, c.impact))
    return out


def _vb(p) -> str:
    return f"{p.version} ({p.build})" if p.build else p.version


@rule(
    "missing-hash",
    order=20,
    severity="warning",
    summary="A lock entry without an md5 or sha256 checksum.",
    description="""
        A checksum lets the installer verify that the artifact it downloads is the one that was
        locked (a re-uploaded package, a compromised mirror, a truncated download).  conda-lock
        and pixi record them; `conda list --explicit` only with `--md5`/`--sha256`.  When no entry
        of a lock has one, a single finding says so; otherwise each entry without one is reported.

        Not reported: editable and local-path pip entries and conda packages pixi builds from
        source (nothing to download), and formats that
        cannot carry checksums (`conda list --export`, `conda env export`).

        Fix: `conda list --explicit --md5`, or lock with `envkit lock` (conda-lock format, with
        md5 and sha256).

        A requirements file where some requirement carries `--hash=` puts pip in hash-checking
        mode, where pip refuses the whole file for an entry without a hash, and for an editable,
        a local path or a VCS URL (`-e .`: nothing single to hash); each such entry is an error.
        Fix: hash every entry (`pip-compile --generate-hashes`), and install the project itself in
        a second step (`pip install --no-deps -e .`).
        """,
    example="""
        # platform: linux-64
        @EXPLICIT
        https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda
        https://conda.anaconda.org/conda-forge/noarch/pip-24.0-pyhd8ed1ab_0.conda
        """,
    example_fixed="""
        # platform: linux-64
        @EXPLICIT
        https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda#a0c2d9b4b1b8a7c5d5a1d0e1f2a3b4c5
        https://conda.anaconda.org/conda-forge/noarch/pip-24.0-pyhd8ed1ab_0.conda#f586ac1e56c8638b64f9c8122a7b8a67
        """,
    applies_to=("spec", "lock"),
    example_file="explicit.txt",
)
def missing_hash(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is not None:
        yield from _hash_mode(spec)
        return
    lock = target.lock_model
    if lock is None or lock.kind not in ("conda-lock", "pixi", "explicit"):
        return
    checked = [p for p in lock.packages if _downloadable(p)]
    missing = [p for p in checked if not (p.md5 or p.sha256)]
    if not missing:
        return
    if len(missing) == len(checked):
        names = list(dict.fromkeys(p.name for p in missing))
        managers = {p.manager for p in checked}
        what = f"locked {managers.pop()} package" if len(managers) == 1 else "locked package"
        local = len(lock.packages) - len(checked)
        besides = f" (besides {plural(local, 'local or editable package')}, not downloaded)" if local else ""
        yield Hit(
            missing[0].line,
            f"none of the {plural(len(checked), what)}{besides} has an md5 "
            f"or sha256 checksum; downloads cannot be verified",
            tuple(names),
        )
        return
    for p in missing:
        yield Hit(
            p.line,
            f"{p.name} {p.version}{' (pip)' if p.manager == 'pip' else ''} has no md5 or sha256 checksum",
            (p.name,),
        )


def _hash_mode(spec) -> Iterator[Hit]:
    """A requirements file in pip's hash-checking mode (some entry has `--hash=`): the entries pip
    refuses there."""
    entries = [p for p in spec.pip if p.kind != "option"]
    if spec.kind != "requirements" or not any("--hash" in p.text for p in entries):
        return
    for p in entries:
        if p.editable or p.kind in ("path", "vcs"):
            why = (
                f"`{p.text}` in a file of hashed requirements: pip's hash-checking mode refuses it "
                "(nothing single to hash); install it in a second step (`pip install --no-deps`)"
            )
        elif "--hash" not in p.text:
            why = (
                f"{p.text} has no --hash where the other requirements have one: pip's hash-checking "
                "mode refuses the whole file"
            )
        else:
            continue
        yield Hit(p.line, why, tuple(n for n in (p.name,) if n), severity="error")


def _downloadable(p) -> bool:
    if p.editable:
        return False
    url = p.url or ""
    if p.manager == "pip":
        return url.startswith(("http://", "https://"))
    # a pixi-build source package (`conda: .`, `conda: build-config`) is built from a path or a
    # git revision, not downloaded: there is no archive to hash
    return "://" in url and not url.startswith("file:") if url else True


@rule(
    "duplicate-key",
    order=21,
    severity="error",
    summary="A YAML mapping key given twice.",
    description="""
        YAML parsers disagree on a repeated key: PyYAML (and so conda) silently keeps the last
        one, so a second `dependencies:` hides every package of the first.  envkit refuses to
        guess; the file's other rules that need its content are skipped until it is fixed (the
        raw-text rules, leaked-secret and leaked-prefix, still run).

        Fix: merge the two entries into one key.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
        dependencies:
          - numpy
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - numpy
        """,
    applies_to=("spec", "lock"),
    raw_text=True,
)
def duplicate_key(target: Target, ctx: Context) -> Iterator[Hit]:
    err = target.parse_error
    if err is None:
        return
    line = err.where.line if err.where else None
    yield Hit(line, err.message + "; YAML tools keep only one of them (conda keeps the last)")


def is_duplicate_key_error(exc) -> bool:
    """Whether a ParseError from `envkit.formats._yaml.load` is the duplicate-key error."""
    return getattr(exc, "message", "").startswith("duplicate key ")
