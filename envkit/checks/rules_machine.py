"""Rules that compare a lock with a machine (`envkit check LOCK --machine PROFILE|host|ssh://host`).

They run only when a machine profile is given (`--machine`, `run_checks(machine=...)`): the
engine hands it to every rule in the Context (`ctx.machine`); without one they find nothing.
The comparisons themselves live in envkit.machine.fit (pure, data); these functions word them.
Every format envkit reads works: locks and live environments by their packages for the machine's
platform, environment exports and requirements files by their exact pins (`name=version=build`,
`torch==2.1.0+cu118`, wheel URLs).
"""

from __future__ import annotations

from collections.abc import Iterator

from envkit.checks.core import Context, Hit, Target, rule
from envkit.model import EnvSpec, LockedPackage


def machine_packages(target: Target, profile) -> list[LockedPackage]:
    """The packages of `target` that go onto the machine (`profile`: the MachineProfile the rules
    judge against): its resolved view's for the machine's platform (a lock's, with those of no
    platform; a live environment's; an export's entries), or a loose spec's exact pins as packages."""
    key = ("machine-packages", profile.platform)
    if key in target.cache:
        return target.cache[key]
    view, spec = target.view, target.loose
    out: list[LockedPackage] = []
    if view is not None:
        # an export's entries that pin nothing (a `- pip` added by hand) say nothing the machine
        # could be short of
        out = [p for p in view.packages(profile.platform) if p.version or p.url]
    elif spec is not None:
        out = _spec_packages(spec)
    target.cache[key] = out
    return out


def _spec_packages(spec: EnvSpec) -> list[LockedPackage]:
    from envkit.conda.matchspec import exact_version

    out = []
    for d in spec.conda:
        v = exact_version(d)
        if v:
            out.append(
                LockedPackage(
                    manager="conda", name=d.name, version=v, build=d.build, channel=d.channel, line=d.line
                )
            )
    for p in spec.pip:
        if p.kind == "requirement" and p.name and p.specifier.startswith("==") and "," not in p.specifier:
            out.append(
                LockedPackage(manager="pip", name=p.name, version=p.specifier[2:].strip(), line=p.line)
            )
        elif p.kind == "url" and p.url:
            out.append(
                LockedPackage(
                    manager="pip", name=p.name or p.url.rsplit("/", 1)[-1], version="", url=p.url, line=p.line
                )
            )
    return out


def _hits(issues, profile) -> Iterator[Hit]:
    where = f"the machine ({profile.host})" if profile.host else "the machine"
    for i in issues:
        more = f" (and {len(i.others)} more)" if i.others else ""
        why = f" [{i.detail}]" if i.detail else ""
        subject = f"{i.package}{more}" if i.package else "the lock"
        verb = "is" if i.kind == "arch" else "needs"
        yield Hit(
            i.line,
            f"{subject} {verb} {i.need}{why}; {where} has {i.have}: {i.fix}",
            (i.package.split("=")[0],) if i.package else (),
            i.level,
        )


_EXAMPLE_TEXT = """
    $ envkit machine -o server.json          # on the server (or: --machine ssh://server)
    $ envkit check conda-lock.yml --machine server.json
"""
_EXAMPLE_FIXED = "$ envkit check conda-lock.yml --machine server.json\nno findings (1 file checked)\n"


@rule(
    "machine-platform",
    order=33,
    needs_machine=True,
    severity="error",
    summary="(--machine) The lock has no packages for the machine's platform.",
    description="""
        A lock made on a Mac (osx-arm64) holds nothing for a Linux server (linux-64): `envkit
        create` and `conda-lock install` stop there.  Lock for both platforms
        (`envkit lock --platform linux-64 --platform osx-arm64`).  Runs only with `--machine`.
        """,
    example=_EXAMPLE_TEXT,
    example_fixed="$ envkit lock -f environment.yml --platform linux-64\n",
    applies_to=("lock",),
    example_kind="text",
)
def machine_platform(target: Target, ctx: Context) -> Iterator[Hit]:
    profile = ctx.machine
    lock = target.lock_model
    if profile is None or lock is None:
        return
    from envkit.machine.fit import platform_issue

    issue = platform_issue(lock.platforms, profile)
    if issue is not None:
        yield from _hits([issue], profile)


@rule(
    "machine-virtual-package",
    order=34,
    needs_machine=True,
    severity="error",
    summary="(--machine) A record needs a virtual package (`__glibc >=2.28`, `__cuda`, `__osx`, "
    "`__archspec`, `__cuda_arch`) the machine does not have.",
    description="""
        conda packages state what they need from the system through virtual packages in their
        dependencies: `__glibc >=2.28` (the C library), `__cuda` (an NVIDIA driver; the version is
        the newest CUDA it supports), `__osx >=11.0`, `__archspec 1 x86_64_v3` (a CPU level),
        `__cuda_arch` (CEP 46: the GPUs' compute capability).  A solver refuses such a record on a
        machine that lacks them, and an installer that does not check (an explicit file, a lock
        installed by hand) leaves a package that fails to load.  Compared with the machine's virtual
        packages as py-rattler detects them (`envkit machine` shows them); a generic CPU level
        (`x86_64_v3`) is met by a CPU at or above it.  Runs only with `--machine`.
        """,
    example=_EXAMPLE_TEXT,
    example_fixed=_EXAMPLE_FIXED,
    applies_to=("lock", "live"),
    example_kind="text",
)
def machine_virtual_package(target: Target, ctx: Context) -> Iterator[Hit]:
    profile = _machine(target, ctx)
    if profile is None:
        return
    from envkit.machine.fit import virtual_issues

    yield from _hits(virtual_issues(machine_packages(target, profile), profile), profile)


@rule(
    "machine-cuda-driver",
    order=35,
    needs_machine=True,
    severity="error",
    summary="(--machine) The CUDA runtime the lock carries is newer than the machine's NVIDIA "
    "driver supports.",
    description="""
        The CUDA of an environment comes from its packages (`cuda-version`, `cudatoolkit`,
        `pytorch-cuda`, `cuda-cudart`, `nvidia-*-cu12` wheels, a `torch==X+cu121` wheel, a
        `cuda12.1` build string); the driver has to support it.  An error when the driver does not
        run that CUDA at all; a warning when it runs only through NVIDIA's minor-version
        compatibility (a 12.x runtime on a driver >= 525.60.13 older than the release's own
        minimum: no JIT compilation of newer PTX), and when the machine has no NVIDIA driver (the
        CUDA code falls back to the CPU or fails).  The driver's CUDA comes from NVML or
        nvidia-smi; the minimum drivers from NVIDIA's release notes (envkit/conda/cuda_compat.py).
        On a loose spec, a torch beside a `/whl/cuXYZ` index is that index's build when the index
        is the only one or the pin is exact (`torch==2.5.1`); with PyPI beside it an unpinned
        torch is PyPI's newer release, and an entry whose CUDA only a solve decides (that, an
        unversioned `cudatoolkit`) is an info "not checked".  Runs only with `--machine`.
        """,
    example=_EXAMPLE_TEXT,
    example_fixed=_EXAMPLE_FIXED,
    applies_to=("spec", "lock", "live"),
    example_kind="text",
)
def machine_cuda_driver(target: Target, ctx: Context) -> Iterator[Hit]:
    profile = _machine(target, ctx)
    if profile is None:
        return
    from envkit.machine.fit import cuda_issues

    pkgs = machine_packages(target, profile)
    unknown: list[tuple[int | None, str]] = []
    shown: dict[str, str] = {}
    if target.env_file is not None:  # what the file asks for beyond its exact pins
        from envkit.checks._machine_spec import spec_cuda_requests

        asked = spec_cuda_requests(target.env_file, pkgs)
        pkgs, unknown, shown = pkgs + asked.asked, asked.unknown, asked.shown
    for h in _hits(cuda_issues(pkgs, profile), profile):
        for label, text in shown.items():  # what the spec wrote, not the stand-in package
            if h.message.startswith(label + " "):
                rest = h.message[len(label) :]
                if "index, line" in text:  # the index says it, not a local version the spec wrote
                    rest = rest.replace(" [its +cu local version]", "", 1)
                h = h._replace(message=text + rest)
        yield h
    if unknown and (profile.driver or profile.driver_cuda):
        line, message = unknown[0]
        yield Hit(line, message, severity="info")


@rule(
    "machine-gpu-arch",
    order=36,
    needs_machine=True,
    severity="error",
    summary="(--machine) The torch build has no kernels for the machine's GPU (an sm_120 card with "
    "a cu118 torch).",
    description="""
        Each official PyTorch CUDA build is compiled for a list of GPU architectures
        (TORCH_CUDA_ARCH_LIST): the cu118 wheels stop at sm_90, so a Blackwell card (sm_120,
        RTX 50xx) fails with "no kernel image is available for execution on the device"; the
        cu128 and later builds dropped sm_50/sm_60.  Compared with each GPU's compute capability
        by the CUDA binary compatibility rule (machine code for X.y runs on X.z, z >= y); a GPU
        reached only through the build's PTX is a warning.  The lists, per torch release and CUDA
        variant, are in envkit/data/torch_cuda_arch.json with their sources; conda-forge builds
        are not covered.  Runs only with `--machine`.
        """,
    example=_EXAMPLE_TEXT,
    example_fixed=_EXAMPLE_FIXED,
    applies_to=("spec", "lock", "live"),
    example_kind="text",
)
def machine_gpu_arch(target: Target, ctx: Context) -> Iterator[Hit]:
    profile = _machine(target, ctx)
    if profile is None:
        return
    from envkit.machine.arch import arch_issues

    pkgs = machine_packages(target, profile)
    yield from _hits(arch_issues(pkgs, profile, pypi=not _names_pytorch_index(target)), profile)
    yield from _arch_not_checked(pkgs, profile)


def _names_pytorch_index(target: Target) -> bool:
    """Whether the pip section (or the lock's pip options) names a PyTorch wheel index: then a pip
    `torch==X` is that index's build, not PyPI's."""
    spec = target.loose
    if spec is not None:
        options = [p.text for p in spec.pip if p.kind == "option"]
    else:
        options = list(target.view.pip_options) if target.view is not None else []
    return any("download.pytorch.org" in o for o in options)


def _arch_not_checked(pkgs: list[LockedPackage], profile) -> Iterator[Hit]:
    """A CUDA torch build envkit has no architecture list for (conda-forge's, or a release the
    table lacks) on a machine with GPUs: said, so that silence is never taken for a pass."""
    from envkit.conda.buildstr import decode
    from envkit.machine.arch import arch_row, torch_builds

    gpus = [g for g in profile.gpus if g.compute_capability]
    if not gpus:
        return
    known = {id(p) for p, version, cuda in torch_builds(pkgs) if arch_row(version, cuda) is not None}
    for p in pkgs:
        if p.name.lower() not in ("pytorch", "torch") or id(p) in known or "*" in (p.build or ""):
            continue  # a spec's build glob: which build, only a solve decides
        conda = p.manager == "conda"
        cuda = decode(p.build if conda else None, p.version, p.name.lower() if conda else None).cuda
        if not cuda:
            continue
        forge = "conda-forge" in (p.channel or "") or "conda-forge" in (p.url or "")
        which = "conda-forge's" if forge else "this release's"
        cards = ", ".join(sorted({f"{g.name} (compute capability {g.compute_capability})" for g in gpus}))
        yield Hit(
            p.line,
            f"{p.name} {p.version} is a CUDA {cuda} build whose GPU architectures envkit has no list "
            f"for ({which} builds are not in envkit/data/torch_cuda_arch.json): not checked against "
            f"{cards}; `envkit smoke` on the machine runs a kernel",
            (p.name,),
            severity="info",
        )
        return


@rule(
    "machine-wheel-tag",
    order=37,
    needs_machine=True,
    severity="error",
    summary="(--machine) A pip wheel's platform tag (`manylinux_2_28`, `macosx_14_0`) needs a newer "
    "glibc or macOS than the machine has.",
    description="""
        A wheel tagged `manylinux_2_28_x86_64` needs glibc 2.28 or newer (`manylinux2014` is 2.17);
        one tagged `macosx_14_0_arm64` needs macOS 14.  pip refuses such a locked wheel on an older
        system (or, installed by hand, it fails to load).  Compared with the machine's glibc or
        macOS; the lowest tag of a compressed tag set counts.  Runs only with `--machine`.
        """,
    example=_EXAMPLE_TEXT,
    example_fixed=_EXAMPLE_FIXED,
    applies_to=("spec", "lock", "live"),
    example_kind="text",
)
def machine_wheel_tag(target: Target, ctx: Context) -> Iterator[Hit]:
    profile = _machine(target, ctx)
    if profile is None:
        return
    from envkit.machine.fit import wheel_issues

    yield from _hits(wheel_issues(machine_packages(target, profile), profile), profile)


def _machine(target: Target, ctx: Context):
    """The machine the rules after machine-platform judge `target` against: None without
    --machine (nothing to import or compare), and for a lock for other platforms only
    (machine-platform reports it, the others stay quiet)."""
    profile, lock = ctx.machine, target.lock_model
    if profile is None:
        return None
    from envkit.machine.fit import platform_issue

    if lock is not None and platform_issue(lock.platforms, profile) is not None:
        return None
    return profile
