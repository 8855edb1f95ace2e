#!/usr/bin/env python3
"""mutate.py — finds tests that cannot fail: applies one small mutation at a
time to a source file, rebuilds the unit test(s) that cover it, runs them,
and reports the mutants no test noticed ("survivors").

    scripts/mutate.py src/sandbox/shell.c --test test_sandbox_shell
    scripts/mutate.py src/tools/patch.c --test test_tools_patch --max 40 --seed 1
    scripts/mutate.py FILE --test T --list          # the mutants, without running

Mutations (one per mutant): flip a comparison (== != < <= > >=), drop a
logical `!`, swap `&&` and `||`, replace a returned value (true/false,
0/-1, NULL), delete a statement line. Mutants that do not compile are
counted apart and not scored. The file is edited in place and restored
after every mutant (and on Ctrl-C); the build directory (default build/)
must already be configured. It is slow (a rebuild per mutant), so it is not
part of ctest or CI; see tests/README.md.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMPARISONS = {"==": "!=", "!=": "==", "<=": ">", ">=": "<", "<": ">=", ">": "<="}
# A comparison operator standing alone (not part of <<, >>, ->, <=, an #include, …).
CMP_RE = re.compile(r"(?<![<>=!&|^+\-*/%-])(==|!=|<=|>=|<|>)(?![<>=])")
NOT_RE = re.compile(r"!(?!=)")
LOGIC_RE = re.compile(r"&&|\|\|")
RETURN_RE = re.compile(r"\breturn\s+(true|false|0|-1|1|NULL)\s*;")
RETURN_SWAP = {"true": "false", "false": "true", "0": "-1", "-1": "0", "1": "0", "NULL": "\"\""}


def strip_strings(line):
    """The line with string and char literals and comments blanked, so
    operators inside them are not mutated (same length, same columns)."""
    out, i, n = [], 0, len(line)
    while i < n:
        c = line[i]
        if c in "\"'":
            q, j = c, i + 1
            while j < n and line[j] != q:
                j += 2 if line[j] == "\\" else 1
            out.append(" " * (min(j, n - 1) - i + 1))
            i = j + 1
            continue
        if line.startswith("//", i) or line.startswith("/*", i):
            out.append(" " * (n - i))
            break
        out.append(c)
        i += 1
    return "".join(out)[:n]


def candidates(lines):
    """Every mutant of the file: (line index, column, old text, new text, kind)."""
    muts = []
    in_comment = False
    for idx, raw in enumerate(lines):
        s = raw.strip()
        if in_comment:
            if "*/" in s:
                in_comment = False
            continue
        if s.startswith("/*") and "*/" not in s:
            in_comment = True
            continue
        if not s or s.startswith(("#", "/*", "*", "//")):
            continue
        code = strip_strings(raw)
        for m in CMP_RE.finditer(code):
            op = m.group(1)
            # skip a template-looking or shift context and the `->` arrow
            if op in "<>" and (code[m.start() - 1:m.start()] == "-" or "#include" in code):
                continue
            muts.append((idx, m.start(), op, COMPARISONS[op], "comparison"))
        for m in NOT_RE.finditer(code):
            muts.append((idx, m.start(), "!", "", "drop-not"))
        for m in LOGIC_RE.finditer(code):
            muts.append((idx, m.start(), m.group(0), "||" if m.group(0) == "&&" else "&&", "logic"))
        for m in RETURN_RE.finditer(code):
            v = m.group(1)
            col = m.start(1)
            muts.append((idx, col, v, RETURN_SWAP[v], "return"))
        # delete a simple statement: a call or assignment ending with ';'
        if s.endswith(";") and not s.startswith(("return", "case", "default", "break", "continue",
                                                  "static", "const", "typedef", "}", "else")) \
                and ("(" in s or "=" in s) and not re.match(r"^[A-Za-z_][\w\s\*]*\s\**\w+\s*(=|\[|;)", s):
            muts.append((idx, 0, raw, "", "delete-line"))
    return muts


def apply(lines, mut):
    idx, col, old, new, kind = mut
    out = list(lines)
    if kind == "delete-line":
        out[idx] = "\n" if lines[idx].endswith("\n") else ""
    else:
        line = lines[idx]
        assert line[col:col + len(old)] == old, (line, col, old)
        out[idx] = line[:col] + new + line[col + len(old):]
    return out


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timeout"


def find_test_binary(build, name):
    for d in ("tests", "tests/unit", "."):
        p = os.path.join(build, d, name)
        if os.path.exists(p):
            return p
    sys.exit("mutate.py: no test binary %s under %s (build it first)" % (name, build))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="source file to mutate, e.g. src/sandbox/shell.c")
    ap.add_argument("--test", action="append", required=True, help="unit test target (repeatable)")
    ap.add_argument("--build", default="build", help="configured build directory (default build)")
    ap.add_argument("--max", type=int, default=40, help="mutants to try (sampled; default 40)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test run (default 60)")
    ap.add_argument("--list", action="store_true", help="print the sampled mutants and stop")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    path = os.path.join(ROOT, args.file)
    with open(path) as f:
        original = f.read()
    lines = original.splitlines(keepends=True)
    muts = candidates(lines)
    rnd = random.Random(args.seed)
    sample = sorted(rnd.sample(muts, min(args.max, len(muts))))
    if args.list:
        for m in sample:
            print("%s:%d %-12s %r -> %r" % (args.file, m[0] + 1, m[4], m[2].strip(), m[3]))
        print("%d candidates, %d sampled" % (len(muts), len(sample)))
        return 0

    build = os.path.join(ROOT, args.build)
    backup = path + ".mutate-orig"
    shutil.copyfile(path, backup)

    def restore(*_):
        shutil.copyfile(backup, path)
        os.remove(backup)
        if _:
            sys.exit(130)

    signal.signal(signal.SIGINT, restore)
    signal.signal(signal.SIGTERM, restore)
    results = []
    try:
        # The unmutated tests must pass, or every mutant would look killed.
        rc, out = run(["cmake", "--build", build, "--target"] + args.test, 600)
        if rc != 0:
            sys.exit("mutate.py: the unmutated build fails:\n" + out[-2000:])
        for t in args.test:
            rc, out = run([find_test_binary(build, t)], args.timeout)
            if rc != 0:
                sys.exit("mutate.py: %s fails before any mutation:\n%s" % (t, out[-2000:]))
        for n, m in enumerate(sample, 1):
            with open(path, "w") as f:
                f.writelines(apply(lines, m))
            t0 = time.time()
            rc, out = run(["cmake", "--build", build, "--target"] + args.test, 600)
            if rc != 0:
                status = "no-compile"
            else:
                status = "survived"
                for t in args.test:
                    trc, _ = run([find_test_binary(build, t)], args.timeout)
                    if trc != 0:  # a failure, a crash or a timeout (None)
                        status = "killed"
                        break
            results.append({"line": m[0] + 1, "kind": m[4], "from": m[2].strip(), "to": m[3],
                            "status": status, "source": lines[m[0]].strip()})
            print("[%2d/%d] %-10s %s:%d %-12s %r -> %r (%.0fs)" % (
                n, len(sample), status, args.file, m[0] + 1, m[4], m[2].strip()[:50], m[3],
                time.time() - t0), flush=True)
    finally:
        restore()
        run(["cmake", "--build", build, "--target"] + args.test, 600)

    scored = [r for r in results if r["status"] != "no-compile"]
    killed = sum(r["status"] == "killed" for r in scored)
    print("\n%s: %d mutants, %d did not compile, %d killed of %d scored (%.0f%%)" % (
        args.file, len(results), len(results) - len(scored), killed, len(scored),
        100.0 * killed / max(len(scored), 1)))
    surv = [r for r in scored if r["status"] == "survived"]
    if surv:
        print("survivors (no test noticed):")
        for r in surv:
            print("  %s:%d %s: %r -> %r   | %s" % (args.file, r["line"], r["kind"], r["from"],
                                                 r["to"], r["source"][:90]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"file": args.file, "tests": args.test, "seed": args.seed,
                       "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
