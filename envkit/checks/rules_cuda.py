"""cuda-mismatch: CUDA pins, CUDA builds and CPU builds of PyTorch that contradict each other."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import partial

from envkit.checks._build_items import BuildItem, target_items
from envkit.checks._helpers import pytorch_matrix
from envkit.checks.core import Context, Hit, Target, rule
from envkit.conda import families
from envkit.conda.versions import major_minor, mm_text

#: the conda packages whose CPU build selects a CPU PyTorch (`cpuonly` does by being there)
_CPU_SELECTORS = (*families.TORCH_BUILDS, "cpuonly", "pytorch-mutex")

#: a pin's (item, CUDA version text): "12.1", or "12" for a major-only pin
_Pin = tuple[BuildItem, str]


@rule(
    "cuda-mismatch",
    order=13,
    severity="error",
    summary="CPU PyTorch with CUDA pins, CUDA pins that contradict each other, a CUDA build newer "
    "than the pinned CUDA, or pip `+cuXXX` against conda's CUDA.",
    description="""
        The CUDA pieces of an environment have to agree, and the solver does not always stop a
        disagreement (pip packages and hand-edited exports bypass it).  Reported:

        - a CPU build of PyTorch (`pytorch=*=cpu_*`, `cpuonly`, pip `torch==X+cpu`) together with
          CUDA pins (`cuda-version`, `pytorch-cuda`, `cudatoolkit`): the GPU will not be used;
        - CUDA pins that contradict each other: `cuda-version`, `cudatoolkit` and `pytorch-cuda`
          of different major versions, or naming different major.minor versions
          (`pytorch-cuda=12.1` with `cudatoolkit=11.8`): `cuda-version` constrains `cudatoolkit`
          to its own major.minor, and `pytorch-cuda` pulls the nvidia channel's CUDA runtime of its
          version beside the other one;
        - a conda build (or a spec's build glob, `pytorch=2.5.1=cuda126*`) for a CUDA newer than
          (or of another major version than) the pinned `cuda-version`/`cudatoolkit`, or a pytorch
          channel build (`py3.9_cuda11.7_cudnn8.5.0_0`) different from the pinned `pytorch-cuda`
          (those builds require exactly that one);
        - (warning) `pytorch-cuda` beside a conda-forge pytorch build (`cuda112py39h..._200`,
          `pytorch=*=cuda*`): it is the legacy pytorch channel's selector, which conda-forge's
          builds ignore (they take their CUDA from `cuda-version`); it only adds the nvidia
          channel's CUDA packages;
        - pip `torch==2.1.0+cu121` (or a `download.pytorch.org/whl/cu121` index, or in a lock a
          PyPI torch wheel whose recorded `nvidia-cuda-runtime-cu12` dependency says CUDA 12.1)
          with a conda CUDA pin of another major version or an older one (`cudatoolkit=11.8`):
          extensions compiled against conda's CUDA then fail torch's version check;
        - `pytorch-cuda` (the legacy pytorch channel's CUDA selector) with a pytorch that channel
          never built for that CUDA: any pytorch after 2.5, the channel's last release
          (pytorch/pytorch#138506), or e.g. `pytorch=2.1` with `pytorch-cuda=12.4` (2.1 was built
          for 11.8 and 12.1); conda then fails to solve or takes a build that ignores the selector;
        - CUDA toolkit packages (`cuda-cccl`, `cuda-nvcc`, `cuda-libraries`, conda-forge's
          `cudatoolkit-dev`, ...) of another CUDA than the pins agree on (or than most of them):
          an unbounded dependency lets the solver take a newer CUDA's headers and libraries;
          a compiler toolkit of another major than pip's torch cannot build its extensions;
        - (warning) `pytorch-cuda` with no conda pytorch, beside a pip torch built for CUDA:
          the wheel brings its own CUDA runtime, so the environment holds two;
        - `torch`, `torchvision` and `torchaudio` versions that were not released together (from
          the PyTorch compatibility matrix in `templates/pytorch/matrix.json`, and the
          torchvision/torchaudio READMEs for releases before 1.12).

        Versions are compared only where the file pins one (`=2.1`, `==2.1.0`, a locked version).
        """,
    example="""
        channels: [pytorch, nvidia, conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pytorch=2.1.0
          - cpuonly
          - pytorch-cuda=12.1
        """,
    example_fixed="""
        channels: [pytorch, nvidia, conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pytorch=2.1.0
          - pytorch-cuda=12.1
        """,
)
def cuda_mismatch(target: Target, ctx: Context) -> Iterator[Hit]:
    view, spec = target.view, target.loose
    if view is not None:
        options = list(view.pip_options)
    elif spec is not None:
        options = [p.raw or p.text for p in spec.pip if p.kind == "option"]
    else:
        return
    # what several platforms of a lock find alike, the engine reports once
    for on, items in target_items(target):
        yield from _cuda_checks(items, options, on)


def _cuda_checks(items: list[BuildItem], pip_options: list[str], on: str) -> Iterator[Hit]:
    pins = _cuda_pins(items)
    # the toolkit's own packages (`cuda-cccl`, `cuda-nvcc`, `cudatoolkit-dev`) say which CUDA they
    # are too: one of another CUDA is a second stack beside the pinned one
    parts = _cuda_pins(items, families.CUDA_COMPONENTS)
    yield from _pin_conflicts(pins, on)
    yield from _components_of_another_cuda(pins, parts, on)
    yield from _cpu_torch_with_pins(items, pins, on)
    yield from _conda_builds_against_pins(items, pins, on)
    compilers = [p for p in parts if p[0].name in families.CUDA_COMPILERS]
    yield from _pip_wheels_against_pins(items, pins + compilers, pip_options, on)
    yield from _runtime_twice(items, on)
    yield from _pytorch_channel(items, on)


def _components_of_another_cuda(pins: list[_Pin], parts: list[_Pin], on: str) -> Iterator[Hit]:
    """CUDA toolkit packages of another major.minor than the pins agree on (or, without pins, than
    most of them): an unbounded dependency (the nvidia channel's `cuda-libraries-dev 11.8.0` asks
    for `cuda-cccl >=11.8.89`) lets the solver take a newer CUDA's headers and libraries.  One
    finding per other version, at its first package; contradicting pins are _pin_conflicts'."""
    versions = {pv for _, pv in pins}
    if len(versions) > 1 or not parts:
        return
    if versions:
        (base,) = versions
        beside = ", ".join(p.label for p, _ in pins)
    else:
        base = Counter(pv for _, pv in parts).most_common(1)[0][0]  # the first of the most frequent
        beside = ", ".join(p.label for p, pv in parts if pv == base)
    other: dict[str, list[BuildItem]] = {}
    for it, pv in parts:
        if _contradict(pv, base):
            other.setdefault(pv, []).append(it)
    for pv, its in other.items():
        names = " and ".join(it.label for it in its)
        yield Hit(
            its[0].line,
            f"{names} {'is' if len(its) == 1 else 'are'} CUDA {pv}'s, beside CUDA {base} ({beside}): "
            f"two CUDA versions' headers and libraries in one environment{on}",
            tuple(it.name for it in its),
        )


def _runtime_twice(items: list[BuildItem], on: str) -> Iterator[Hit]:
    """`pytorch-cuda` (which pulls the nvidia channel's CUDA runtime for the pytorch channel's
    pytorch) with no conda pytorch, beside a pip torch built for CUDA: the wheel brings its own
    runtime (nvidia-* wheels), so the environment holds two."""
    selector = next((it for it in items if it.manager == "conda" and it.name == "pytorch-cuda"), None)
    if selector is None or any(it.manager == "conda" and it.name in families.TORCH_BUILDS for it in items):
        return
    torch = next((it for it in items if it.manager == "pip" and it.name == "torch"), None)
    if torch is None:
        return
    cuda, _major, cpu = _cuda_of(torch)
    if cpu or not (cuda or torch.runtime):
        return
    yield Hit(
        selector.line,
        f"{selector.label} installs the nvidia channel's CUDA runtime for conda's pytorch, but torch "
        f"comes from pip ({torch.label}), whose wheel brings its own: the CUDA runtime is installed "
        f"twice; drop {selector.name}{on}",
        (selector.name, torch.name),
        severity="warning",
    )


def _cuda_pins(items: list[BuildItem], names: tuple[str, ...] = families.CUDA_PINS) -> list[_Pin]:
    """The conda CUDA pins (`cuda-version`, `pytorch-cuda`, `cudatoolkit`; or the packages
    `names`) that name a version."""
    pins = []
    for it in items:
        if it.manager == "conda" and it.name in names and it.version:
            mm = major_minor(it.version)
            if mm:
                pins.append((it, mm_text(mm)))
            elif re.fullmatch(r"\d+", it.version):  # `cuda-version=12`: the major version only
                pins.append((it, it.version))
    return pins


def _cpu_torch_with_pins(items: list[BuildItem], pins: list[_Pin], on: str) -> Iterator[Hit]:
    """A conda CPU build of pytorch (or `cpuonly`) beside CUDA pins."""
    if not pins:
        return
    pin_text = ", ".join(p.label for p, _ in pins)
    for it in items:
        if it.manager != "conda" or it.name not in _CPU_SELECTORS:
            continue
        _cuda, _major, cpu = _cuda_of(it)
        if cpu:
            yield Hit(
                it.line,
                f"{it.label} selects a CPU build of PyTorch, but the environment pins CUDA ({pin_text}){on}",
                (it.name,) + tuple(p.name for p, _ in pins),
            )


def _conda_builds_against_pins(items: list[BuildItem], pins: list[_Pin], on: str) -> Iterator[Hit]:
    """Conda builds (or a spec's build globs) for another CUDA than the pins."""
    groups = _pin_groups(pins)
    for it in items:
        if it.manager != "conda" or not it.build or it.name in families.CUDA_PINS:
            continue
        if "cu" not in it.build.lower():
            continue
        cuda, major_only, _cpu = _cuda_of(it)
        if not cuda:
            continue

        what = f"CUDA {cuda}" + (".x" if major_only else "")
        # a spec's build glob (`pytorch=2.5.1=cuda126*`) asks for such a build
        built = f"selects a build for {what}" if "*" in it.build else f"is built for {what}"
        bad = partial(_build_contradicts, it, cuda, major_only)
        for pin, pv in _bad_pins(pins, groups, bad):
            yield Hit(it.line, f"{it.label} {built}, but {pin.label} pins CUDA {pv}{on}", (it.name, pin.name))


def _build_contradicts(it: BuildItem, cuda: str, major_only: bool, name: str, pv: str) -> bool:
    """Whether the conda build `it` (for CUDA `cuda`) contradicts a pin `name` of CUDA `pv`."""
    torch = it.name == "pytorch" and (_conda_forge_torch(it) or _after_pytorch_channel(it.version))
    if name == "pytorch-cuda" and torch:
        return False  # said by _pytorch_channel: the selector cannot apply at all
    exact = name == "pytorch-cuda" and not major_only and "." in pv and it.name in families.TORCH_BUILDS
    return cuda != pv if exact else _newer_or_other_major(cuda, major_only, pv)


def _pin_groups(pins: list[_Pin]) -> dict[tuple[str, str], list[int]]:
    """(pin name, CUDA version) -> the indexes of the pins that say it: what a build or wheel is
    judged against, a few however many pins (100,000 CUDA builds against 100,000 equal pins
    stay linear)."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (pin, pv) in enumerate(pins):
        groups.setdefault((pin.name, pv), []).append(i)
    return groups


def _bad_pins(pins: list[_Pin], groups: dict[tuple[str, str], list[int]], bad) -> list[_Pin]:
    """The pins, in their order, whose (name, version) `bad` holds for: judged once per group."""
    import heapq

    return [pins[i] for i in heapq.merge(*(idx for (name, pv), idx in groups.items() if bad(name, pv)))]


def _pip_wheels_against_pins(
    items: list[BuildItem], pins: list[_Pin], pip_options: list[str], on: str
) -> Iterator[Hit]:
    """pip torch wheels (a `+cuXXX` local version, a locked CUDA runtime, a CUDA index) for another
    CUDA than conda's pins, and a pip CPU torch beside CUDA pins."""
    index = _index_cuda(pip_options)
    groups = _pin_groups(pins)
    for it in items:
        if it.manager != "pip" or it.name not in ("torch", "torchvision", "torchaudio"):
            continue
        cuda, cpu, source = _wheel_cuda(it, index)
        if cpu and it.name == "torch" and pins:
            yield Hit(
                it.line,
                f"{source} is a CPU build of PyTorch, but the environment pins CUDA "
                f"({', '.join(p.label for p, _ in pins)}){on}",
                (it.name,) + tuple(p.name for p, _ in pins),
            )
            continue
        if not cuda:
            continue
        bad = _bad_pins(pins, groups, lambda _name, pv, cuda=cuda: _newer_or_other_major(cuda, False, pv))
        if len(bad) == 1:
            pin, pv = bad[0]
            yield Hit(
                it.line,
                f"pip {source} is built for CUDA {cuda}, but conda's {pin.label} provides CUDA {pv}{on}",
                (it.name, pin.name),
            )
        elif bad:  # one finding for the wheel, naming every pin it disagrees with
            versions = " and ".join(dict.fromkeys(pv for _, pv in bad))
            yield Hit(
                it.line,
                f"pip {source} is built for CUDA {cuda}, but conda's CUDA pins "
                f"provide CUDA {versions} ({', '.join(p.label for p, _ in bad)}){on}",
                (it.name,) + tuple(p.name for p, _ in bad),
            )


def _wheel_cuda(item: BuildItem, index: tuple[str | None, str | None]) -> tuple[str | None, bool, str]:
    """(CUDA version, CPU build?, how to show where that came from) of a pip torch wheel: its local
    version, else its locked CUDA runtime, else the pip index it comes from."""
    cuda, _major, cpu = _cuda_of(item)
    source = item.label
    index_cuda, index_text = index
    if not cuda and not cpu and item.runtime:
        cuda, why = item.runtime
        source = f"{item.label} ({why})"
    elif not cuda and not cpu and index_cuda:
        if index_cuda == "cpu":
            cpu = True
        else:
            cuda = index_cuda
        source = f"{item.label} from {index_text}"
    return cuda, cpu, source


def _pin_conflicts(pins: list[tuple[BuildItem, str]], on: str) -> Iterator[Hit]:
    """CUDA pins of different names that contradict each other, reported at the later one: another
    major, or another major.minor where both name one.  conda-forge's `cuda-version` constrains
    `cudatoolkit` to its own major.minor (no solve), and `pytorch-cuda` pulls the nvidia channel's
    CUDA runtime of its version beside the other one (two CUDA runtimes in one environment)."""
    # the (name, version) pairs seen so far, few however many pins: a pin that contradicts none of
    # them is passed without a look at every earlier pin (100,000 equal pins stay linear)
    seen: dict[tuple[str, str], None] = {}
    for j, (b, bv) in enumerate(pins):
        bad = []
        if any(name != b.name and _contradict(av, bv) for name, av in seen):
            bad = [(a, av) for a, av in pins[:j] if a.name != b.name and _contradict(av, bv)]
        seen[(b.name, bv)] = None
        if bad:
            others = " and ".join(f"{a.label} pins CUDA {av}" for a, av in bad)
            yield Hit(
                b.line,
                f"{b.label} pins CUDA {bv}, but {others}: the CUDA pins contradict each "
                f"other (conda fails to solve, or installs two CUDA runtimes){on}",
                tuple(a.name for a, _ in bad) + (b.name,),
            )


def _contradict(av: str, bv: str) -> bool:
    """Whether two CUDA pins' versions contradict: another major, or both name a major.minor and
    they differ."""
    ap, bp = av.split("."), bv.split(".")
    return ap[0] != bp[0] or (len(ap) > 1 and len(bp) > 1 and av != bv)


def _conda_forge_torch(item: BuildItem) -> bool:
    """Whether a conda pytorch is (or a spec's build glob asks for) a conda-forge build:
    `cuda112py39h..._200`, `cuda126_mkl_py312_...`, `cuda*`.  The pytorch channel's builds start
    with the Python tag (`py3.9_cuda11.7_cudnn8.5.0_0`)."""
    return (
        item.manager == "conda"
        and item.name == "pytorch"
        and item.build is not None
        and item.build.lower().startswith("cuda")
    )


def _after_pytorch_channel(version: str | None) -> bool:
    """Whether a (non-nightly) pytorch `version` is newer than the pytorch channel's last release."""
    mm = major_minor(version)
    if mm is None or "dev" in (version or ""):
        return False
    matrix = pytorch_matrix()
    last = major_minor(matrix.pytorch_channel_last) if matrix is not None else None
    return last is not None and mm > last


def _pytorch_channel(items: list[BuildItem], on: str) -> Iterator[Hit]:
    """`pytorch-cuda` is the legacy pytorch channel's CUDA selector: it only means something with a
    pytorch that channel published for that CUDA (the template matrix's pytorch_channel rows).  The
    channel stopped at 2.5 (pytorch/pytorch#138506): with `pytorch=2.7` the solver fails, or takes
    another channel's pytorch, which ignores pytorch-cuda."""
    selector = next((it for it in items if it.manager == "conda" and it.name == "pytorch-cuda"), None)
    if selector is None:
        return
    forge = next((it for it in items if _conda_forge_torch(it)), None)
    if forge is not None:
        # pytorch-cuda is a metapackage of the pytorch channel that its own pytorch builds
        # depend on; conda-forge's builds do not, and take their CUDA from cuda-version
        cuda = f"CUDA {selector.version} " if selector.version else "CUDA "
        yield Hit(
            forge.line,
            f"{forge.label} is a conda-forge build, which {selector.label} does not "
            f"select or constrain (pytorch-cuda is the legacy pytorch channel's CUDA "
            f"selector): it only adds the nvidia channel's {cuda}packages; drop it "
            f"and pin the CUDA with cuda-version{on}",
            (forge.name, selector.name),
            severity="warning",
        )
        return
    # the first conda pytorch that pins a major.minor version
    torch = next(
        (it for it in items if it.manager == "conda" and it.name == "pytorch" and major_minor(it.version)),
        None,
    )
    torch_mm = major_minor(torch.version) if torch is not None else None
    if torch is None or torch_mm is None or "dev" in (torch.version or ""):  # pytorch-nightly kept going
        return
    matrix = pytorch_matrix()
    if matrix is None:
        return
    minor = mm_text(torch_mm)
    last = matrix.pytorch_channel_last
    if _after_pytorch_channel(torch.version):
        yield Hit(
            torch.line,
            f"{torch.label} is newer than the pytorch channel's last release ({last}, "
            f"pytorch/pytorch#138506), so {selector.label} selects nothing: conda "
            f"fails to solve or installs another channel's pytorch, which ignores "
            f"pytorch-cuda{on}",
            (torch.name, selector.name),
        )
        return
    row = next((r for r in matrix.pytorch_channel if r.torch == minor), None)
    selected = major_minor(selector.version) if selector.version else None
    if row is None or selected is None or (row.cuda_package or "pytorch-cuda") != "pytorch-cuda":
        return
    if mm_text(selected) not in row.cuda:
        yield Hit(
            selector.line,
            f"the pytorch channel has no pytorch {minor} build for CUDA {mm_text(selected)} "
            f"({selector.label}); it offers CUDA {', '.join(row.cuda)}{on}",
            (torch.name, selector.name),
        )


def _cuda_of(item: BuildItem) -> tuple[str | None, bool, bool]:
    """(CUDA version, major-only?, CPU build?) of an item's build string or pip local version."""
    from envkit.conda.buildstr import decode

    if item.manager == "pip":
        info = decode(None, item.version, None)
        return info.cuda, False, info.cpu
    if not item.build:
        return None, False, item.name == "cpuonly"
    info = decode(item.build, item.version, item.name)
    cpu = info.cpu and item.name in _CPU_SELECTORS
    # `cudnn=8.9.2.26=cuda11_0`, RAPIDS `cuda11_py39_...`: the build names the major version only
    return info.cuda, info.cuda is not None and "." not in info.cuda, cpu


def _index_cuda(texts: Iterable[str]) -> tuple[str | None, str | None]:
    """(CUDA version, the option text) of a download.pytorch.org/whl/cuXYZ index, or (None, None);
    ("cpu", text) for the CPU index."""
    from envkit.conda.buildstr import option_variant, variant_cuda

    for t in texts:
        variant = option_variant(t) or ""
        cuda = "cpu" if variant == "cpu" else variant_cuda(variant)
        if cuda:
            return cuda, t
    return None, None


def _newer_or_other_major(build: str, major_only: bool, pin: str) -> bool:
    b, p = build.split("."), pin.split(".")
    if b[0] != p[0]:
        return True
    if major_only or len(p) == 1:
        return False
    bm, pm = major_minor(build), major_minor(pin)
    return bm is not None and pm is not None and bm > pm
