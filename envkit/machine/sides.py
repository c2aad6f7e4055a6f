"""The two machines of a diff: which profile each side gets, for the side-by-side header.

    an ssh:// prefix or env:NAME     the remote probe's profile, from the same ssh session
    a local prefix or env:NAME       this machine's profile, when the other side is another machine
    a file or stdin                  none: a file does not say where it runs
    --machine-a / --machine-b        PROFILE (a file from `envkit machine -o`), host or ssh://HOST

Two local environments share one machine, so they get no header (and no probe).
"""

from __future__ import annotations

from envkit.machine.profile import MachineProfile

#: Source origins (envkit.sources.Source.origin) that are environments on this machine.
LOCAL_LIVE = ("prefix", "env")


def diff_machines(
    a,
    b,
    *,
    machine_a: str | None = None,
    machine_b: str | None = None,
) -> tuple[MachineProfile | None, MachineProfile | None] | None:
    """(profile A, profile B) for two resolved Sources, or None when neither side has one.

    `machine_a` / `machine_b` override a side (see envkit.machine.resolve_machine).  This
    machine's profile is detected at most once, and only when a local environment is compared
    with another machine."""
    from envkit.errors import UsageError
    from envkit.machine import detect_local, resolve_machine

    chosen: list[MachineProfile | None] = []
    for side, src, given in (("a", a, machine_a), ("b", b, machine_b)):
        if given is not None:
            try:
                chosen.append(resolve_machine(given))
            except UsageError as exc:  # which of the two sides it was
                exc.message = f"--machine-{side} {exc.message}"
                raise
        elif src.origin == "ssh":
            chosen.append(src.machine)
        else:
            chosen.append(None)
    if all(p is None for p in chosen):
        return None
    mine = None
    for i, (src, given) in enumerate(((a, machine_a), (b, machine_b))):
        if given is None and src.origin in LOCAL_LIVE:
            if mine is None:
                mine = detect_local()
            chosen[i] = mine
    return chosen[0], chosen[1]
