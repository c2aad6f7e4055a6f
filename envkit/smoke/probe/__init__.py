"""envkit's smoke-test probe: runs INSIDE the target environment and prints one JSON report.

This folder is standalone on purpose: it uses only the standard library, torch and (when present)
numpy, and never imports envkit (its modules import each other relatively), because it is executed by
the target interpreter (a conda env, a venv, a freshly created env), which usually has no envkit
installed.  The runner (`envkit/smoke/runner.py`) copies the whole folder to a scratch directory and
runs `python FOLDER --config JSON` (`__main__.py`).

Output protocol: every line on stdout that starts with `@@envkit-smoke@@ ` carries one JSON event:

    {"event": "hello", "pid": ..., "plan": [{"name": ..., "timeout": ...}, ...]}
    {"event": "start", "check": NAME, "timeout": SECONDS}       a check (or phase) begins
    {"event": "progress", "check": NAME, "detail": TEXT}         e.g. one point of the DataLoader sweep
    {"event": "pids", "pids": [...]}                             worker processes started (diagnosis)
    {"event": "result", "check": {"name", "status", "detail", "seconds"}}
    {"event": "environment", "environment": {...}}
    {"event": "dataloader", "dataloader": {...}}
    {"event": "report", "report": {...}}                         last line: the whole report

so that the runner can show progress, enforce a per-check timeout, and say which check hung.  Anything
else on stdout (a library printing) is ignored.  Statuses: pass | fail | skip | warn.

The pure functions (`driver_verdict`, `arch_verdict`, `shm_verdict`, `cuda_pins_from_records`,
`recommend`, ...) take their facts as arguments so tests can inject a GPU that this machine lacks.
"""
