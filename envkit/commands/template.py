"""`envkit template`: PyTorch+CUDA environment files that install, from the compatibility matrix."""

from __future__ import annotations

import click

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
    from envkit.io import emit
    from envkit.ops.template import pytorch_template
    from envkit.output import warn

    result = pytorch_template(
        torch=torch_version,
        cuda=cuda,
        cpu=cpu,
        detect=detect,
        machine=machine,
        python=python_version,
        style=style,
        with_=with_ or None,
        name=name,
        output=output,
    )
    for msg in result.messages:
        click.echo(f"envkit: {msg}", err=True)
    for msg in result.warnings:
        warn(msg)
    emit(result.text, output)
    if output and output != "-":
        click.echo(f"envkit: wrote {output}", err=True)
    return 0


@template.command("list")
def list_() -> int:
    """Show the styles, torch releases, companions and CUDA variants."""
    from envkit.templates import load_matrix, render_list

    click.echo(render_list(load_matrix()), nl=False)
    return 0
