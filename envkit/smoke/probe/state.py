"""The state the probe's check mixins share: `Probe` (core.py) sets it up, the checks read and fill it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


class ProbeState:
    """What every check group sees of the probe (the attributes are set in `Probe.__init__`)."""

    config: dict
    mode: str  # quick | default | full
    checks: list[dict]
    environment: dict
    dataloader: dict | None
    # the modules imported in the target environment; Any: the probe runs against whatever torch
    # (and numpy) version that environment has, never against the one it is type-checked with
    torch: Any
    np: Any
    cuda_ok: bool
    gpu: dict
    pins: list[str]
    start: float
    import_warnings: list[str]

    if TYPE_CHECKING:
        # defined by `Probe` and by the other check groups it mixes in

        def timeout_of(self, name: str, default: float) -> float: ...

        def default_start_method(self) -> str: ...

        def workload(self) -> dict: ...

        def need_cuda(self, what: str = "") -> None: ...

        def _cudnn_versions(self) -> dict | None: ...
