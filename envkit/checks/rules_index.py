"""Rule about pip indexes: a PyTorch `+cuXXX` / `+cpu` wheel asked for, or locked, from an index that
does not serve that variant."""

from __future__ import annotations

import re
from collections.abc import Iterator

from envkit.checks.core import Context, Hit, Target, rule
from envkit.conda.families import PYTORCH_INDEX_FAMILY as PYTORCH_FAMILY
from envkit.model import EnvSpec, Lock

_LOCAL = r"\+(?P<variant>cu\d+|cpu|rocm[\d.]+|xpu)$"
_PYPI_HOSTS = r"^https?://(?:files\.pythonhosted\.org|pypi\.org|pypi\.python\.org)/"


def _variant_of(version: str) -> str | None:
    m = re.search(_LOCAL, version.strip())
    return m.group("variant") if m else None


@rule(
    "wheel-index",
    order=15,
    severity="error",
    summary="A PyTorch `+cuXXX`/`+cpu` wheel from an index that does not serve that variant, or an "
    "unpinned torch that PyPI's newer release takes from a CUDA index.",
    description="""
        PyTorch publishes each CUDA variant of torch, torchvision and torchaudio (`2.7.1+cu126`) only
        on its own wheel index, `https://download.pytorch.org/whl/cu126`; PyPI has no local
        versions at all.  Reported:

        - in an environment file, a pip pin of a `+cuXXX`/`+cpu` version when the pip section names
          no PyTorch index of that variant (`--index-url .../whl/cu118` with `torch==2.7.1+cu126`,
          or no PyTorch index, so pip looks on PyPI): the install fails, or a fallback index gives
          another build;
        - in a lock, such a wheel whose URL is on PyPI or on the PyTorch index of another variant,
          or which the lock records (`envkit.pip_index`) as coming from another index: the lock
          was not made from the index its version says;
        - (warning) in an environment file, a torch not pinned to one version that pip searches on
          a PyTorch CUDA index and on PyPI: pip takes the highest version of any index, PyPI's
          newest torch is newer than the newest that index has for its CUDA (the PyTorch
          compatibility matrix), so pip installs PyPI's build instead.

        Fix: name the variant's index in the pip section (`--index-url
        https://download.pytorch.org/whl/cu126`, keeping PyPI as `--extra-index-url` for the
        other packages), then lock again (`envkit lock -f`, which fails rather than fall back).
        """,
    example="""
        channels:
          - conda-forge
        dependencies:
          - python=3.12
          - pip
          - pip:
            - --index-url https://download.pytorch.org/whl/cu118
            - torch==2.7.1+cu126
        """,
    example_fixed="""
        channels:
          - conda-forge
        dependencies:
          - python=3.12
          - pip
          - pip:
            - --index-url https://download.pytorch.org/whl/cu126
            - torch==2.7.1+cu126
        """,
    applies_to=("spec", "lock"),
)
def wheel_index(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file  # what the pip section says (an export's too)
    if spec is not None:
        yield from _pinned_variant_hits(spec)
        yield from _unpinned_beside_pypi(spec)
    elif target.lock_model is not None:  # where each wheel was locked from
        yield from _lock_hits(target.lock_model)


def _unpinned_beside_pypi(spec: EnvSpec) -> Iterator[Hit]:
    """A torch that is not pinned to one version, searched on a PyTorch CUDA index and on PyPI:
    pip takes the highest version of any index, and PyPI's newest torch is newer than the newest
    that index has for its CUDA, so pip installs PyPI's build, not the CUDA one the file names."""
    torch = next((p for p in spec.pip if p.kind == "requirement" and p.key == "torch"), None)
    if torch is None or re.search(r"===?", torch.specifier or ""):
        return
    from envkit.conda.buildstr import pytorch_variant
    from envkit.lock.pip_index import PYPI_SIMPLE, spec_indexes

    options = [p.raw.strip() or p.text for p in spec.pip if p.kind == "option"]
    indexes = spec_indexes(options)
    variant = next((v for v in map(pytorch_variant, indexes) if v and v.startswith("cu")), None)
    if variant is None or PYPI_SIMPLE not in indexes:
        return
    newer = _newer_than_the_index(variant, torch.specifier or "")
    if newer is None:
        return
    last, newest = newer
    yield Hit(
        torch.line,
        f"{torch.text}: the newest torch on https://download.pytorch.org/whl/{variant} is {last}, "
        f"PyPI has {newest}, and pip takes the highest version of any index: it installs PyPI's "
        f"build, not a {variant} one; pin torch=={last}.* or make the {variant} index the only one",
        ("torch",),
        severity="warning",
    )


def _newer_than_the_index(variant: str, specifier: str) -> tuple[str, str] | None:
    """(the newest torch minor the PyTorch index `variant` serves, the newest one envkit knows)
    when `specifier` allows a torch newer than the first (the PyTorch compatibility matrix)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from envkit.conda.buildstr import variant_cuda
    from envkit.conda.versions import version_key
    from envkit.templates import load_matrix

    cuda = variant_cuda(variant)
    matrix = load_matrix()
    on_index = [r.torch for r in matrix.releases if cuda in r.cuda]
    if not on_index:
        return None
    try:
        allowed = SpecifierSet(specifier)
    except InvalidSpecifier:
        return None
    after = [v for v in matrix.torch_versions() if version_key(v) > version_key(on_index[-1])]
    if not any(allowed.contains(f"{v}.0", prereleases=False) for v in after):
        return None
    return on_index[-1], after[-1]


def _pinned_variant_hits(spec: EnvSpec) -> Iterator[Hit]:
    pins = []
    for p in spec.pip:
        if p.kind != "requirement" or not p.name or p.name.lower() not in PYTORCH_FAMILY:
            continue
        m = re.search(r"===?\s*(?P<v>[^,;\s]+)", p.specifier or "")
        variant = _variant_of(m.group("v")) if m else None
        if variant is not None:
            pins.append((p, p.name, variant))
    if not pins:  # most files: no `+cuXXX` pin, and the index reader is not loaded
        return
    from envkit.conda.buildstr import pytorch_variant
    from envkit.lock.pip_index import spec_indexes

    options = [p.raw.strip() or p.text for p in spec.pip if p.kind == "option"]
    indexes = spec_indexes(options)
    served = {pytorch_variant(i) for i in indexes} - {None}
    for p, name, variant in pins:
        if variant in served:
            continue
        names = ", ".join(indexes)
        yield Hit(
            p.line,
            f"{name}{p.specifier} is published only on https://download.pytorch.org/whl/"
            f"{variant}, which the pip section does not name (pip searches {names})",
            (name,),
        )


def _lock_hits(lock: Lock) -> Iterator[Hit]:
    from envkit.conda.buildstr import pytorch_variant
    from envkit.formats.condalock import custom_metadata
    from envkit.lock.pip_index import recorded_indexes

    recorded = recorded_indexes(custom_metadata(lock)) if lock.kind == "conda-lock" else {}
    for p in lock.packages:
        if p.manager != "pip" or p.name.lower() not in PYTORCH_FAMILY:
            continue
        variant = _variant_of(p.version)
        if variant is None:
            continue
        url, got = p.url or "", None
        if re.match(_PYPI_HOSTS, url):
            got = "PyPI"
        elif pytorch_variant(url) not in (None, variant):
            got = f"the {pytorch_variant(url)} index"
        elif recorded.get(p.name) and pytorch_variant(recorded[p.name]) != variant:
            got = recorded[p.name]
        if got:
            yield Hit(
                p.line,
                f"{p.name} {p.version} ({p.platform}) was locked from {got}, not from "
                f"https://download.pytorch.org/whl/{variant}, the only index with that build",
                (p.name,),
            )
