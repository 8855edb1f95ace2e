#!/usr/bin/env bash
# bench/tools/exec.sh — exec_command's overhead over a bare fork/exec (see
# exec_overhead.c). Links the benchmark against $BUILD/libzerocore.a.
# Usage: bench/tools/exec.sh [RUNS]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
[ -f "$ROOT/$BUILD/libzerocore.a" ] || { echo "build zero first (make build)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/zero-bench-exec-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -D_GNU_SOURCE -I"$ROOT/src" "$ROOT/bench/tools/exec_overhead.c" "$ROOT/$BUILD/libzerocore.a" \
  $(pkg-config --libs jansson libpcre2-8) -lpthread -ldl -lm -o "$TMP/exec_overhead"
"$TMP/exec_overhead" "${1:-300}"
