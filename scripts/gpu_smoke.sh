#!/usr/bin/env bash
# One-shot real-GPU smoke run: `envkit smoke --full --format json` with the machine's own torch.
#
# Run it on the GPU machine from a checkout of envkit (docs/gpu-run.md):
#     bash scripts/gpu_smoke.sh            # a few minutes in the default full mode
# It needs nothing but an interpreter that imports torch (click is used when present) and always
# leaves its results in $OUT when that is set (an output folder you choose), whatever failed:
#     smoke-gpu-report.json   the report (envkit smoke's JSON + a "generated_by" block)
#     smoke-gpu-report.txt    the same as envkit smoke prints it (table, sweep, diagnoses)
#     gpu_smoke.log           what the script saw: interpreter, torch, nvidia-smi, stderr of the run
# Without $OUT (a trial run) the report goes to docs/smoke-gpu-report.json (+ .txt, .log).
# Environment:
#     PYTHON         the interpreter whose torch is tested (default: the first that imports torch of
#                    python3, python, /opt/torch/.venv/bin/python3, /opt/conda/bin/python, /usr/bin/python3)
#     SMOKE_MODE     full (default) | default | quick
#     SMOKE_TIMEOUT  envkit smoke's overall --timeout in seconds (default 420)
#     SMOKE_REPORT   where to write the report (default $OUT/smoke-gpu-report.json, else
#                    docs/smoke-gpu-report.json)
# Exit status: envkit smoke's (0 all passed or rightly skipped, 1 a check failed, 2 could not run).
set -u
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)
MODE=${SMOKE_MODE:-full}
TIMEOUT=${SMOKE_TIMEOUT:-420}
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; fi
DEST=${SMOKE_REPORT:-${OUT:+$OUT/smoke-gpu-report.json}}
DEST=${DEST:-docs/smoke-gpu-report.json}
TXT=${DEST%.json}.txt
LOG=$(dirname "$DEST")/gpu_smoke.log
: > "$LOG"
say() { echo "gpu_smoke: $*" | tee -a "$LOG" >&2; }

pick_python() {
    for py in ${PYTHON:-} python3 python /opt/torch/.venv/bin/python3 /opt/conda/bin/python /usr/bin/python3; do
        [ -n "$py" ] || continue
        command -v "$py" >/dev/null 2>&1 || continue
        if "$py" -c "import torch" >/dev/null 2>&1; then command -v "$py"; return 0; fi
    done
    return 1
}

PY=$(pick_python) || {
    say "no interpreter with torch found (set PYTHON)"
    printf '{"ok": false, "could_not_run": true, "generated_by": {"script": "scripts/gpu_smoke.sh", "exit_code": 2, "error": "no interpreter with torch"}}\n' > "$DEST"
    exit 2
}
say "testing $PY: $("$PY" -c 'import sys, torch; print("Python", sys.version.split()[0], "torch", torch.__version__, "CUDA", torch.version.cuda)' 2>&1 | tail -1)"
{ nvidia-smi 2>&1 || echo "(nvidia-smi failed)"; ls -l /dev/nvidia* 2>&1; df -h /dev/shm 2>&1; nproc; } >> "$LOG"

# envkit runs from this checkout with the same interpreter.  The command needs click besides the
# standard library; without click the runner's API is called (same probe, same report); if envkit
# cannot be imported at all (an interpreter too old for it), the standalone probe runs alone.
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
BACKSTOP=$((TIMEOUT + 60))
if "$PY" -c "import click, envkit.cli" >/dev/null 2>&1; then
    CMD="envkit smoke --python $PY --$MODE --format json --timeout $TIMEOUT"
    [ "$MODE" = default ] && CMD="envkit smoke --python $PY --format json --timeout $TIMEOUT"
    # shellcheck disable=SC2086
    timeout -k 15 "$BACKSTOP" "$PY" -m envkit ${CMD#envkit } > "$DEST.tmp" 2>> "$LOG"
    rc=$?
elif "$PY" -c "import envkit.smoke.runner" >/dev/null 2>&1; then
    CMD="envkit.smoke.runner.run_smoke(mode=$MODE, timeout=$TIMEOUT) (click missing; same probe, same report)"
    timeout -k 15 "$BACKSTOP" "$PY" - "$PY" "$MODE" "$TIMEOUT" > "$DEST.tmp" 2>> "$LOG" <<'PYEOF'
import json, sys
from envkit.smoke import runner
target = runner.resolve_target(python=sys.argv[1])
report = runner.run_smoke(target, mode=sys.argv[2], timeout=float(sys.argv[3]))
print(json.dumps(report, indent=2, sort_keys=True, default=str))
sys.exit(runner.exit_code(report))
PYEOF
    rc=$?
else
    CMD="$PY envkit/smoke/probe --config '{\"mode\": \"$MODE\"}' (envkit not importable: the probe alone, no runner timeouts)"
    timeout -k 15 "$BACKSTOP" "$PY" envkit/smoke/probe --config "{\"mode\": \"$MODE\"}" 2>> "$LOG" \
        | "$PY" -c '
import json, sys
prefix = "@@envkit-smoke@@ "
report = None
for line in sys.stdin:
    if line.startswith(prefix):
        ev = json.loads(line[len(prefix):])
        if ev.get("event") == "report":
            report = ev["report"]
if report is None:
    sys.exit(2)
print(json.dumps(report, indent=2, sort_keys=True))
sys.exit(0 if report.get("ok") else 1)' > "$DEST.tmp"
    rc=$?
fi
[ "$rc" = 124 ] && say "the run outlasted its backstop of $BACKSTOP s and was killed"

# Record how the report was made, and write the text form next to it.
"$PY" - "$DEST.tmp" "$DEST" "$TXT" "$CMD" "$rc" "$LOG" <<'PYEOF'
import json, sys, time
src, dest, txt, cmd, rc, log = sys.argv[1:7]
try:
    with open(src) as f:
        report = json.load(f)
except (OSError, ValueError) as e:
    report = {"ok": False, "could_not_run": True, "checks": [], "error": f"no JSON report: {e}"}
report["generated_by"] = {"command": cmd, "script": "scripts/gpu_smoke.sh", "exit_code": int(rc),
                          "date": time.strftime("%Y-%m-%d")}
with open(dest, "w") as f:
    json.dump(report, f, indent=2, sort_keys=True)
    f.write("\n")
try:
    from envkit.render.smoke import render_text
    text = render_text(report)
except Exception:  # envkit not importable: the plain table
    text = "".join(f"{c['status']:5} {c['name']:32} {c['detail']}\n" for c in report.get("checks") or [])
with open(txt, "w") as f:
    f.write(f"$ {cmd}\n{text}")
with open(log, "a") as f:
    f.write(text)
PYEOF
rm -f "$DEST.tmp"
say "exit $rc; report in $DEST, text in $TXT, log in $LOG"
exit "$rc"
