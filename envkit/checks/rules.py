"""Imports every rule module, then puts the registry in documentation order."""
from envkit.checks import rules_builds, rules_channels, rules_deps, rules_lock, rules_secrets  # noqa: F401
from envkit.checks import rules_index  # noqa: F401
from envkit.checks.core import RULES

#: The order rules are listed (`--list-rules`), documented (docs/rules.md) and described in SARIF.
ORDER = (
    "conda-pip-duplicate", "pip-overwrote-conda", "mixed-channels", "channel-priority", "unpinned",
    "fuzzy-pin", "stale-lock", "lock-unsatisfied", "env-drift", "python-abi-mismatch",
    "cuda-mismatch", "wheel-index", "leaked-secret", "leaked-prefix", "insecure-url", "missing-hash",
    "duplicate-key", "pip-without-pip",
)

_ordered = {name: RULES[name] for name in ORDER}
_ordered.update(RULES)  # a rule missing from ORDER still shows up, last
RULES.clear()
RULES.update(_ordered)
