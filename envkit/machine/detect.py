"""Build a MachineProfile: from this machine, from another one over ssh, or from a profile file.

The raw facts come from envkit.machine.probe (the same stdlib script here and remotely); this
module reads them: NVML's answers first, then nvidia-smi's CSV (`--query-gpu=...
--format=csv,noheader,nounits`) and banner, the CPU flags into an x86-64 level, and the virtual
packages from py-rattler's `VirtualPackage.detect()` here (or derived from the facts elsewhere).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from envkit.errors import BackendError, UsageError
from envkit.machine.profile import Gpu, MachineProfile, read_profile

if TYPE_CHECKING:
    from envkit.sources.ssh import SshTarget

#: x86-64 psABI levels and the /proc/cpuinfo flags each adds (the x86-64 psABI, as archspec uses).
X86_LEVELS = (
    ("x86_64_v2", ("cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3")),
    ("x86_64_v3", ("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave")),
    ("x86_64_v4", ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")),
)
SSH_TIMEOUT = 120.0
_OS = {"Linux": "linux", "Darwin": "osx", "Windows": "win"}  # platform.system() -> conda's


def cpu_level(machine: str, flags) -> str | None:
    """`x86_64_v3` from an x86-64 CPU's flags (the highest level whose flags are all there); the
    machine name itself elsewhere (`aarch64`, `arm64`); None when unknown."""
    if machine in ("x86_64", "AMD64", "amd64"):
        have = set(flags or ())
        if not have:
            return None
        level = "x86_64"
        for name, needs in X86_LEVELS:
            if not all(f in have for f in needs):
                break
            level = name
        return level
    return machine or None


def cuda_from_int(value: int | None) -> str | None:
    """NVML's cuda driver version integer (12040) -> "12.4"."""
    if not value:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def gpus_from_nvml(nvml: dict) -> tuple[str | None, str | None, tuple[Gpu, ...]]:
    """(driver, newest CUDA, GPUs) from the probe's recorded NVML answers."""
    gpus = tuple(
        Gpu(
            index=int(g.get("index", i)),
            name=str(g.get("name") or ""),
            compute_capability=f"{g['cc'][0]}.{g['cc'][1]}" if g.get("cc") else None,
            memory_mib=int(g["memory"]) // (1024 * 1024) if g.get("memory") else None,
        )
        for i, g in enumerate(nvml.get("gpus") or ())
    )
    return nvml.get("driver") or None, cuda_from_int(nvml.get("cuda_driver_version")), gpus


def gpus_from_smi(query: str, banner: str | None) -> tuple[str | None, str | None, tuple[Gpu, ...]]:
    """(driver, newest CUDA, GPUs) from nvidia-smi's `--query-gpu=index,name,compute_cap,
    memory.total,driver_version --format=csv,noheader,nounits` answer and its plain banner."""
    import csv

    gpus: list[Gpu] = []
    driver = None
    for row in csv.reader(line for line in (query or "").splitlines() if line.strip()):
        cells = [c.strip() for c in row]
        if len(cells) < 2:
            continue
        cc = cells[2] if len(cells) > 2 and re.fullmatch(r"\d+\.\d+", cells[2]) else None
        mem = int(float(cells[3])) if len(cells) > 3 and re.fullmatch(r"[\d.]+", cells[3]) else None
        if len(cells) > 4 and cells[4] and driver is None:
            driver = cells[4]
        index = int(cells[0]) if cells[0].isdigit() else len(gpus)
        gpus.append(Gpu(index=index, name=cells[1], compute_capability=cc, memory_mib=mem))
    from envkit.templates.gpu import parse_nvidia_smi

    banner_driver, cuda = parse_nvidia_smi(banner or "")
    return driver or banner_driver, cuda, tuple(gpus)


def derived_virtual_packages(p: MachineProfile) -> tuple[tuple[str, str, str], ...]:
    """The virtual packages a conda solver would see, derived from the facts (for a machine where
    py-rattler is not there to ask): __unix/__win, __linux, __glibc, __osx, __cuda, __archspec."""
    out: list[tuple[str, str, str]] = []
    if p.os in ("linux", "osx"):
        out.append(("__unix", "0", "0"))
    if p.os == "win":
        out.append(("__win", "0", "0"))
    if p.os == "linux" and p.kernel:
        m = re.match(r"\d+(?:\.\d+)*", p.kernel)
        if m:
            out.append(("__linux", m.group(0), "0"))
    if p.glibc:
        out.append(("__glibc", p.glibc, "0"))
    if p.macos:
        out.append(("__osx", p.macos, "0"))
    if p.driver_cuda:
        out.append(("__cuda", p.driver_cuda, "0"))
    if p.archspec or p.cpu_level:
        out.append(("__archspec", "1", p.archspec or p.cpu_level or ""))
    return tuple(out)


def profile_from_facts(
    facts: dict, *, host: str | None = None, virtual_packages: tuple[tuple[str, str, str], ...] | None = None
) -> MachineProfile:
    """A MachineProfile from the probe's raw facts.  `virtual_packages` are py-rattler's when given
    (source "py-rattler"); otherwise they are derived from the facts (source "probe")."""
    from envkit.backends.prefix_scan import host_platform
    from envkit.conda.cuda_compat import max_full_cuda_for_driver

    sysf = facts.get("system") or {}
    cpu = facts.get("cpu") or {}
    system, machine = sysf.get("system") or "", sysf.get("machine") or ""
    notes: list[str] = []
    driver = cuda = None
    gpus: tuple[Gpu, ...] = ()
    gpu_source = cuda_source = ""
    nvml = facts.get("nvml") or {}
    smi = facts.get("nvidia_smi") or {}
    if "error" not in nvml:
        driver, cuda, gpus = gpus_from_nvml(nvml)
        gpu_source = cuda_source = "nvml"
    else:
        notes.append(nvml["error"])
        if "error" not in smi:
            driver, cuda, gpus = gpus_from_smi(smi.get("query") or "", smi.get("banner"))
            gpu_source = cuda_source = "nvidia-smi"
        else:
            notes.append(smi["error"])
            gpu_source = "none"
    if driver and not cuda:
        cuda, cuda_source = max_full_cuda_for_driver(driver), "table"
    if not cuda:
        cuda_source = ""
    os_ = _OS.get(system, system.lower())
    level = cpu_level(machine, cpu.get("flags"))
    p = MachineProfile(
        host=host or sysf.get("node") or "",
        os=os_,
        platform=host_platform(system, machine),
        machine=machine,
        kernel=sysf.get("release"),
        distro=sysf.get("distro"),
        glibc=sysf.get("glibc"),
        macos=sysf.get("macos"),
        cpu=cpu.get("model"),
        cpu_level=level,
        driver=driver,
        driver_cuda=cuda,
        driver_cuda_source=cuda_source,
        gpus=gpus,
        gpu_source=gpu_source,
        pythons=tuple((str(a), str(b)) for a, b in facts.get("pythons") or ()),
        notes=tuple(notes),
    )
    if virtual_packages is not None:
        arch = next((b for n, _, b in virtual_packages if n == "__archspec"), None)
        return replace(
            p, archspec=arch, virtual_packages=virtual_packages, virtual_packages_source="py-rattler"
        )
    return replace(p, virtual_packages=derived_virtual_packages(p), virtual_packages_source="probe")


def _local_run(argv, timeout):
    from envkit._proc import run

    try:
        res = run(argv, timeout=timeout, check=False, what=os.path.basename(argv[0]))
    except BackendError:
        return None
    if res.timed_out:
        return None
    return res.returncode, res.stdout


def rattler_virtual_packages() -> tuple[tuple[str, str, str], ...] | None:
    """py-rattler's VirtualPackage.detect() (honouring CONDA_OVERRIDE_*), as (name, version,
    build); None when py-rattler is missing or its detection fails."""
    try:
        from rattler import VirtualPackage
        from rattler.virtual_package import VirtualPackageOverrides

        found = VirtualPackage.detect(VirtualPackageOverrides.from_env())
    except Exception:  # py-rattler's detection errors are not ours to crash on
        return None
    generic = (vp.into_generic() for vp in found)
    return tuple((str(g.name.normalized), str(g.version), str(g.build_string)) for g in generic)


def detect_local() -> MachineProfile:
    """This machine's profile: the probe's facts (through envkit._proc) and py-rattler's virtual
    packages.  Never raises for a missing GPU, driver, nvidia-smi or py-rattler: `notes` say."""
    from envkit.machine import probe

    facts = probe.collect(run=_local_run)
    vps = rattler_virtual_packages()
    p = profile_from_facts(facts, virtual_packages=vps)
    if vps is None:
        p = replace(
            p, notes=p.notes + ("py-rattler is not installed: virtual packages derived from the probe",)
        )
    return p


def detect_remote(text: str) -> MachineProfile:
    """The profile of `ssh://[user@]host[:port]`: streams the stdlib probe to the remote python3
    (as `envkit diff ssh://...` streams its prefix reader; ENVKIT_SSH and ENVKIT_REMOTE_PYTHON
    apply).  Raises BackendError when ssh or the remote Python fails."""
    from pathlib import Path

    from envkit.machine import probe
    from envkit.sources.ssh import parse_ssh, run_remote

    target = parse_ssh(text, host_only=True)
    program = Path(probe.__file__).read_text(encoding="utf-8")
    label = text.rstrip("/")
    res = run_remote(target, program, label=label, what="the remote machine probe", timeout=SSH_TIMEOUT)
    if res.returncode != 0:
        raise BackendError(
            f"{label}: the remote machine probe failed (exit code {res.returncode})",
            text=res.stderr.strip()[-2000:] or None,
        )
    _, sep, body = res.stdout.partition(probe.MARK + "\n")
    try:
        facts = json.loads(body) if sep else None
    except ValueError:
        facts = None
    if not isinstance(facts, dict):
        raise BackendError(
            f"{label}: the remote machine did not answer with a probe",
            text=(res.stdout or res.stderr)[-2000:] or None,
        )
    return profile_from_facts(facts, host=target.host)


def resolve_machine(text: str) -> MachineProfile:
    """`host` (this machine), `ssh://[user@]host[:port]`, or a profile file -> MachineProfile.
    Raises UsageError for a missing file that is not `host`, ParseError for a bad profile."""
    if text == "host":
        return detect_local()
    if text.startswith("ssh://"):
        return detect_remote(text)
    hint = "give `host` (this machine), ssh://HOST, or a file written by `envkit machine -o FILE`"
    if not os.path.exists(text):
        raise UsageError(f"{text}: no such profile file", hint=hint)
    if os.path.isdir(text):
        raise UsageError(f"{text}: is a directory, not a machine profile", hint=hint)
    return read_profile(text)


def remote_profile(head: str, target: SshTarget) -> MachineProfile | None:
    """The MachineProfile from the probe facts an ssh scan printed before its answer (`head`), or
    None (an old or failed probe is no reason to fail the diff)."""
    from envkit.sources.ssh import MACHINE_MARK

    _, sep, rest = head.partition(MACHINE_MARK + "\n")
    if not sep:
        return None
    try:
        facts = json.loads(rest.splitlines()[0]) if rest.strip() else None
    except ValueError:
        return None
    if not isinstance(facts, dict) or "error" in facts:
        return None
    try:
        return profile_from_facts(facts, host=target.host)
    except (TypeError, ValueError, AttributeError, KeyError):
        return None
