#!/usr/bin/env bash
# Builds every libFuzzer target with clang and runs each for a short, bounded
# time over its saved corpora (tests/fuzz/corpora.txt and tests/fuzz/corpus/),
# so a crash that new code makes easy to find fails CI. The budget is split
# evenly: FUZZ_SECONDS in all (default 60), at least 2 s a target.
#
# New inputs libFuzzer finds go to a scratch directory, never into the
# checked-in corpora. A crash leaves its input in $FUZZ_BUILD/crashes/; once
# the bug is fixed, copy that file into tests/fuzz/corpus/<target>/ so the
# ordinary ctest run (fuzz/<target>) replays it from then on.
#
# Usage: scripts/fuzz-smoke.sh [TARGET...]   (default: every fuzz_*.c)
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz-smoke: clang is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$src" .c)"); done
fi

cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DZERO_FUZZ=ON -DZERO_TESTS=OFF -DZERO_WERROR=ON >/dev/null
cmake --build "$FUZZ_BUILD" -j "$JOBS" --target "${targets[@]}"

per=$(( FUZZ_SECONDS / ${#targets[@]} ))
[ "$per" -lt 2 ] && per=2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$FUZZ_BUILD/crashes"

failed=()
for t in "${targets[@]}"; do
  corpora=()
  while read -r name dir; do
    [ "$name" = "$t" ] && corpora+=("$dir")
  done < <(grep -v '^#' tests/fuzz/corpora.txt)
  [ -d "tests/fuzz/corpus/$t" ] && corpora+=("tests/fuzz/corpus/$t")
  mkdir -p "$scratch/$t"
  log="$FUZZ_BUILD/crashes/$t.log"
  echo "fuzz-smoke: $t for ${per}s over ${corpora[*]:-no saved corpus}"
  # The first corpus directory is the one libFuzzer writes to: the scratch one.
  if ! "$FUZZ_BUILD/tests/fuzz/$t" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=0 -artifact_prefix="$FUZZ_BUILD/crashes/$t-" \
       "$scratch/$t" "${corpora[@]}" >"$log" 2>&1; then
    echo "fuzz-smoke: $t FAILED; the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-smoke: ${#failed[@]} target(s) found a crash: ${failed[*]}" >&2
  echo "fuzz-smoke: inputs are in $FUZZ_BUILD/crashes/; fix, then add each to tests/fuzz/corpus/<target>/" >&2
  exit 1
fi
echo "fuzz-smoke: ${#targets[@]} targets, ${per}s each, no crash"
