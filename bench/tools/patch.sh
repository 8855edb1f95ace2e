#!/usr/bin/env bash
# bench/tools/patch.sh — apply_patch of a 1,000-hunk patch to a 50,000-line
# file (target: under 50 ms), next to GNU patch applying the same change as a
# unified diff. Both run as whole processes under hyperfine; the file is
# restored before every run.
#
# Usage: bench/tools/patch.sh [--quick]
# Needs: hyperfine, GNU patch, python3, a built zero.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ZERO=${ZERO:-$ROOT/${BUILD:-build}/zero}
RUNS=20; [ "${1:-}" = "--quick" ] && RUNS=5
[ -x "$ZERO" ] || { echo "build zero first (make build)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/zero-bench-patch-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
python3 - <<'PY'
lines = ["line %05d: value = compute(%d);" % (i, i) for i in range(50000)]
open("big.orig", "w").write("\n".join(lines) + "\n")
out = ["*** Begin Patch", "*** Update File: big.txt"]
new = list(lines)
for h in range(1000):
    i = h * 50 + 25
    out.append("@@")
    out += [" " + lines[i - 2], " " + lines[i - 1], "-" + lines[i], "+" + lines[i].replace("compute", "recompute"),
            " " + lines[i + 1], " " + lines[i + 2]]
    new[i] = lines[i].replace("compute", "recompute")
out.append("*** End Patch")
open("change.patch", "w").write("\n".join(out) + "\n")
open("big.want", "w").write("\n".join(new) + "\n")
PY
cp big.orig big.txt
diff -u --label a/big.txt --label b/big.txt big.orig big.want > change.diff || true
"$ZERO" tools run apply_patch - --permission-mode auto < change.patch >/dev/null
cmp big.txt big.want && echo "apply_patch result verified (1000 hunks, 50000 lines)"
cp big.orig big.txt
# hyperfine's shell start-up is measured and subtracted; stdin comes by redirection.
hyperfine --warmup 3 --runs "$RUNS" --prepare "cp big.orig big.txt" \
  -n "zero apply_patch (1000 hunks)" "$ZERO tools run apply_patch - --permission-mode auto < change.patch" \
  -n "GNU patch -p1 (same change)" "patch -s -p1 < change.diff" \
  --export-markdown "$TMP/r.md" >/dev/null
cat "$TMP/r.md"
