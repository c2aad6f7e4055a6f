"""Rules for the 2026 lock formats: pylock.toml / uv.lock entries without a hash, and a pip lock
whose `requires-python` leaves out the environment's Python."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from envkit.checks._helpers import join_names, pinned_python
from envkit.checks.core import Context, Hit, Target, rule

_ARCHIVE = r"\.(?:whl|tar\.gz|zip|tar\.bz2|tgz)(?:[#?].*)?$"


@rule(
    "pip-lock-missing-hash",
    order=30,
    severity="warning",
    summary="A pylock.toml or uv.lock entry without a sha256.",
    description="""
        PEP 751 requires a hash for every archive, sdist and wheel of a pylock.toml, and uv records
        one for every artifact it downloads; an installer uses them to verify that it installs
        what was locked.  A pylock.toml entry without one is not valid PEP 751 (envkit reports it
        as a parse error); this rule reports the uv.lock and pylock entries whose artifact has no
        sha256: uv writes none for wheels of a local `--find-links` directory, so such a lock
        cannot be verified elsewhere.

        Not reported: editable, directory and VCS entries (nothing is downloaded).

        Fix: lock from an index (`uv lock` against a package index), or `uv pip compile
        --generate-hashes`.
        """,
    example="""
        version = 1
        requires-python = ">=3.10"

        [[package]]
        name = "alpha"
        version = "1.0"
        source = { registry = "wheels" }
        wheels = [{ path = "alpha-1.0-py3-none-any.whl" }]
        """,
    example_fixed=(
        """
        version = 1
        requires-python = ">=3.10"

        [[package]]
        name = "alpha"
        version = "1.0"
        source = { registry = "wheels" }
        wheels = [{ path = "alpha-1.0-py3-none-any.whl", """
        """hash = "sha256:6bb010fbf61e8913add6b37008c20a2199fec876f722c0257e06a6a4b53b5c0e" }]
        """
    ),
    applies_to=("lock",),
    example_file="uv.lock",
)
def pip_lock_missing_hash(target: Target, ctx: Context) -> Iterator[Hit]:
    lock = target.lock_model
    if lock is None or lock.kind not in ("pylock", "uv-lock"):
        return
    archive = re.compile(_ARCHIVE).search
    for p in lock.packages:
        if p.editable or not p.url or not archive(p.url) or p.sha256:
            continue
        yield Hit(
            p.line,
            f"{p.name} {p.version} has no sha256 for {p.url.rsplit('/', 1)[-1]}; the installer "
            f"cannot verify it",
            (p.name,),
        )


@rule(
    "lock-python-mismatch",
    order=31,
    severity="error",
    summary="A pip lock's requires-python does not include the environment's Python.",
    description="""
        A pylock.toml or uv.lock records the Python versions it was resolved for
        (`requires-python`).  When the environment it is checked with (`envkit check
        environment.yml --lock pylock.toml`) pins a Python outside that range, the installer
        refuses the lock, or installs wheels resolved for another Python.

        Fix: lock again for the environment's Python (`uv pip compile --python-version 3.X`), or
        change the environment's Python.
        """,
    example=(
        """
        # envkit check environment.yml --lock pylock.toml, where pylock.toml says
        # requires-python = ">=3.11" and environment.yml pins python=3.10
        environment.yml: error lock-python-mismatch: pylock.toml requires Python >=3.11; """
        """the environment has 3.10
        """
    ),
    example_fixed="""
        # environment.yml pins python=3.11
        no findings (2 files checked)
        """,
    applies_to=("lock",),
    example_kind="text",
)
def lock_python_mismatch(target: Target, ctx: Context) -> Iterator[Hit]:
    lock = target.lock_model
    if lock is None or lock.kind not in ("pylock", "uv-lock") or target.spec is None:
        return
    raw = dict(lock.metadata).get("requires-python")
    python = _python_of(target.spec)
    if not raw or python is None:
        return
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        spec = SpecifierSet(json.loads(raw))
        version = Version(python)
    except (InvalidSpecifier, InvalidVersion, ValueError):
        return
    # a pin to a minor release (3.10, 3.10.*) is inside when its first patch release is (`micro`
    # of a two-part version is 0)
    probe = Version(f"{version.major}.{version.minor}.{version.micro}")
    if not spec.contains(probe, prereleases=True):
        line = next((n for n, t in enumerate(target.lines, 1) if re.match(r"^requires-python\s*=", t)), None)
        yield Hit(
            line, f"{target.path} requires Python {spec}; {target.spec.path} has Python {python}", ("python",)
        )


def _python_of(target: Target) -> str | None:
    """The Python version a spec pins.  A lock's `spec` target is always a spec
    (envkit.checks.targets.pair and the manifest and compiled pairings): read as an EnvSpec, or
    unread (a duplicated key), never a lock."""
    model = target.env_file
    return pinned_python(model) if model is not None else None


@rule(
    "pip-lock-one-platform",
    order=32,
    severity="warning",
    summary="A pylock.toml whose wheels install on one platform or Python, and which does not say so.",
    description="""
        `pip lock` records the one wheel it chose for the machine it ran on: a package with
        compiled code gets that platform's and that Python's wheel, and no sdist.  PEP 751 lets a
        lock say where it applies (`environments`, `requires-python`); a lock that says neither
        looks portable, and an installer on any other platform or Python finds no artifact for
        those packages and stops part-way.  The finding names the platforms and Pythons every
        package has an artifact for, and the packages that narrow them.

        Fix: declare it (`environments = ["sys_platform == 'linux' and platform_machine ==
        'x86_64'"]`, `requires-python = "==3.11.*"`), or lock for every target (`uv pip compile
        --universal -o pylock.toml`).
        """,
    example="""
        # pylock.toml written by `pip lock pyyaml six` on Linux x86_64, CPython 3.11
        pylock.toml:4: warning pip-lock-one-platform: pylock.toml installs only on Linux x86_64 """
    """with CPython 3.11: pyyaml has no other wheel and no sdist, and the lock declares no
        `environments` or `requires-python`
        """,
    example_fixed="""
        # the same lock with `environments` and `requires-python`
        no findings (1 file checked)
        """,
    applies_to=("lock",),
    example_file="pylock.toml",
    example_kind="text",
)
def pip_lock_one_platform(target: Target, ctx: Context) -> Iterator[Hit]:
    lock = target.lock_model
    if lock is None or lock.kind != "pylock":
        return
    meta = dict(lock.metadata)
    if "environments" in meta or "requires-python" in meta:
        return
    from envkit.checks._wheel_platforms import lock_reach

    reach = lock_reach(lock.packages)
    if not reach.narrowing:
        return
    where = []
    if reach.platforms is not None:
        where.append(" or ".join(sorted(reach.platforms)) or "no platform")
    if reach.pythons is not None:
        where.append("with " + (" or ".join(sorted(reach.pythons)) or "no single Python"))
    names = [p.name for p in reach.narrowing]
    has = "have" if len(names) > 1 else "has"
    yield Hit(
        reach.narrowing[0].line,
        f"{target.path.rsplit('/', 1)[-1]} installs only on {' '.join(where)}: {join_names(names, 5)} "
        f"{has} no other wheel and no sdist, and the lock declares no `environments` or `requires-python`",
        tuple(names),
    )
