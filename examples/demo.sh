#!/usr/bin/env bash
# `make demo`: envkit on the files shipped in examples/, offline.
set -euo pipefail
ENVKIT=${1:-envkit}
cd "$(dirname "$0")"
echo "\$ envkit --version"
"$ENVKIT" --version
