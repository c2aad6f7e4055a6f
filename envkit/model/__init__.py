"""envkit's environment model: immutable records shared by every format, backend and command.

Readers (`envkit.formats.*`) produce these, writers consume them, and the cores (normalize, diff,
checks, lock) are functions over them.  Records are slotted and keyword-only; collections are
tuples so that records compare and hash by value and iteration order is always the file's order.
Nothing assigns to a record after it is built, but records are not `frozen`: a frozen dataclass
sets each field through `object.__setattr__` (readers build records by the thousand) and its
generated methods are compiled at every start.

Positions (`line`) are kept for error messages and findings but never take part in equality: two
files that say the same thing at different lines are equal models.
"""

from typing import TYPE_CHECKING

from envkit.model.records import (
    REDACTED,
    Channel,
    CondaDep,
    EnvSpec,
    LiveEnv,
    Lock,
    LockedPackage,
    PipDep,
    PipDist,
    format_spec,
    pep503,
    split_depend,
)
from envkit.model.resolved import EXPORT_ENTRY, Resolved, env_file, looks_exported, loose_spec, resolved_view

if TYPE_CHECKING:  # pragma: no cover
    from envkit.model.records import Manager as Manager
    from envkit.model.records import PipKind as PipKind

__all__ = [
    "EXPORT_ENTRY",
    "REDACTED",
    "Channel",
    "CondaDep",
    "EnvSpec",
    "LiveEnv",
    "Lock",
    "LockedPackage",
    "PipDep",
    "PipDist",
    "Resolved",
    "env_file",
    "format_spec",
    "looks_exported",
    "loose_spec",
    "pep503",
    "resolved_view",
    "split_depend",
]
