"""`template list` and docs/compatibility.md from the matrix."""

from __future__ import annotations

from envkit.templates.matrix import DEFAULT_STYLE, STYLE_HELP, STYLES, ChannelRow, Matrix


def _cuda_cell(variants: tuple[str, ...], default: str, experimental: tuple[str, ...] = ()) -> str:
    return ", ".join(v + ("*" if v == default else "") + ("~" if v in experimental else "") for v in variants)


def _py_range(pythons: tuple[str, ...]) -> str:
    return f"{pythons[0]}-{pythons[-1]}" if len(pythons) > 1 else pythons[0]


def _channel_cell(row: ChannelRow) -> str:
    cell = _cuda_cell(row.cuda, row.default_cuda)
    return f"{cell} (py {_py_range(row.python)})" if row.python else cell


def list_rows(matrix: Matrix) -> list[tuple[str, ...]]:
    """Rows of `template list`, newest torch first: torch, torchvision, torchaudio, Python,
    then the CUDA variants of pip, conda-forge and pytorch-channel ('-' where a style lacks it)."""
    cf = {r.torch: r for r in matrix.conda_forge}
    pc = {r.torch: r for r in matrix.pytorch_channel}
    rows: list[tuple[str, ...]] = []
    for r in reversed(matrix.releases):
        rows.append(
            (
                r.torch,
                r.torchvision,
                r.torchaudio,
                _py_range(r.python),
                _cuda_cell(r.cuda, r.default_cuda, r.experimental_cuda),
                _channel_cell(cf[r.torch]) if r.torch in cf else "-",
                _cuda_cell(pc[r.torch].cuda, pc[r.torch].default_cuda) if r.torch in pc else "-",
            )
        )
    return rows


def render_list(matrix: Matrix) -> str:
    """The text of `envkit template list`: the styles, then one line per torch release."""
    lines = ["Styles (--style):"]
    width = max(len(s) for s in STYLES)
    for s in STYLES:
        default = " [default]" if s == DEFAULT_STYLE else ""
        lines.append(f"  {s:<{width}}  {STYLE_HELP[s]}{default}")
    lines.append("")
    header = (
        "torch",
        "torchvision",
        "torchaudio",
        "python",
        "pip CUDA",
        "conda-forge CUDA",
        "pytorch-channel CUDA",
    )
    rows = [header] + list_rows(matrix)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    newest = matrix.newest(DEFAULT_STYLE)  # what `template pytorch` picks with no option
    lines += [
        "",
        "* default CUDA of that torch in that style; ~ experimental in PyTorch's release notes.",
        "Every style also has a CPU variant (--cpu).",
        f"Defaults: torch {newest}, Python {matrix.pythons(newest)[-1]}, "
        f"CUDA {matrix.default_cuda(newest, DEFAULT_STYLE)}, style {DEFAULT_STYLE}.",
    ]
    return "\n".join(lines) + "\n"


def _refs(keys: tuple[str, ...]) -> str:
    return ", ".join(f"[{k}]" for k in keys)


def _legacy_and_drivers(matrix: Matrix) -> list[str]:
    """docs/compatibility.md from the legacy pytorch channel's table on: drivers, then sources."""
    out: list[str] = [
        "",
        "## Legacy `pytorch` channel (`--style pytorch-channel`)",
        "",
        f"Torch {matrix.pytorch_channel_last} was the last release published there "
        "(pytorch/pytorch#138506); envkit refuses this style for newer torch. Channels "
        "`pytorch`, `nvidia` (CUDA only), `defaults`; CUDA is chosen by the metapackage below, "
        "CPU by `cpuonly`.",
        "",
        "| torch | CUDA | metapackage | sources |",
        "|---|---|---|---|",
    ]
    for row in reversed(matrix.pytorch_channel):
        out.append(
            f"| {row.torch} | {_cuda_cell(row.cuda, row.default_cuda)} | "
            f"`{row.cuda_package or 'pytorch-cuda'}` | {_refs(row.sources)} |"
        )
    for spec, why, keys in matrix.pytorch_channel_pins:
        out += ["", f"Every pytorch-channel template pins `{spec}`: {why} {_refs(keys)}."]
    out += [
        "",
        "## Minimum NVIDIA driver (Linux)",
        "",
        "Used by `--detect` and printed in each CUDA template's header.",
        "",
        "| CUDA | min driver | sources |",
        "|---|---|---|",
    ]
    for cuda, drv, keys in matrix.drivers:
        out.append(f"| {cuda} | {drv} | {_refs(keys)} |")
    out += ["", "## Sources", ""]
    for k, title, url in matrix.sources:
        out.append(f"- [{k}] {title}. <{url}>")
    return out


def render_compatibility_markdown(matrix: Matrix) -> str:
    """docs/compatibility.md: the whole matrix as Markdown tables, every row with its sources."""
    out = [
        "# PyTorch compatibility matrix",
        "",
        "<!-- Generated from templates/pytorch/matrix.json by `python templates/gen_compatibility.py`;"
        " do not edit by hand. -->",
        "",
        "This is the data `envkit template pytorch` renders environments from "
        "(`templates/pytorch/matrix.json`). `*` marks the default CUDA of a release in that style, "
        "`~` a variant PyTorch's release notes call experimental. Every style also has a CPU variant.",
        "",
        "## Official wheels (`--style pip`, download.pytorch.org)",
        "",
        "| torch | torchvision | torchaudio | Python | CUDA | default from | sources |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in reversed(matrix.releases):
        out.append(
            f"| {r.torch} | {r.torchvision} | {r.torchaudio} | {', '.join(r.python)} | "
            f"{_cuda_cell(r.cuda, r.default_cuda, r.experimental_cuda)} | "
            f"{r.default_cuda_source} | {_refs(r.sources)} |"
        )
    notes = [f"- torch {r.torch}: {r.note}" for r in reversed(matrix.releases) if r.note]
    out += [""] + (notes + [""] if notes else [])
    out += [
        f"From torchaudio {matrix.torchaudio_stable_abi_from} on, torchaudio is built against "
        "PyTorch's stable ABI and works with that torch and every later one [A].",
        "",
        "## conda-forge (`--style conda-forge`, the default)",
        "",
        "Specs: `pytorch=<ver>.*=cuda*` (or `=cpu*`) and `cuda-version=<X.Y>`, channels "
        "`conda-forge` and `nodefaults`, with `channel_priority: strict`. CUDA builds "
        "(`cuda126_mkl_py312_h…`) depend on the `__cuda` virtual package, so they install only "
        "where an NVIDIA driver is present (or `CONDA_OVERRIDE_CUDA` is set). Python versions "
        "follow the official wheels unless the Python column names fewer.",
        "",
        "| torch | CUDA | Python | sources |",
        "|---|---|---|---|",
    ]
    for row in reversed(matrix.conda_forge):
        py = ", ".join(row.python) if row.python else "as the wheels"
        out.append(
            f"| {row.torch} | {_cuda_cell(row.cuda, row.default_cuda)} | {py} | {_refs(row.sources)} |"
        )
    cf_notes = [f"- torch {row.torch}: {row.note}" for row in reversed(matrix.conda_forge) if row.note]
    if cf_notes:
        out += [""] + cf_notes
    out += _legacy_and_drivers(matrix)
    return "\n".join(out) + "\n"
