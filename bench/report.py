#!/usr/bin/env python3
"""report.py — turn bench/run's raw data into the Markdown report.

Usage: python3 bench/report.py RAW_DIR > report.md

RAW_DIR holds what bench/run collected:
  hf_version.json, hf_exec.json   hyperfine --export-json (wall time per run)
  m_<name>.tsv                    bench/measure.c lines: wall_us user_us sys_us maxrss_kib status
  t_<name>.txt                    /usr/bin/time -f %M lines (peak RSS, KiB)
  cg_<name>.out                   callgrind output files (instruction counts)
  meta.txt                        key=value lines describing the machine and the run

Every figure is a median over the runs. Python 3 standard library only.
"""

import json
import os
import re
import statistics
import subprocess
import sys

# The targets from the issue: (figure, limit, unit).
TARGETS = [
    ("`zero --version` wall time", "zero_version", "wall_ms", 3.0, "ms"),
    ("`zero --version` peak RSS", "zero_version", "rss_mib", 4.0, "MiB"),
    ("one-turn `zero exec` CPU (user+sys)", "zero_exec", "cpu_ms", 10.0, "ms"),
    ("one-turn `zero exec` peak RSS", "zero_exec", "rss_mib", 12.0, "MiB"),
]

LABELS = {
    "zero_version": "`zero --version`",
    "curl_version": "`curl --version` (same libcurl)",
    "true": "`/bin/true` (process floor)",
    "zero_exec": "`zero exec -o text hi` (one turn)",
    "curl_post": "`curl -sN` POST of the same body",
}

# Functions whose inclusive cost says where the time goes, if present.
CHECKPOINTS = [
    ("_dl_start", "dynamic loader before main (map + relocate shared libraries)"),
    ("main", "main() and everything it calls"),
    ("curl_version", "curl_version() (initialises OpenLDAP, which loads SASL plugins)"),
    ("curl_global_init", "curl_global_init() (OpenSSL init, config file load)"),
    ("OPENSSL_init_ssl", "OPENSSL_init_ssl()"),
    ("CONF_modules_load_file_ex", "OpenSSL reading openssl.cnf"),
    ("ldap_int_initialize", "OpenLDAP initialisation"),
    ("sasl_client_init", "Cyrus SASL plugin loading"),
    ("json_dump_callback", "jansson serialisation"),
    ("json_loadb", "jansson parsing (buffers)"),
    ("json_loads", "jansson parsing (strings)"),
    ("exit", "exit() (atexit handlers, library destructors)"),
]


def load_meta(raw):
    meta = {}
    path = os.path.join(raw, "meta.txt")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def hyperfine_medians(raw):
    out = {}
    for name in ("hf_version.json", "hf_exec.json"):
        path = os.path.join(raw, name)
        if not os.path.exists(path):
            continue
        for r in json.load(open(path))["results"]:
            out[r["command"]] = statistics.median(r["times"]) * 1000.0
    return out


def measure_medians(raw, name):
    rows = []
    path = os.path.join(raw, "m_%s.tsv" % name)
    if not os.path.exists(path):
        return None
    for line in open(path):
        f = line.split()
        if len(f) == 5:
            rows.append([int(x) for x in f])
    if not rows:
        return None
    bad = [r[4] for r in rows if r[4] != 0]
    return {
        "cpu_ms": statistics.median(r[1] + r[2] for r in rows) / 1000.0,
        "wait4_wall_ms": statistics.median(r[0] for r in rows) / 1000.0,
        "rss_mib": statistics.median(r[3] for r in rows) / 1024.0,
        "runs": len(rows),
        "failed": len(bad),
    }


def time_rss(raw, name):
    path = os.path.join(raw, "t_%s.txt" % name)
    if not os.path.exists(path):
        return None
    vals = [int(x) for x in open(path).read().split() if x.isdigit()]
    return statistics.median(vals) / 1024.0 if vals else None


def callgrind_total(path):
    for line in open(path, errors="replace"):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    return None


def callgrind_by_object(path):
    """Self cost (Ir) per shared object, read from the callgrind file itself:
    cost lines count for the current ob=, except the line after calls=, which
    is the inclusive cost of a call and belongs to the callee."""
    names = {}
    by_obj = {}
    ob = "?"
    skip = False

    def resolve(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?$", spec.strip())
        if not m:
            return spec.strip()
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "?")

    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            ob = resolve(line[3:])
        elif line.startswith("cob="):
            resolve(line[4:])  # registers a compressed name; does not change ob
        elif line.startswith("calls="):
            skip = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if skip:
                skip = False
                continue
            f = line.split()
            if len(f) >= 2:
                by_obj[ob] = by_obj.get(ob, 0) + int(f[1])
    return by_obj


def annotate(path, inclusive):
    """(Ir, file:function, object) rows from callgrind_annotate, best first."""
    try:
        txt = subprocess.run(
            ["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"),
             "--threshold=100", "--auto=no", path],
            capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    rows = []
    for line in txt.splitlines():
        if "=>" in line:  # a call line from source annotation, not a function
            continue
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?)(?: \[(.*)\])?$", line)
        if m and m.group(2) != "PROGRAM TOTALS":
            rows.append((int(m.group(1).replace(",", "")), m.group(2), m.group(3) or ""))
    return rows


def top_self(rows):
    """Merges callgrind_annotate's self-cost rows by function name: a function
    with inlined code from several source files is listed once per file, and
    only one of those lines names the object."""
    cost, obj = {}, {}
    for ir, fn, ob in rows:
        name = fn.split(":")[-1]
        cost[name] = cost.get(name, 0) + ir
        if ob and name not in obj:
            obj[name] = ob
    return sorted(((ir, fn, obj.get(fn, "")) for fn, ir in cost.items()), key=lambda r: -r[0])


def fmt_ms(v):
    return "%.2f ms" % v if v is not None else "n/a"


def fmt_mib(v):
    return "%.1f MiB" % v if v is not None else "n/a"


def fmt_ir(v):
    return "%.2f M" % (v / 1e6) if v is not None else "n/a"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return "%.2f×" % (a / b)


def main(raw):
    meta = load_meta(raw)
    hf = hyperfine_medians(raw)
    names = ["zero_version", "curl_version", "true", "zero_exec", "curl_post"]
    fig = {}
    for n in names:
        m = measure_medians(raw, n) or {}
        cg = os.path.join(raw, "cg_%s.out" % n)
        fig[n] = {
            "wall_ms": hf.get(n),
            "cpu_ms": m.get("cpu_ms"),
            "rss_mib": m.get("rss_mib"),
            "time_rss_mib": time_rss(raw, n),
            "ir": callgrind_total(cg) if os.path.exists(cg) else None,
            "failed": m.get("failed", 0),
        }

    p = print
    p("# zero benchmark: whole-process figures")
    p()
    p("Produced by `bench/run` on %s." % meta.get("date", "?"))
    p()
    p("- machine: %s × %s, kernel %s, Debian %s" % (
        meta.get("nproc", "?"), meta.get("cpu", "?"), meta.get("kernel", "?"),
        meta.get("debian", "?")))
    p("- binary: %s, commit %s, CMake build type %s" % (
        meta.get("zero", "?"), meta.get("commit", "?"), meta.get("build_type", "?")))
    p("- tools: %s, %s, %s" % (meta.get("hyperfine", "?"), meta.get("valgrind", "?"),
                                meta.get("curl", "?")))
    p("- runs: %s" % meta.get("runs", "?"))
    p()
    p("Every figure is the median over the runs. Wall time: hyperfine -N. CPU (user+sys)"
      " and peak RSS: wait4(2) of the one process (bench/measure.c), so the fake"
      " server's CPU is not counted (the kernel splits that sum into user and sys by"
      " tick sampling, so only the sum is reported). Ir: instructions executed,"
      " callgrind, one run: the figure to track for regressions.")
    p()
    p("## Targets")
    p()
    p("| figure | target | measured | result |")
    p("|---|---|---|---|")
    for label, n, key, limit, unit in TARGETS:
        v = fig[n][key]
        res = "n/a" if v is None else ("pass" if v < limit else "FAIL")
        shown = fmt_ms(v) if unit == "ms" else fmt_mib(v)
        p("| %s | < %g %s | %s | %s |" % (label, limit, unit, shown, res))
    p()
    p("## Figures")
    p()
    p("| command | wall | CPU user+sys | peak RSS | peak RSS (GNU time) | Ir |")
    p("|---|---|---|---|---|---|")
    for n in names:
        f = fig[n]
        p("| %s | %s | %s | %s | %s | %s |" % (
            LABELS[n], fmt_ms(f["wall_ms"]), fmt_ms(f["cpu_ms"]), fmt_mib(f["rss_mib"]),
            fmt_mib(f["time_rss_mib"]), fmt_ir(f["ir"])))
    failed = [n for n in names if fig[n]["failed"]]
    if failed:
        p()
        p("**Warning:** non-zero exit status in runs of: %s." % ", ".join(failed))
    p()
    p("## Ratios (zero / baseline; below 1 means zero is cheaper)")
    p()
    p("| pair | wall | CPU | peak RSS | Ir |")
    p("|---|---|---|---|---|")
    for a, b, label in (("zero_version", "curl_version", "`zero --version` / `curl --version`"),
                        ("zero_version", "true", "`zero --version` / `/bin/true`"),
                        ("zero_exec", "curl_post", "`zero exec` / `curl` POST"),
                        ("zero_exec", "zero_version", "`zero exec` / `zero --version`")):
        fa, fb = fig[a], fig[b]
        p("| %s | %s | %s | %s | %s |" % (
            label, ratio(fa["wall_ms"], fb["wall_ms"]), ratio(fa["cpu_ms"], fb["cpu_ms"]),
            ratio(fa["rss_mib"], fb["rss_mib"]), ratio(fa["ir"], fb["ir"])))

    for n in ("zero_version", "zero_exec"):
        cg = os.path.join(raw, "cg_%s.out" % n)
        if not os.path.exists(cg):
            continue
        total = fig[n]["ir"] or 1
        p()
        p("## Where the instructions go: %s" % LABELS[n])
        p()
        p("Self cost by shared object:")
        p()
        p("| object | Ir | share |")
        p("|---|---|---|")
        objs = sorted(callgrind_by_object(cg).items(), key=lambda kv: -kv[1])
        rest = 0
        for i, (ob, ir) in enumerate(objs):
            if i < 8:
                p("| %s | %s | %.1f%% |" % (os.path.basename(ob), fmt_ir(ir), 100.0 * ir / total))
            else:
                rest += ir
        if rest:
            p("| (others) | %s | %.1f%% |" % (fmt_ir(rest), 100.0 * rest / total))
        p()
        p("Inclusive cost of landmarks (callgrind_annotate --inclusive=yes):")
        p()
        p("| function | what | Ir | share |")
        p("|---|---|---|---|")
        incl = annotate(cg, True)
        for fn, what in CHECKPOINTS:
            best = max((r[0] for r in incl if r[1].split(":")[-1] == fn), default=None)
            if best:
                p("| `%s` | %s | %s | %.1f%% |" % (fn, what, fmt_ir(best), 100.0 * best / total))
        p()
        p("Top functions by self cost (callgrind_annotate):")
        p()
        p("| Ir | share | function | object |")
        p("|---|---|---|---|")
        for ir, fn, ob in top_self(annotate(cg, False))[:10]:
            p("| %s | %.1f%% | `%s` | %s |" % (fmt_ir(ir), 100.0 * ir / total, fn,
                                               os.path.basename(ob)))
    p()
    p("Raw data: bench/results/latest/ (hyperfine JSON, per-run wait4 lines, callgrind"
      " files: open them with callgrind_annotate or kcachegrind).")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: report.py RAW_DIR")
    main(sys.argv[1])
