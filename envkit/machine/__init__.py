"""Machine profiles: what a machine offers an environment (OS, glibc or macOS, CPU level, the
virtual packages a solver sees, the NVIDIA driver and GPUs, Pythons), and whether a lock fits it.

    from envkit.machine import detect_local, read_profile, resolve_machine
    profile = resolve_machine("host")            # or "ssh://gpu-server", or "server.json"
    profile.to_dict()                            # the JSON `envkit machine --json` writes

`envkit.machine.probe` is the stdlib-only collector run here or streamed to a remote python3;
`envkit.machine.detect` turns what it found into a MachineProfile; `envkit.machine.fit` holds the
lock-side facts (virtual package needs, CUDA runtime, torch GPU architectures, wheel tags) that
`envkit check --machine` compares with a profile.
"""

from envkit.machine.detect import detect_local, resolve_machine
from envkit.machine.profile import Gpu, MachineProfile, read_profile

__all__ = ["Gpu", "MachineProfile", "read_profile", "detect_local", "resolve_machine"]
