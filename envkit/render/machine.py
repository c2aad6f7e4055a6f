"""A machine profile as text (`envkit machine`), and the side-by-side machine rows of a diff header."""

from __future__ import annotations

from envkit.machine.profile import MachineProfile


def render_machine_text(p: MachineProfile) -> str:
    """The profile as aligned `key  value` lines, most telling first; ends with a newline."""
    rows: list[tuple[str, str]] = [
        ("host", p.host or "—"),
        ("platform", f"{p.platform} ({p.os}, {p.machine})"),
    ]
    if p.distro or p.kernel:
        rows.append(
            ("system", ", ".join(x for x in (p.distro, f"kernel {p.kernel}" if p.kernel else None) if x))
        )
    if p.glibc:
        rows.append(("glibc", p.glibc))
    if p.macos:
        rows.append(("macOS", p.macos))
    rows.append(("CPU", ", ".join(x for x in (p.cpu, _cpu_level(p)) if x) or "—"))
    rows.append(("NVIDIA driver", driver_text(p)))
    if p.gpus:
        for g in p.gpus:
            mem = f", {g.memory_mib} MiB" if g.memory_mib else ""
            cc = (
                f"compute capability {g.compute_capability} ({g.sm})"
                if g.compute_capability
                else "compute capability unknown"
            )
            rows.append((f"GPU {g.index}", f"{g.name}, {cc}{mem}"))
    else:
        rows.append(("GPUs", "none found"))
    vps = "  ".join(f"{n}={v}" + (f"={b}" if b not in ("", "0") else "") for n, v, b in p.virtual_packages)
    rows.append(
        (
            "virtual packages",
            (vps or "—") + (f"  ({p.virtual_packages_source})" if p.virtual_packages_source else ""),
        )
    )
    for i, (path, version) in enumerate(p.pythons):
        rows.append(("Python" if i == 0 else "", f"{version}  {path}"))
    for note in p.notes:
        rows.append(("note", note))
    width = max(len(k) for k, _ in rows)
    return "".join(f"{k.ljust(width)}  {v}\n" for k, v in rows)


def machine_line(p: MachineProfile) -> str:
    """One line: `gpu-box, linux-64, glibc 2.35, x86_64_v3, driver 575.57.08 (CUDA 12.9,
    nvidia-smi), GPUs: NVIDIA GeForce RTX 5090 (sm_120)` (the smoke report's machine line)."""
    bits = [
        p.host or "?",
        p.platform,
        _libc(p),
        _cpu_level(p),
        f"driver {driver_text(p)}",
        f"GPUs: {_gpus(p)}",
    ]
    return ", ".join(b for b in bits if b)


def driver_text(p: MachineProfile) -> str:
    """`575.57.08 (CUDA 12.9, nvidia-smi)`, or `none`."""
    if not p.driver and not p.driver_cuda:
        return "none"
    src = f", {p.driver_cuda_source}" if p.driver_cuda_source else ""
    cuda = f" (CUDA {p.driver_cuda}{src})" if p.driver_cuda else ""
    return f"{p.driver or '?'}{cuda}"


def _libc(p: MachineProfile) -> str | None:
    return f"glibc {p.glibc}" if p.glibc else (f"macOS {p.macos}" if p.macos else None)


def _gpus(p: MachineProfile) -> str:
    return ", ".join(f"{g.name} ({g.sm})" if g.sm else g.name for g in p.gpus) or "none"


def _cpu_level(p: MachineProfile) -> str | None:
    if p.archspec and p.cpu_level and p.archspec != p.cpu_level:
        return f"{p.archspec} ({p.cpu_level})"
    return p.archspec or p.cpu_level


def machine_rows(a: MachineProfile | None, b: MachineProfile | None) -> list[tuple[str, str, str, bool]]:
    """(label, A, B, differs) rows for a diff header: host and platform, driver / CUDA, GPUs, glibc
    or macOS, CPU level ("—" for a side without a profile; a row with one is never "differs")."""

    def host(p):
        return f"{p.host or '?'} ({p.platform})"

    rows = []
    for label, fn in (
        ("Machine", host),
        ("Driver", driver_text),
        ("GPUs", _gpus),
        ("libc/OS", _libc),
        ("CPU level", _cpu_level),
    ):
        va = "—" if a is None else fn(a) or "—"
        vb = "—" if b is None else fn(b) or "—"
        differs = a is not None and b is not None and va != vb
        if (
            label == "CPU level"
            and differs
            and a is not None
            and b is not None
            and a.cpu_level
            and b.cpu_level
        ):
            # over ssh only the x86-64 level is known, locally rattler also names the microarchitecture
            differs = a.cpu_level != b.cpu_level
        rows.append((label, va, vb, differs))
    return rows
