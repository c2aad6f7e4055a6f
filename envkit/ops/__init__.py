"""envkit's operations: typed functions that both the CLI (``envkit.commands``) and the library
(``envkit.api``) call; each takes parsed inputs and returns a frozen result object, never prints.

    check.check            files, a lock, a live env (and a MachineProfile) -> CheckResult
    diff.diff_sources      two SOURCE strings -> DiffResult (both sides, the EnvDiff, the machines)
    normalize              normalize_source -> NormalizeResult, validate_source -> ValidateResult
    create                 plan_create -> CreatePlan, run_create -> CreateOutcome
    template               pytorch_template -> TemplateResult
    smoke.smoke            an environment (or a file to create one from) -> SmokeResult

A command parses its options, calls one of these and renders the result; an EnvkitError they raise
carries its fix as data (envkit.errors.Remedy), which the CLI words as a flag and the library as
a keyword.  Warnings are in the results (lines of text), for the CLI to print.
"""
