"""Rules about what a lock's platforms declare: a platform solved for a CUDA machine (`__cuda`)
that locks only CPU builds of torch."""

from __future__ import annotations

import re
from collections.abc import Iterator

from envkit.checks.core import Context, Hit, Target, rule
from envkit.model import LockedPackage

#: the torch packages whose build says CPU or CUDA (conda-forge `cpu_mkl_...` / `cuda126_...`,
#: the pytorch channel's `py3.11_cpu_0`, pip's `+cpu` local version)
_TORCH = frozenset({"pytorch", "libtorch", "torch"})
_CPU_BUILD = re.compile(r"(?:^|_)cpu(?:_|$)")


@rule(
    "cuda-unused",
    order=14,
    severity="warning",
    summary="A lock platform declares a CUDA driver (`__cuda`) but locks only CPU builds of torch.",
    description="""
        A pixi.lock (version 7) names the virtual packages each platform was solved for: a
        platform declared with `cuda = "12"` in pixi.toml is solved as a machine with a CUDA 12
        driver (`__cuda=12`).  When its environment still locks a CPU build of torch
        (conda-forge's `cpu_mkl_...` / `cpu_generic_...`, the pytorch channel's `..._cpu_0`, pip's
        `+cpu`) and no CUDA build, the GPU that platform exists for goes unused: `torch.cuda` is
        unavailable there, and a task that asks for the GPU fails.

        Fix: ask for a CUDA build on that platform (`pytorch = { version = "*", build = "cuda*" }`
        in the platform's target table), then lock again.
        """,
    example="""
        # pixi.lock: platform p2 (linux-64) declares __cuda=12 and locks pytorch cpu_mkl_...
        pixi.lock:369: warning cuda-unused: default/p2 (linux-64, __cuda=12) locks a CPU build of """
    """torch: pytorch 2.10.0 cpu_mkl_py314_hf472749_104
        """,
    example_fixed="""
        # the platform's target table asks for build = "cuda*"
        no findings (1 file checked)
        """,
    applies_to=("lock",),
    example_file="pixi.lock",
    example_kind="text",
)
def cuda_unused(target: Target, ctx: Context) -> Iterator[Hit]:
    lock = target.lock_model
    if lock is None or lock.kind != "pixi":
        return
    declared = declared_cuda(target)
    for platform in lock.platforms:
        cuda = declared.get(platform)
        if cuda is None:
            continue
        torch = [p for p in lock.for_platform(platform) if p.name in _TORCH]
        cpu = [p for p in torch if _is_cpu(p)]
        if not cpu or len(cpu) < len(torch):
            continue
        subdir, version = cuda
        first = next((p for p in cpu if p.name in ("pytorch", "torch")), cpu[0])
        scope = "/".join(x for x in (lock.environment, platform) if x)
        yield Hit(
            first.line,
            f"{scope} ({subdir}, __cuda={version}) locks a CPU build of torch: "
            f"{first.name} {first.version}{' ' + first.build if first.build else ''}",
            (first.name,),
        )


def _is_cpu(p: LockedPackage) -> bool:
    if p.manager == "pip":
        return p.version.endswith("+cpu")
    return bool(p.build and _CPU_BUILD.search(p.build))


def declared_cuda(target: Target) -> dict[str, tuple[str, str]]:
    """A version 7 pixi.lock's platforms that declare `__cuda`: name -> (subdir, CUDA version),
    read from the top-level `platforms:` list (it precedes `environments:`, so only that head of
    the file is parsed)."""
    from envkit.errors import ParseError
    from envkit.formats._fastyaml import load_yaml

    text = target.text or ""
    end = text.find("\nenvironments:")
    out: dict[str, tuple[str, str]] = {}
    # the head alone is searched: each environment of the file is a target, and the text is large
    if end < 0 or "__cuda" not in text[:end]:
        return out
    try:
        head = load_yaml(text[: end + 1], filename=target.path)
    except ParseError:
        head = None
    for p in head.get("platforms") or () if isinstance(head, dict) else ():
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            continue
        for vp in p.get("virtual-packages") or ():
            m = re.match(r"^__cuda=([^=\s]+)", str(vp))
            if m:
                out[p["name"]] = (str(p.get("subdir") or p["name"]), m.group(1))
    return out
