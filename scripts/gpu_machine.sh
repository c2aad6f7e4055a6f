#!/usr/bin/env bash
# One-shot machine-profile run on a machine with an NVIDIA GPU (docs/gpu-run.md):
#     bash scripts/gpu_machine.sh
# Runs `envkit machine`, `envkit machine --format json` and `envkit check --machine host` on the CUDA
# template files, and keeps each output headed by the command that made it, in $OUT when set
# (an output folder you choose), else in docs/gpu-machine/:
#     machine.txt, machine.json           envkit machine / --format json
#     check-<name>.txt                    envkit check FILE --machine host (text findings)
#     nvidia-smi-query.csv, nvidia-smi-banner.txt, probe-facts.json
#                                         the raw answers, to record as tests/data/machine/ data
#     gpu_machine.log                     what ran, with exit statuses
# Environment: PYTHON (an interpreter that has envkit's dependencies: click, PyYAML, py-rattler;
# default: .venv/bin/python, python3, python).  Without them only the raw answers and the stdlib
# probe's facts are kept.  Exit status: 0 when every command ran (findings are not failures).
set -u
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)
DEST=${OUT:-$REPO/docs/gpu-machine}
mkdir -p "$DEST"
LOG=$DEST/gpu_machine.log
: > "$LOG"
say() { echo "gpu_machine: $*" | tee -a "$LOG" >&2; }
status=0

pick_python() {
    for py in ${PYTHON:-} "$REPO/.venv/bin/python" python3 python; do
        [ -n "$py" ] || continue
        command -v "$py" >/dev/null 2>&1 || continue
        if PYTHONPATH=$REPO "$py" -c "import click, yaml, rattler, envkit.cli" >/dev/null 2>&1; then
            command -v "$py"; return 0
        fi
    done
    return 1
}

# run NAME CMD...: the command line, then its stdout and stderr, into $DEST/NAME
run() {
    local name=$1; shift
    { echo "\$ $*"; echo; } > "$DEST/$name"
    timeout 120 "$@" >> "$DEST/$name" 2>&1
    local rc=$?
    say "$name: exit $rc: $*"
    # envkit check exits 1 for findings; 2 or more is a failure to run
    [ "$rc" -ge 2 ] && status=1
    return 0
}

SMI=$(command -v nvidia-smi || true)
if [ -n "$SMI" ]; then
    timeout 60 "$SMI" --query-gpu=index,name,compute_cap,memory.total,driver_version \
        --format=csv,noheader,nounits > "$DEST/nvidia-smi-query.csv" 2>>"$LOG"
    timeout 60 "$SMI" > "$DEST/nvidia-smi-banner.txt" 2>>"$LOG"
    say "nvidia-smi: $(head -n 3 "$DEST/nvidia-smi-query.csv" | tr '\n' ';')"
else
    say "no nvidia-smi on PATH"
fi

PY=$(pick_python) || PY=""
RAW=$(command -v python3 || command -v python || true)
if [ -n "$RAW" ]; then
    # the stdlib probe alone: no envkit import, so it runs whatever is installed
    timeout 60 "$RAW" "$REPO/envkit/machine/probe.py" > "$DEST/probe-facts.json" 2>>"$LOG"
    say "probe-facts.json: exit $? ($RAW)"
fi
if [ -z "$PY" ]; then
    say "no interpreter with click, PyYAML and py-rattler: kept the raw answers only"
    exit 1
fi
say "python: $PY"
export PYTHONPATH=$REPO
ENVKIT=("$PY" -m envkit)
run machine.txt "${ENVKIT[@]}" machine
run machine.json "${ENVKIT[@]}" machine --format json

# the CUDA template files: the committed examples, and one file per CUDA variant of the newest torch
TPL=$DEST/templates
mkdir -p "$TPL"
for f in examples/pytorch/environment-cuda.yml examples/pytorch/environment-pip-cu128.yml \
         examples/laptop-vs-server/cuda.yml examples/laptop-vs-server/server.yml; do
    [ -f "$f" ] && cp "$f" "$TPL/$(echo "$f" | tr '/' '_')"
done
# style:torch:cuda, from `envkit template list` (a pip and a conda-forge row of 2.13, and older ones)
for v in pip:2.13:12.6 pip:2.13:13.0 pip:2.13:13.2 conda-forge:2.13:12.9 conda-forge:2.13:13.0 \
         pip:2.7:11.8 pip:2.7:12.8 pip:2.4:11.8 pytorch-channel:2.4:12.1; do
    IFS=: read -r style torch cuda <<< "$v"
    out="$TPL/template-$style-$torch-cu${cuda/./}.yml"
    "${ENVKIT[@]}" template pytorch --style "$style" --torch "$torch" --cuda "$cuda" -o "$out" >>"$LOG" 2>&1 \
        || { say "template $v failed"; rm -f "$out"; }
done
"${ENVKIT[@]}" template pytorch --detect -o "$TPL/template-detect.yml" >>"$LOG" 2>&1
for f in "$TPL"/*.yml; do
    [ -f "$f" ] || continue
    run "check-$(basename "${f%.yml}").txt" "${ENVKIT[@]}" check "$f" --machine host \
        --select machine-platform,machine-virtual-package,machine-cuda-driver,machine-gpu-arch,machine-wheel-tag
done
say "done: $(ls "$DEST" | tr '\n' ' ')"
exit $status
