"""The vocabulary of `envkit check` that configuration validates against: severities and rule names.

Plain data with no imports, so envkit.config can validate `select`/`ignore`/`severity` without
importing the rules; envkit.checks.registry checks that the registered rules match RULE_ORDER.
"""

#: Severities, most severe first.  `--fail-on` and the exit code compare with this order.
SEVERITIES = ("error", "warning", "info")

#: Every rule's name, in the order rules are listed (`--list-rules`), documented (docs/rules.md)
#: and described in SARIF.
RULE_ORDER = (
    "conda-pip-duplicate",
    "pip-overwrote-conda",
    "mixed-channels",
    "channel-priority",
    "unpinned",
    "fuzzy-pin",
    "listed-twice",
    "vcs-unpinned",
    "stale-lock",
    "lock-unsatisfied",
    "env-drift",
    "python-abi-mismatch",
    "cuda-mismatch",
    "cuda-unused",
    "wheel-index",
    "torch-pairing",
    "leaked-secret",
    "leaked-prefix",
    "insecure-url",
    "missing-hash",
    "duplicate-key",
    "pip-without-pip",
    "no-channels",
    "platform-only",
    "short-exact-pin",
    "pypi-only-in-conda",
    "legacy-url",
    "missing-requirements-file",
    "yaml-number",
    "pip-lock-missing-hash",
    "lock-python-mismatch",
    "pip-lock-one-platform",
    "machine-platform",
    "machine-virtual-package",
    "machine-cuda-driver",
    "machine-gpu-arch",
    "machine-wheel-tag",
)
