"""Imports every rule module, then puts the registry in documentation order."""
from envkit.checks import (rules_builds, rules_channels, rules_deps, rules_index, rules_lock,  # noqa: F401
                           rules_machine, rules_pairing, rules_piplocks, rules_portability,
                           rules_secrets)
from envkit.checks.core import RULES

#: The order rules are listed (`--list-rules`), documented (docs/rules.md) and described in SARIF.
ORDER = (
    "conda-pip-duplicate", "pip-overwrote-conda", "mixed-channels", "channel-priority", "unpinned",
    "fuzzy-pin", "stale-lock", "lock-unsatisfied", "env-drift", "python-abi-mismatch",
    "cuda-mismatch", "wheel-index", "torch-pairing", "leaked-secret", "leaked-prefix", "insecure-url", "missing-hash",
    "duplicate-key", "pip-without-pip", "no-channels", "platform-only", "short-exact-pin",
    "pypi-only-in-conda", "legacy-url", "missing-requirements-file", "yaml-number", "pip-lock-missing-hash", "lock-python-mismatch", "pixi-lock-v7",
    "machine-platform", "machine-virtual-package", "machine-cuda-driver", "machine-gpu-arch",
    "machine-wheel-tag",
)

_ordered = {name: RULES[name] for name in ORDER}
_ordered.update(RULES)  # a rule missing from ORDER still shows up, last
RULES.clear()
RULES.update(_ordered)
