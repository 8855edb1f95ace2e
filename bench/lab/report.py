#!/usr/bin/env python3
"""report.py — turns a lab run (results.json + meta.json + series-*.tsv) into
the generated part of docs/PERFORMANCE.md and its gnuplot charts.

Usage: report.py RESULTS_DIR DOC.md CHART_DIR

Only the text between the markers `<!-- lab:begin -->` and
`<!-- lab:end -->` of DOC.md is replaced (inserted after the title when the
markers are missing); the hand-written explanations around it stay as they
are. Charts are PNG files written by gnuplot (Debian's gnuplot-nox) into
CHART_DIR. Python 3 standard library only.
"""

import json
import os
import statistics
import subprocess
import sys

BEGIN, END = "<!-- lab:begin -->", "<!-- lab:end -->"
SCENARIO_TITLES = {
    "version": "(a) `--version` (start-up)",
    "one_turn": "(b) one-turn answer",
    "task": "(c) 20-turn task (shell, reads, patches)",
    "big_output": "(d) one 2 MiB tool output",
    "sandbox": "(e) `true` through the agent's sandbox",
    "long": "long session (memory over time)",
}
METRICS = [("wall_us", "wall", 1e3, "ms"), ("cpu_us", "CPU user+sys", 1e3, "ms"),
           ("peak_rss_kb", "peak RSS", 1024, "MiB")]
# Targets of the issue, against the best peer in the same run.
TARGETS = [("task", "cpu_us", 10, "≥ 10× less CPU on the 20-turn task"),
           ("task", "peak_rss_kb", 10, "≥ 10× less peak RSS on the 20-turn task"),
           ("version", "wall_us", 5, "≥ 5× faster start-up")]


def med(runs, key):
    return statistics.median(r[key] for r in runs)


def spread(runs, key, scale):
    v = sorted(r[key] / scale for r in runs)
    return "%s–%s" % (fmt(v[0]), fmt(v[-1]))


def fmt(x):
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.2f" % x


def ok_runs(res):
    return [a for a, r in res.items() if r.get("runs") and "failed" not in r]


def best_peer(res, key):
    peers = [(med(res[a]["runs"], key), a) for a in ok_runs(res) if a != "zero"]
    return min(peers) if peers else (None, None)


def gnuplot(script, chart_dir):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True, cwd=chart_dir,
                       capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("report: gnuplot failed (%s); charts skipped\n" % e)
        return False


def chart_task(results, chart_dir):
    res = results["scenarios"].get("task", {})
    agents = ok_runs(res)
    if not agents:
        return None
    data = os.path.join(chart_dir, "task.dat")
    with open(data, "w") as f:
        for a in agents:
            f.write('"%s" %.3f %.3f\n' % (a, med(res[a]["runs"], "cpu_us") / 1e6,
                                           med(res[a]["runs"], "peak_rss_kb") / 1024))
    script = """
set terminal pngcairo size 900,380 font "Sans,10" noenhanced
set output "task.png"
set multiplot layout 1,2 title "20-turn task, whole process tree, median of runs (lower is better)"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set grid ytics
unset key
set yrange [0:*]
set title "CPU user+sys (s)"
plot "task.dat" using 2:xtic(1) linecolor rgb "#3465a4", '' using 0:2:(sprintf("%.2f",$2)) with labels offset 0,0.7 notitle
set title "peak RSS (MiB)"
plot "task.dat" using 3:xtic(1) linecolor rgb "#cc0000", '' using 0:3:(sprintf("%.0f",$3)) with labels offset 0,0.7 notitle
unset multiplot
"""
    if gnuplot(script.replace("pngcairo", "png") if not has_cairo() else script, chart_dir):
        os.remove(data)
        return "task.png"
    return None


_cairo = None


def has_cairo():
    global _cairo
    if _cairo is None:
        try:
            r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
            _cairo = "pngcairo" in (r.stdout + r.stderr)
        except OSError:
            _cairo = False
    return _cairo


def chart_long(results, rdir, chart_dir):
    res = results["scenarios"].get("long", {})
    lines = []
    for a in ok_runs(res):
        series = os.path.join(rdir, "series-%s.tsv" % a)
        run = res[a]["runs"][0]
        times = sorted(run.get("request_times") or [])
        if not os.path.exists(series) or not times:
            continue
        start = None
        rows = []
        with open(series) as f:
            for line in f:
                if line.startswith("# start_unix"):
                    start = float(line.split()[2])
                    continue
                ms, rss, _procs = line.split()
                t = start + float(ms) / 1000.0
                # The turn a sample belongs to: scripted requests made so far.
                turn = sum(1 for x in times if x <= t)
                rows.append((turn, int(rss) / 1024))
        if not rows:
            continue
        # The highest sample of each turn (a chart of ~100 points per agent).
        by_turn = {}
        for turn, mib in rows:
            by_turn[turn] = max(by_turn.get(turn, 0), mib)
        dat = os.path.join(chart_dir, "long-%s.dat" % a)
        with open(dat, "w") as f:
            for turn in sorted(by_turn):
                if turn >= 1:
                    f.write("%d %.2f\n" % (turn, by_turn[turn]))
        lines.append((a, dat))
    if not lines:
        return None
    plots = ", ".join('"%s" using 1:2 with lines linewidth 2 title "%s"' % (os.path.basename(d), a)
                      for a, d in lines)
    term = "pngcairo" if has_cairo() else "png"
    script = """
set terminal %s size 900,380 font "Sans,10" noenhanced
set output "long-session.png"
set title "Memory over a %d-turn session: whole-tree RSS, highest sample per model turn"
set xlabel "model turn"
set ylabel "RSS (MiB)"
set grid
set key left top
set logscale y
plot %s
""" % (term, results.get("long_turns", 0), plots)
    ok = gnuplot(script, chart_dir)
    for _, d in lines:
        os.remove(d)
    return "long-session.png" if ok else None


def render(results, meta, rdir, chart_dir, doc_dir):
    out = []
    w = out.append
    rel = os.path.relpath(chart_dir, doc_dir)
    sc = results["scenarios"]
    w("## The lab: zero side by side with the agents people use\n")
    w("Generated by `bench/lab/run` (`make bench`) on %s; do not edit between the "
      "`lab:` markers — rerun the lab instead. Every agent runs against the same loopback "
      "fake model server, with the same scripted model turns translated into its own tools "
      "and wire protocol, in a network namespace with no route out. Figures are medians of "
      "%d runs after %d warm-up (an agent whose warm-up took over 20 s gets 3; the "
      "*runs* column says), the agents interleaved round by round; the range is "
      "min–max. CPU and peak RSS are of the whole process tree (the agent and every "
      "process it spawns, the fake server excluded).\n" %
      (meta.get("date", "?"), results["runs"], results["warmup"]))
    # The verdict first.
    w("### At a glance\n")
    w("Ratios best peer / zero (how many times more the best peer in the same run needs; "
      "above 1 zero is cheaper):\n")
    w("| scenario | wall | CPU | peak RSS | best peer (by CPU) |")
    w("|---|---|---|---|---|")
    for key in ["version", "one_turn", "task", "big_output", "sandbox"]:
        res = sc.get(key)
        if not res or "zero" not in ok_runs(res):
            continue
        cells = []
        for m, _, _, _ in METRICS:
            b, who = best_peer(res, m)
            z = med(res["zero"]["runs"], m)
            cells.append("**%.0f×** (%s)" % (b / z, who) if b and z else "—")
        _, who = best_peer(res, "cpu_us")
        w("| %s | %s | %s |" % (SCENARIO_TITLES[key], " | ".join(cells), who or "none ran"))
    w("")
    w("Targets of issue 9 (against the best peer in the same run):\n")
    w("| target | measured | result |")
    w("|---|---|---|")
    for key, m, want, text in TARGETS:
        res = sc.get(key, {})
        if "zero" not in ok_runs(res):
            w("| %s | zero did not run | — |" % text)
            continue
        b, who = best_peer(res, m)
        if b is None:
            w("| %s | no peer completed it | — |" % text)
            continue
        r = b / med(res["zero"]["runs"], m)
        w("| %s | %.0f× (vs %s) | %s |" % (text, r, who, "pass" if r >= want else "**not met**"))
    task = sc.get("task", {})
    outcome = ", ".join("%s %s" % (a, "failed" if "failed" in r else "identical files")
                        for a, r in task.items() if "runs" in r or "failed" in r)
    w("| equal task outcome | %s | %s |" % (
        outcome or "—", "pass" if task and all("failed" not in r for r in task.values()
                                                if "not_comparable" not in r) else "see below"))
    cg = results.get("callgrind", {})
    if cg.get("task", {}).get("ir") and cg.get("one_turn", {}).get("ir") and \
            "zero" in ok_runs(sc.get("one_turn", {})):
        turns = results.get("task_turns", 20)
        per_turn_ir = (cg["task"]["ir"] - cg["one_turn"]["ir"]) / (turns - 1)
        # Instructions → time at the rate zero ran the one-turn scenario here.
        rate = cg["one_turn"]["ir"] / med(sc["one_turn"]["zero"]["runs"], "cpu_us")
        est = per_turn_ir / rate / 1000
        w("| zero's own CPU per turn < 1 ms | %.2f M instructions per extra turn ≈ %.2f ms | %s |"
          % (per_turn_ir / 1e6, est, "pass" if est < 1 else "**not met**"))
    w("")
    charts = []
    t = chart_task(results, chart_dir)
    if t:
        charts.append("![20-turn task: CPU and peak RSS per agent](%s/%s)" % (rel, t))
    lg = chart_long(results, rdir, chart_dir)
    if lg:
        charts.append("![memory over a long session](%s/%s)" % (rel, lg))
    for c in charts:
        w(c + "\n")
    # Every scenario in full.
    w("### Figures per scenario\n")
    for key in ["version", "one_turn", "task", "big_output", "sandbox", "long"]:
        res = sc.get(key)
        if not res:
            continue
        w("**%s**\n" % SCENARIO_TITLES[key])
        w("| agent | runs | wall ms | CPU ms | peak RSS MiB | processes | zero ÷ agent (CPU) |")
        w("|---|---|---|---|---|---|---|")
        z = med(res["zero"]["runs"], "cpu_us") if "zero" in ok_runs(res) else None
        for a, r in res.items():
            if "not_comparable" in r:
                w("| %s | — | not comparable: %s | | | | |" % (a, r["not_comparable"]))
            elif "failed" in r:
                w("| %s | — | **failed**: %s | | | | |" % (a, r["failed"].replace("|", "/")
                                                         .replace("\n", " ")[:300]))
            elif r.get("runs"):
                runs = r["runs"]
                cells = ["%s (%s)" % (fmt(med(runs, k) / s), spread(runs, k, s))
                         for k, _, s, _ in METRICS]
                ratio = "%.3f" % (z / med(runs, "cpu_us")) if z else "—"
                w("| %s | %d | %s | %d | %s |" % (a, len(runs), " | ".join(cells),
                                              max(x["procs"] for x in runs), ratio))
        w("")
    if cg:
        w("### Instruction counts (zero's own process, callgrind)\n")
        w("Deterministic to well under 1 %; the figures `bench/lab/run --guard` holds zero to "
          "(baseline: `bench/lab/baseline-ir.json`). Child processes (the sandbox, the shell) "
          "are not counted here.\n")
        w("| scenario | instructions |")
        w("|---|---|")
        for key, c in cg.items():
            w("| %s | %s |" % (SCENARIO_TITLES.get(key, key),
                               "%.2f M" % (c["ir"] / 1e6) if c.get("ir") else "failed"))
        w("")
    w("### Machine and versions\n")
    w("| | |")
    w("|---|---|")
    for k in ["cpu", "nproc", "kernel", "os", "build", "gnuplot", "valgrind", "node"]:
        if k in meta:
            w("| %s | %s |" % (k, meta[k]))
    for a, st in results["agents"].items():
        w("| %s | %s |" % (a, st["version"] if st["available"] else "not available: "
                           + st["reason"]))
    w("")
    return "\n".join(out)


def main(argv):
    rdir, doc, chart_dir = argv
    with open(os.path.join(rdir, "results.json")) as f:
        results = json.load(f)
    meta = {}
    mp = os.path.join(rdir, "meta.json")
    if os.path.exists(mp):
        with open(mp) as f:
            meta = json.load(f)
    os.makedirs(chart_dir, exist_ok=True)
    body = render(results, meta, rdir, chart_dir, os.path.dirname(os.path.abspath(doc)))
    text = open(doc).read() if os.path.exists(doc) else "# Performance\n"
    block = BEGIN + "\n" + body + "\n" + END
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        head, sep, rest = text.partition("\n")
        text = head + sep + "\n" + block + "\n" + rest
    with open(doc, "w") as f:
        f.write(text)
    print(body)


if __name__ == "__main__":
    main(sys.argv[1:])
