"""torch-pairing: torch, torchvision and torchaudio versions that were not released together."""

from __future__ import annotations

from collections.abc import Iterator

from envkit.checks._build_items import BuildItem, target_items
from envkit.checks._helpers import pytorch_matrix
from envkit.checks.core import Context, Hit, Target, rule
from envkit.conda import families
from envkit.conda.versions import major_minor, mm_text

#: torch minor -> (torchvision minor, torchaudio minor) for releases older than the template matrix
#: (torchvision and torchaudio READMEs); newer releases come from envkit.templates.load_matrix().
OLD_TORCH_COMPANIONS = {
    "1.4": ("0.5", "0.4"),
    "1.5": ("0.6", "0.5"),
    "1.6": ("0.7", "0.6"),
    "1.7": ("0.8", "0.7"),
    "1.8": ("0.9", "0.8"),
    "1.9": ("0.10", "0.9"),
    "1.10": ("0.11", "0.10"),
    "1.11": ("0.12", "0.11"),
}


@rule(
    "torch-pairing",
    order=16,
    severity="error",
    summary="torch, torchvision and torchaudio versions that were not released together.",
    description="""
        torchvision and torchaudio are compiled against one torch release: torchvision 0.16 is
        built for torch 2.1, torchaudio 2.1 for torch 2.1.  Another torch makes them fail at import
        (`undefined symbol`, `operator torchvision::nms does not exist`) or the solver refuses.

        In a lock or a live environment, the package's own record decides when it has one: a
        conda-forge torchvision build that depends on `pytorch >=2.7.1,<2.8.0a0`, or a PyPI wheel
        whose locked dependencies say `torch ==2.7.1`, is checked against that constraint.
        Otherwise (environment files, exports, records without dependencies) the versions are
        compared with the PyTorch compatibility matrix (`templates/pytorch/matrix.json`) and, for
        releases before 1.12, the torchvision/torchaudio READMEs.  Versions are compared only where
        the file pins one (`=0.16`, `==0.16.0`, a locked version).  A companion is paired with the
        torch of its own manager (pip's torchvision with pip's torch) when there is one.
        """,
    example="""
        channels: [pytorch, nvidia, conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pytorch=2.1.0
          - torchvision=0.15.2
        """,
    example_fixed="""
        channels: [pytorch, nvidia, conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pytorch=2.1.0
          - torchvision=0.16.0
        """,
)
def torch_pairing(target: Target, ctx: Context) -> Iterator[Hit]:
    # what several platforms of a lock find alike, the engine reports once
    for on, items in target_items(target):
        yield from _pairs(items, on)


def _pairs(items: list[BuildItem], on: str) -> Iterator[Hit]:
    # A companion goes with the torch of its own manager when there is one: pip's torch shadows
    # conda's pytorch for pip's torchvision, and conda's torchvision is built against conda's pytorch.
    torches: dict[str, tuple[BuildItem, str]] = {}  # manager -> (torch, its version)
    for it in items:
        if it.name in ("pytorch", "torch") and it.version and major_minor(it.version):
            torches.setdefault(it.manager, (it, it.version))
    if not torches:
        return
    for it in items:
        if it.name not in families.COMPANIONS or not it.version or major_minor(it.version) is None:
            continue
        torch, torch_version = torches.get(it.manager) or next(iter(torches.values()))
        recorded = _recorded(it, torch, torch_version)
        if recorded is not None:
            ok, dep = recorded
            if not ok:
                yield Hit(
                    it.line,
                    f"{it.name} {_plain(it.version)} requires {dep} (its own record), "
                    f"but torch is {_plain(torch_version)}{on}",
                    (torch.name, it.name),
                )
            continue
        fits, want = _compatible(torch_version, it.name, it.version)
        if fits is False:
            yield Hit(
                it.line,
                f"{it.name} {_plain(it.version)} does not belong with torch "
                f"{_plain(torch_version)} (made for it: {it.name} {want}.x){on}",
                (torch.name, it.name),
            )


def _recorded(item: BuildItem, torch: BuildItem, torch_version: str) -> tuple[bool, str] | None:
    """(does `torch` satisfy it?, "pytorch >=2.7.1,<2.8.0a0") from the companion's recorded
    dependency on torch, of the same manager; None when there is none or it cannot be read (then
    the table decides).  The record is what the package was built against: it beats any table."""
    if not item.depends or item.manager != torch.manager:
        return None
    from rattler import Version, VersionSpec

    for name, spec in item.depends:
        if name not in families.TORCH_DEPS or (name == "libtorch" and torch.name != "libtorch"):
            continue
        version_part = (spec or "").strip().split()[0] if (spec or "").strip() else ""
        if not version_part:
            continue
        try:
            if item.manager == "pip":
                from packaging.specifiers import SpecifierSet

                ok = SpecifierSet(version_part).contains(torch_version, prereleases=True)
            else:
                ok = VersionSpec(version_part).matches(Version(torch_version))
        except Exception:  # an odd spec says nothing reliable: the table decides
            return None
        return ok, f"{name} {spec.strip()}"
    return None


def _plain(version: str) -> str:
    return version.split("+", 1)[0]


def _compatible(torch: str, package: str, version: str) -> tuple[bool | None, str | None]:
    """(compatible?, the companion minor made for that torch); None when the torch is unknown."""
    tm = major_minor(_plain(torch))
    vm = major_minor(_plain(version))
    if tm is None or vm is None:
        return None, None
    matrix = pytorch_matrix()  # without it, only the built-in table is used
    if matrix is not None:
        ok = matrix.is_compatible(_plain(torch), package, _plain(version))
        if ok is not None:
            want = matrix.companions(_plain(torch))[package]
            return ok, want
    row = OLD_TORCH_COMPANIONS.get(mm_text(tm))
    if row is None:
        return None, None
    want = row[0] if package == "torchvision" else row[1]
    return mm_text(vm) == want, want
