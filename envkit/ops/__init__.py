"""envkit's operations: typed functions that both the CLI (``envkit.commands``) and the library
call (``import envkit`` exports them as they are); each takes parsed inputs (paths where users pass
paths) and returns a result object, never prints.

    check       check -> CheckResult; load_targets, run_checks -> Targets, Findings
    diff        diff (models or paths) -> EnvDiff; diff_sources (SOURCE strings) -> DiffResult
    lock        lock_spec -> SpecLockResult, lock_live -> LiveLockResult, check_lock -> LockCheck,
                solve_spec -> Lock
    convert     convert_model -> ConvertResult
    create      create_from_lock -> CreateResult; plan_create -> CreatePlan, run_create -> CreateOutcome
    normalize   normalize_source -> NormalizeResult, validate_source -> ValidateResult
    template    pytorch_template -> TemplateResult
    smoke       smoke -> SmokeResult

A command parses its options, calls one of these and renders the result; an EnvkitError they raise
carries its fix as data (envkit.errors.Remedy), which the CLI words as a flag and the library as
a keyword.  Warnings are in the results (lines of text), for the CLI to print.
"""
