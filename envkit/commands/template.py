"""`envkit template`: PyTorch+CUDA environment files that install, from the compatibility matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # pragma: no cover
    from envkit.templates import Detection, Matrix

STYLE_CHOICES = ("conda-forge", "pip", "pytorch-channel")


@click.group("template")
def template() -> None:
    """Generate PyTorch+CUDA environments that install.

    The compatibility matrix (torch, torchvision, torchaudio, Python, CUDA variants per style,
    minimum drivers) lives in templates/pytorch/matrix.json; `envkit template list` shows it.
    """


@template.command("pytorch")
@click.option(
    "--torch",
    "torch_version",
    metavar="VERSION",
    help="torch release (2.7) or exact version (2.7.1). Default: the newest.",
)
@click.option(
    "--cuda",
    metavar="VERSION",
    help="CUDA variant (12.6 or cu126). Default: the release's default CUDA in that style.",
)
@click.option("--cpu", is_flag=True, help="CPU-only build.")
@click.option(
    "--detect",
    is_flag=True,
    help="Pick the highest CUDA variant this machine's NVIDIA driver runs "
    "(nvidia-smi, then py-rattler's __cuda); CPU when there is no GPU.",
)
@click.option(
    "--machine",
    "machine",
    metavar="PROFILE|ssh://HOST",
    help="Like --detect, for another machine: a profile file (`envkit machine -o FILE`) "
    "or ssh://HOST; also warns when the variant has no kernels for its GPUs.",
)
@click.option(
    "--python",
    "python_version",
    metavar="VERSION",
    help="Python version (3.12). Default: the newest that torch supports.",
)
@click.option(
    "--style",
    type=click.Choice(STYLE_CHOICES),
    default="conda-forge",
    show_default=True,
    help="Where torch comes from.",
)
@click.option(
    "--with",
    "with_",
    metavar="PKGS",
    multiple=True,
    help="Comma-separated packages to add; torchvision and torchaudio get the matching "
    "version. Default: torchvision,torchaudio. 'none' for torch alone.",
)
@click.option("--name", metavar="NAME", help="Environment name. Default: torch-<ver>-<cuXYZ|cpu>.")
@click.option("-o", "--output", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
def pytorch(
    torch_version: str | None,
    cuda: str | None,
    cpu: bool,
    detect: bool,
    machine: str | None,
    python_version: str | None,
    style: str,
    with_: tuple[str, ...],
    name: str | None,
    output: str | None,
) -> int:
    """Write an environment.yml for PyTorch, CUDA or CPU, that resolves today.

    Refuses combinations that do not exist, listing what does, e.g.
    "torch 2.7 has no CUDA 12.1 build; available: 11.8, 12.6, 12.8".
    """
    from envkit.errors import UsageError
    from envkit.output import emit, warn
    from envkit.templates import PytorchOptions, load_matrix, plan_pytorch, render

    if sum(bool(x) for x in (cuda, cpu, detect)) > 1:
        raise UsageError("--cuda, --cpu and --detect exclude each other")
    if machine and (cuda or cpu or detect):
        raise UsageError("--machine picks the CUDA variant itself: leave out --cuda, --cpu and --detect")
    matrix = load_matrix()
    if detect or machine:
        detected_torch, chosen = _detect(matrix, torch_version, style, python_version, machine)
        torch_version = torch_version or detected_torch
        cuda, cpu = chosen.cuda, chosen.cuda is None
    options = PytorchOptions(
        torch=torch_version,
        cuda=cuda,
        cpu=cpu,
        python=python_version,
        style=style,
        with_=with_ or None,
        name=name,
        output=output,
    )
    plan = plan_pytorch(matrix, options)
    for msg in plan.warnings:
        warn(msg)
    emit(render(plan), output)
    if output and output != "-":
        click.echo(f"envkit: wrote {output}", err=True)
    return 0


def _detect(
    matrix: Matrix, torch_version: str | None, style: str, python_version: str | None, machine: str | None
) -> tuple[str, Detection]:
    """(torch, CUDA variant) that `--detect` (this machine) or `--machine` (a profile) picks, its
    notes and warnings printed."""
    from dataclasses import replace

    from envkit.errors import UsageError
    from envkit.output import warn
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
    if machine:
        from envkit.machine import resolve_machine
        from envkit.machine.fit import gpu_info, variant_arch_warnings

        profile = resolve_machine(machine)
        torch, chosen = choose_detected(matrix, torch, style, gpu_info(profile, machine), fits)
        if chosen.cuda:
            arch = variant_arch_warnings(torch, chosen.cuda, style, profile)
            chosen = replace(chosen, warnings=chosen.warnings + arch)
    else:
        torch, chosen = choose_detected(matrix, torch, style, detect_gpu(matrix), fits)
    for msg in chosen.messages:
        click.echo(f"envkit: {msg}", err=True)
    for msg in chosen.warnings:
        warn(msg)
    return torch, chosen


@template.command("list")
def list_() -> int:
    """Show the styles, torch releases, companions and CUDA variants."""
    from envkit.templates import load_matrix, render_list

    click.echo(render_list(load_matrix()), nl=False)
    return 0
