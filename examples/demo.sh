#!/usr/bin/env bash
# `make demo`: envkit's main jobs on the files shipped in examples/, offline.
# Usage: examples/demo.sh [path-to-envkit]
set -uo pipefail
ENVKIT=${1:-envkit}
cd "$(dirname "$0")/.."
export NO_COLOR=${NO_COLOR:-}
# scratch files go to a private temp dir, removed on exit (never a fixed /tmp path)
out=$(mktemp -d "${TMPDIR:-/tmp}/envkit-demo.XXXXXX")
trap 'rm -rf "$out"' EXIT

if [ -t 1 ] && [ -z "${NO_COLOR}" ]; then B=$'\033[1m'; R=$'\033[0m'; else B=; R=; fi
step() { printf '\n%s$ envkit %s%s\n' "$B" "$*" "$R"; "$ENVKIT" "$@"; printf '(exit %s)\n' "$?"; }

echo "envkit demo: a laptop (osx-arm64, CPU) and a server (linux-64, CUDA) export of one project."
step --version
step validate examples/laptop-vs-server/laptop.yml examples/laptop-vs-server/server.yml
step normalize examples/laptop-vs-server/server.yml -o "$out/server.normalized.yml"
echo "(normalized copy written to a temp dir, removed when the demo ends; the original is untouched)"
step normalize --check examples/pytorch/environment-cuda.yml
step diff examples/laptop-vs-server/laptop.yml examples/laptop-vs-server/server.yml
step check examples/laptop-vs-server/laptop.yml examples/laptop-vs-server/server.yml
step template pytorch --torch 2.7 --cuda 12.6
step template pytorch --torch 2.7 --cuda 12.1
echo
echo "Done. Next: 'envkit lock -p PREFIX', 'envkit smoke -p PREFIX', docs/ for every command."
