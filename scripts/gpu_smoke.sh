#!/usr/bin/env bash
# One-shot real-GPU smoke run: `envkit smoke --full --json` with the machine's own torch.
#
# Run from the repository root on a machine with an NVIDIA GPU (see docs/gpu-run.md):
#     bash scripts/gpu_smoke.sh            # writes docs/smoke-gpu-report.json (+ .txt)
# Environment:
#     PYTHON   the interpreter whose torch is tested (default: the first of python3/python
#              on PATH, /opt/conda/bin/python, that imports torch)
#     OUT      also copy the reports there (the device tool's output folder)
#     SMOKE_TIMEOUT  overall limit in seconds (default 480)
#     SMOKE_REPORT   where to write the report (default docs/smoke-gpu-report.json)
# Exit status: envkit smoke's (0 all passed or rightly skipped, 1 a check failed, 2 could not run).
set -u
cd "$(dirname "$0")/.."
REPO=$(pwd)
DEST=${SMOKE_REPORT:-docs/smoke-gpu-report.json}
TIMEOUT=${SMOKE_TIMEOUT:-480}

pick_python() {
    for py in ${PYTHON:-} python3 python /opt/conda/bin/python /usr/bin/python3; do
        [ -n "$py" ] || continue
        command -v "$py" >/dev/null 2>&1 || continue
        if "$py" -c "import torch" >/dev/null 2>&1; then echo "$(command -v "$py")"; return 0; fi
    done
    return 1
}

PY=$(pick_python) || { echo "gpu_smoke: no interpreter with torch found (set PYTHON)" >&2; exit 2; }
echo "gpu_smoke: testing $PY ($("$PY" -c 'import torch; print(torch.__version__, torch.version.cuda)'))" >&2
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader >&2 || true

# envkit itself runs from this checkout with the same interpreter.  The smoke command needs only
# click besides the standard library; without click, the runner's API (stdlib only) is used.
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
CMD="envkit smoke --python $PY --full --json --timeout $TIMEOUT"
if "$PY" -c "import click" >/dev/null 2>&1; then
    "$PY" -m envkit smoke --python "$PY" --full --json --timeout "$TIMEOUT" > "$DEST.tmp"
    rc=$?
else
    CMD="python -c 'envkit.smoke.runner.run_smoke(...)' (click missing; same probe, same report)"
    "$PY" - "$PY" "$TIMEOUT" > "$DEST.tmp" <<'PYEOF'
import json, sys
from envkit.smoke import runner
target = runner.resolve_target(python=sys.argv[1])
report = runner.run_smoke(target, mode="full", timeout=float(sys.argv[2]))
print(json.dumps(report, indent=2, sort_keys=True, default=str))
sys.exit(runner.exit_code(report))
PYEOF
    rc=$?
fi
# Record how the report was made, next to it.
"$PY" - "$DEST.tmp" "$DEST" "$CMD" "$rc" <<'PYEOF'
import json, sys, time
src, dest, cmd, rc = sys.argv[1:5]
with open(src) as f:
    report = json.load(f)
report["generated_by"] = {"command": cmd, "script": "scripts/gpu_smoke.sh", "exit_code": int(rc),
                          "date": time.strftime("%Y-%m-%d")}
with open(dest, "w") as f:
    json.dump(report, f, indent=2, sort_keys=True)
    f.write("\n")
for c in report["checks"]:
    print(f"{c['status']:5} {c['name']:32} {c['detail'][:150]}", file=sys.stderr)
PYEOF
rm -f "$DEST.tmp"
if [ -n "${OUT:-}" ]; then cp "$DEST" "$OUT/"; fi
echo "gpu_smoke: exit $rc; report in $DEST" >&2
exit $rc
