#!/usr/bin/env bash
# bench/tools/search.sh — zero's grep and glob tools next to ripgrep (rg) on a
# large tree, warm and cold page cache, after checking both give identical
# results.
#
# The tree is /usr/include + /usr/share/doc copied into a git repository
# (the .gitignore there is honoured by both). zero runs as `zero tools run`,
# i.e. with process start-up, argument checking, redaction and the output
# budget included; rg runs with the equivalent flags. When zero's output was
# cut to its budget, the comparison uses the full text it spilled to a file.
#
# Usage: bench/tools/search.sh [--quick] [--cold]
#   --quick  fewer runs;  --cold  also measure with the page cache dropped
#            before every run (needs root; slows the machine for everyone).
# Needs: hyperfine, rg, a built zero ($BUILD/zero, default build/zero).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ZERO=${ZERO:-$ROOT/${BUILD:-build}/zero}
RUNS=10; COLD=0
for a in "$@"; do
  case $a in --quick) RUNS=3 ;; --cold) COLD=1 ;; *) echo "unknown option $a" >&2; exit 2 ;; esac
done
command -v rg >/dev/null || { echo "install ripgrep (apt-get install ripgrep)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "install hyperfine" >&2; exit 1; }
[ -x "$ZERO" ] || { echo "build zero first (make build)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/zero-bench-search-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
TREE=$TMP/tree
mkdir -p "$TREE"
cp -r /usr/include "$TREE/include"
cp -r /usr/share/doc "$TREE/doc" 2>/dev/null || true
(cd "$TREE" && git init -q . && printf '*.gz\nlinux/\n' > .gitignore)
echo "tree: $(find "$TREE" -type f -not -path '*/.git/*' | wc -l) files, $(du -sh "$TREE" | cut -f1)"

# Full result text of a zero run: the output, or its spill file when cut.
zero_full() {
  local out spill
  out=$(cd "$TREE" && "$ZERO" tools run "$@" || true)
  spill=$(printf '%s\n' "$out" | { grep -o 'The full output is in [^;]*' || true; } | sed 's/The full output is in //' | head -1)
  if [ -n "$spill" ]; then cat "$spill"; rm -f "$spill"; else printf '%s\n' "$out"; fi
}

check() { # name, zero args…, --, rg command
  local name=$1; shift
  local zargs=() ; while [ "$1" != "--" ]; do zargs+=("$1"); shift; done; shift
  zero_full "${zargs[@]}" | grep -v '^\[showing' | LC_ALL=C sort > "$TMP/ours"
  (cd "$TREE" && eval "$*") | LC_ALL=C sort > "$TMP/theirs"
  if cmp -s "$TMP/ours" "$TMP/theirs"; then
    echo "identical: $name ($(wc -l < "$TMP/ours") lines)"
  else
    echo "DIFFERENT: $name"; diff "$TMP/ours" "$TMP/theirs" | head -20; exit 1
  fi
}

LIT='{"pattern":"static inline","output_mode":"count","head_limit":100000}'
RE='{"pattern":"struct [a-z_]+_ops \\{","output_mode":"count","head_limit":100000}'
GLOB='{"pattern":"**/*.h","limit":1000}'
check "grep literal" grep "$LIT" -- "rg -c 'static inline'"
check "grep regex" grep "$RE" -- "rg -c 'struct [a-z_]+_ops \{'"
zero_full glob '{"pattern":"**/*.h","limit":1000}' | grep -v '^\[showing' | wc -l | xargs echo "glob **/*.h shows (limit 1000):"
(cd "$TREE" && rg --files -g '*.h' | wc -l) | xargs echo "rg --files -g '*.h' total:"

cd "$TREE"
run() {
  hyperfine -N --warmup 2 --runs "$RUNS" --export-markdown "$TMP/$1.md" "${@:2}" >/dev/null
  cat "$TMP/$1.md"; echo
}
echo; echo "## warm cache"
run lit -n "zero grep literal" "$ZERO tools run grep '$LIT'" -n "rg -c literal" "rg -c 'static inline'"
run re -n "zero grep regex" "$ZERO tools run grep '$RE'" -n "rg -c regex" "rg -c 'struct [a-z_]+_ops \{'"
run glob -n "zero glob **/*.h" "$ZERO tools run glob '$GLOB'" -n "rg --files -g *.h" "rg --files -g '*.h'"
if [ "$COLD" = 1 ]; then
  echo "## cold cache (page cache dropped before each run)"
  DROP='sync; echo 3 > /proc/sys/vm/drop_caches'
  hyperfine --prepare "$DROP" --runs 3 --export-markdown "$TMP/cold.md" \
    -n "zero grep literal" "$ZERO tools run grep '$LIT'" -n "rg -c literal" "rg -c 'static inline'" \
    -n "zero glob" "$ZERO tools run glob '$GLOB'" -n "rg --files" "rg --files -g '*.h'" >/dev/null
  cat "$TMP/cold.md"
fi
