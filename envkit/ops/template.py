"""The template operation: a PyTorch+CUDA (or CPU) environment file from the compatibility matrix,
the CUDA variant picked for this machine (`detect`) or another one (`machine`) when asked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from envkit.errors import Remedy, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from envkit.machine.profile import MachineProfile
    from envkit.templates import Detection, Matrix, TemplatePlan


@dataclass(frozen=True, slots=True, kw_only=True)
class TemplateResult:
    """The environment file `text` of the resolved `plan`; `messages` say what detection picked
    and why, `warnings` what will not work as well as asked (a GPU without kernels)."""

    text: str
    plan: TemplatePlan
    messages: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def pytorch_template(
    *,
    torch: str | None = None,
    cuda: str | None = None,
    cpu: bool = False,
    detect: bool = False,
    machine: MachineProfile | str | None = None,
    python: str | None = None,
    style: str = "conda-forge",
    with_: Sequence[str] | None = None,
    name: str | None = None,
    output: str | None = None,
) -> TemplateResult:
    """The environment.yml for torch `torch` (None: the newest) with CUDA `cuda`, or `cpu`, or the
    variant this machine's driver runs (`detect`) or `machine`'s: a MachineProfile, or the text
    envkit.machine.resolve_machine reads (a profile file, `host`, ssh://HOST).  `output` is the
    path named in the file's header.  Raises UsageError for a combination that does not exist,
    listing what does."""
    from envkit.templates import PytorchOptions, load_matrix, plan_pytorch, render

    _refuse_several_variants(cuda, cpu, detect, machine)
    matrix = load_matrix()
    messages: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    if detect or machine:
        label = machine if isinstance(machine, str) else "the machine profile"
        if isinstance(machine, str):
            from envkit.machine import resolve_machine

            machine = resolve_machine(machine)
        detected, chosen = _detect(matrix, torch, style, python, machine, label)
        torch = torch or detected
        cuda, cpu = chosen.cuda, chosen.cuda is None
        messages, warnings = chosen.messages, chosen.warnings
    options = PytorchOptions(
        torch=torch,
        cuda=cuda,
        cpu=cpu,
        python=python,
        style=style,
        with_=tuple(with_) if with_ else None,
        name=name,
        output=output,
    )
    plan = plan_pytorch(matrix, options)
    return TemplateResult(
        text=render(plan), plan=plan, messages=messages, warnings=warnings + tuple(plan.warnings)
    )


def _refuse_several_variants(
    cuda: str | None, cpu: bool, detect: bool, machine: MachineProfile | str | None
) -> None:
    """UsageError when more than one way to pick the CUDA variant is given."""
    variants = (
        Remedy(option="cuda", metavar="VERSION"),
        Remedy(option="cpu", value=True),
        Remedy(option="detect", value=True),
    )
    if sum(bool(x) for x in (cuda, cpu, detect)) > 1:
        raise UsageError(
            "a CUDA version, CPU only and detection exclude each other",
            hint="pass one of {}, {} or {}",
            remedy=variants,
        )
    if machine and (cuda or cpu or detect):
        raise UsageError(
            "a machine profile picks the CUDA variant itself", hint="leave out {}, {} and {}", remedy=variants
        )


def _detect(
    matrix: Matrix,
    torch_version: str | None,
    style: str,
    python_version: str | None,
    machine: MachineProfile | None,
    label: str,
) -> tuple[str, Detection]:
    """(torch, CUDA variant) that detection (this machine) or `machine` (a profile) picks."""
    from envkit.templates import PytorchOptions, choose_detected, detect_gpu, plan_pytorch

    def plan(torch: str | None) -> PytorchOptions:
        return PytorchOptions(torch=torch, cpu=True, style=style, python=python_version)

    def fits(torch: str) -> bool:
        try:
            plan_pytorch(matrix, plan(torch))
        except UsageError:
            return False  # no build for the Python asked for: not a candidate
        return True

    # The torch version given is resolved first, so that the variants come from its row.
    torch = plan_pytorch(matrix, plan(torch_version)).torch if torch_version else None
    if machine is not None:
        from envkit.machine.arch import gpu_info, variant_arch_warnings

        torch, chosen = choose_detected(matrix, torch, style, gpu_info(machine, label), fits)
        if chosen.cuda:
            arch = variant_arch_warnings(torch, chosen.cuda, style, machine)
            chosen = replace(chosen, warnings=chosen.warnings + arch)
    else:
        torch, chosen = choose_detected(matrix, torch, style, detect_gpu(), fits)
    return torch, chosen
