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

import bisect
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sessionslab  # noqa: E402
from capslab import BATCH_ROWS, SWARM_ROWS  # noqa: E402  (the peers' row names)

BEGIN, END = "<!-- lab:begin -->", "<!-- lab:end -->"
SCENARIO_TITLES = {
    "version": "(a) `--version` (start-up)",
    "one_turn": "(b) one-turn answer",
    "task": "(c) 20-turn task (shell, reads, patches)",
    "task_cheap": "(c2) 20-turn task with cheap commands (`true`, `cat`, small greps, reads)",
    "big_output": "(d) one 2 MiB tool output",
    "sandbox": "(e) `true` through the agent's sandbox",
    "search_turn": "(f) search turn: the files that mention a word (own tool, 29,000 files)",
    "long": "long session (memory over time)",
    "long_sub": "long session with a sub-agent round trip every 10 turns (memory over time)",
    "search": "(f) zero's `grep` tool alone, literal → file list, 29,000-file tree",
    "subagent": "(h) sub-agent round trip (delegate, the child answers, the parent answers)",
    "hook": "(i) no-op hook before each of 10 tool calls",
}
# The capability scenarios measured by capslab.py (not one command per agent).
CAPS_TITLES = {
    "egress": "(j) 100 MiB download through zero's egress proxy vs direct",
    "mcp_http": "(k) `zero serve --mcp --http` under load",
    "batch": "(l) a batch of 64 one-turn tasks, 8 at once",
    "swarm": "(m) an 8-member swarm: memory of the whole tree while all eight wait",
}
GLANCE = ["version", "one_turn", "task", "task_cheap", "big_output", "sandbox", "search_turn",
          "subagent"]
REGRESSION = 0.10  # (g): a change above this against the previous record is flagged
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
    """(figure, name) of the peer that needs least; rows that are not peers
    (the Codex npm launcher, a run without its hook) never count."""
    peers = [(med(res[a]["runs"], key), a) for a in ok_runs(res)
             if a != "zero" and not res[a].get("not_peer")]
    return min(peers) if peers else (None, None)


def floor_of(results, sc="task"):
    fl = (results.get("floors") or {}).get(sc)
    if fl is None and sc == "task":
        fl = results.get("task_floor")
    return fl


def floor_runs(results, sc="task"):
    """The measured runs of a task's bare-commands floor, or None."""
    fl = floor_of(results, sc) or {}
    return fl.get("runs") if fl.get("runs") and "failed" not in fl else None


def task_overheads(results, sc="task"):
    """{agent: (CPU over the floor in µs, agent-side peak RSS in KiB, most
    command processes seen at one sample)} for the agents that completed
    the task, when the floor ran; each figure from the medians."""
    res = results["scenarios"].get(sc, {})
    fl = floor_runs(results, sc)
    if not fl:
        return {}
    f = med(fl, "cpu_us")
    out = {}
    for a in ok_runs(res):
        if res[a].get("not_peer"):
            continue
        runs = res[a]["runs"]
        own = med(runs, "own_rss_kb") if all("own_rss_kb" in x for x in runs) else None
        out[a] = (med(runs, "cpu_us") - f, own, max(x.get("cmd_procs", 0) for x in runs))
    return out


def overhead_ratio(ov, idx):
    """(best peer / zero, best peer) on the overhead figure idx, or (None, None)."""
    if "zero" not in ov or not ov["zero"][idx] or ov["zero"][idx] <= 0:
        return None, None
    peers = [(v[idx], a) for a, v in ov.items() if a != "zero" and v[idx] is not None]
    if not peers:
        return None, None
    b, who = min(peers)
    return b / ov["zero"][idx], who


FLOOR_TEXT = ("the task's %s shell commands alone, in order, each through "
              "`/bin/sh -c` in a fresh copy of the fixture (no agent, no sandbox, the patches "
              "applied between them), measured by treemeasure like the agents and interleaved "
              "with them, as many runs. File reads are not in it: agents read in-process "
              "(Codex with `cat` in its shell, its own choice, so that is its overhead)")


def render_task_floor(w, results, sc="task"):
    """The baseline row's explanation and the overhead table of a task."""
    fl = floor_of(results, sc)
    if fl is None:
        return
    n = "?"
    if fl.get("runs"):
        n = fl["runs"][0].get("commands", "?")
    w("The *bare commands* row is a baseline, not an agent: " + FLOOR_TEXT % n + ". Its CPU "
      "and wall are the sums over the commands, its peak RSS the largest command's. It is "
      "what running the task costs with no agent at all, the same for every agent.\n")
    ov = task_overheads(results, sc)
    if not ov:
        return
    f = floor_runs(results, sc)
    w("Each agent's overhead over that floor: CPU = the agent's tree CPU − the floor's "
      "(medians; %s ms). Peak RSS does not subtract (peaks of different moments), so the "
      "memory column is the agent's side of its tree: the sampled sum of VmRSS of the "
      "tree without the command processes — every process named like the task's "
      "commands (`%s`) and all their descendants — i.e. the agent itself plus its sandbox "
      "helpers. An agent's own processes with such a name (a shell it starts for itself) "
      "are left out too, which can only lower that agent's figure.\n" % (
          fmt(med(f, "cpu_us") / 1e3), ",".join(results.get("task_cmd_names") or [])))
    w("| agent | CPU over the floor ms | agent-side peak RSS MiB | command processes seen "
      "(most at one sample) |")
    w("|---|---|---|---|")
    for a, (cpu, own, ncmd) in ov.items():
        w("| %s | %s | %s | %s%s |" % (a, fmt(max(cpu, 0) / 1e3) if cpu >= 0 else
                                      "%.1f (below the floor)" % (cpu / 1e3),
                                      fmt(own / 1024) if own is not None else "—", ncmd,
                                      "" if ncmd else " (none: the figure may include them)"))
    w("")
    rc, wc = overhead_ratio(ov, 0)
    rm, wm = overhead_ratio(ov, 1)
    if rc or rm:
        w("Best peer / zero on the overhead: CPU %s, agent-side peak RSS %s.\n" % (
            "**%.1f×** (%s)" % (rc, wc) if rc else "—", "**%.1f×** (%s)" % (rm, wm) if rm else "—"))


def hook_costs(results):
    """{agent: CPU µs per tool call its no-op hook adds}: (median CPU with
    the hook − median without) / the number of calls, for every agent that
    ran both halves of (i)."""
    res = results["scenarios"].get("hook", {})
    n = results.get("hook_calls") or 10
    out = {}
    for a in ok_runs(res):
        off = a + " (no hook)"
        if res[a].get("not_peer") or off not in ok_runs(res):
            continue
        out[a] = (med(res[a]["runs"], "cpu_us") - med(res[off]["runs"], "cpu_us")) / n
    return out


def render_hook_note(w, results):
    hk = hook_costs(results)
    w("Each agent reads %d files (one tool call each) with a no-op hook before every "
      "tool call, and the same run without it (the *(no hook)* rows, interleaved): zero's "
      "`beforeTool` hook in `~/.config/zero/hooks.json` running `/bin/true`; Claude Code's "
      "`PreToolUse` hook (matcher `*`) running `true` through its shell. CPU per hook call "
      "= (with − without) / %d, medians: %s.\n" % (
          results.get("hook_calls") or 10, results.get("hook_calls") or 10,
          ", ".join("%s %s ms" % (a, fmt(v / 1e3) if v >= 0 else "%.2f" % (v / 1e3))
                    for a, v in hk.items()) or "—"))
    if any(v <= 0 for v in hk.values()):
        w("A difference at or below zero means the hook costs less than that agent's own "
          "run-to-run spread (the ranges above), not that it saves anything.\n")


def render_subagent_note(w, sc):
    one = sc.get("one_turn", {})
    st = sc["subagent"]
    cells = []
    for a in ok_runs(st):
        if a in ok_runs(one):
            d = med(st[a]["runs"], "cpu_us") - med(one[a]["runs"], "cpu_us")
            cells.append("%s %s ms" % (a, fmt(max(d, 0) / 1e3)))
    w("The model calls the agent's sub-agent tool once (zero `task` with the `general` "
      "specialist: a child `zero exec`; Claude Code `Agent` with `general-purpose`: a "
      "sub-agent in its own process; opencode `task` with the `general` agent: a child "
      "session inside its one process), the child answers in one turn, the parent answers. "
      "Whole tree, the child included. CPU over the one-turn answer (b), i.e. what the "
      "delegation and its two extra turns cost: %s.\n" % (
          ", ".join(cells) or "not given ((b) was not in this run)"))


def render_caps(w, results):
    """The capability scenarios of capslab.py, each a table of its rows."""
    for key, title in CAPS_TITLES.items():
        c = results.get(key)
        if not c:
            continue
        w("**%s**\n" % title)
        if "failed" in c:
            w("Failed: %s\n" % c["failed"].replace("\n", " ")[:400])
            continue
        if key == "egress":
            w("curl downloads %d MiB from a loopback HTTP server inside `zero sandbox exec`: "
              "with the network *scoped* (through zero's egress proxy, a thread of the zero "
              "process, to an allowed name mapped to 127.0.0.1 by ZERO_EGRESS_HOSTS) and with "
              "`--network` (the host's network, no proxy); curl with no sandbox is the floor. "
              "Whole tree: zero, bwrap, the inner stage, curl.\n" % (c.get("size", 0) >> 20))
        elif key == "mcp_http":
            w("`zero serve --mcp --http 0` on loopback; %d clients at once, each on its own "
              "connection and session, each making %d `tools/call` of `read_file` in a row. "
              "CPU and peak RSS are of the server process alone (its threads' schedstat, "
              "VmHWM), so the Python clients do not count; wall is the whole load.\n" % (
                  c.get("clients", 0), c.get("calls", 0)))
        elif key == "swarm":
            render_swarm(w, c)
            continue
        elif key == "batch":
            w("%d one-turn tasks, %d at once, against one fake server: `zero batch --local "
              "-j %d` (each task a `zero exec` worker) and, for each peer (none has a batch "
              "runner), `xargs -P %d` starting its headless run per task: `codex exec` and "
              "`claude -p`, each the native binary, all tasks in one workspace and one "
              "isolated home. Whole tree: the runner (or xargs) and every task.\n"
              % (c.get("tasks", 0), c.get("jobs", 0), c.get("jobs", 0), c.get("jobs", 0)))
        w("| row | runs | wall ms | CPU ms | peak RSS MiB | ratio to the first row (wall / CPU) |")
        w("|---|---|---|---|---|---|")
        first = None
        for name, r in c.get("rows", {}).items():
            if "failed" in r:
                w("| %s | — | **failed**: %s | | | |" % (name, r["failed"].replace(
                    "|", "/").replace("\n", " ")[:300]))
                continue
            runs = r.get("runs") or []
            if not runs:
                continue
            cells = ["%s (%s)" % (fmt(med(runs, k) / sc_), spread(runs, k, sc_))
                     for k, _, sc_, _ in METRICS]
            if first is None:
                first, ratio = runs, "1"
            else:
                ratio = "%.2f× / %.2f×" % (med(runs, "wall_us") / med(first, "wall_us"),
                                           med(runs, "cpu_us") / med(first, "cpu_us"))
            w("| %s | %d | %s | %s |" % (name, len(runs), " | ".join(cells), ratio))
        w("")
        if key == "mcp_http":
            runs = (c.get("rows", {}).get("zero serve --mcp --http") or {}).get("runs")
            if runs:
                w("Server CPU per call %s ms, %s calls per second (medians).\n" % (
                    fmt(med(runs, "cpu_per_call_us") / 1e3), fmt(med(runs, "calls_per_s"))))
        if key == "egress":
            rows = c.get("rows", {})
            p, d = rows.get("zero, scoped (egress proxy)"), rows.get("zero, --network (direct)")
            if p and d and p.get("runs") and d.get("runs"):
                w("Through the proxy ÷ direct: wall %.2f×, CPU %.2f× (the target is ≤ 1.10× "
                  "wall).\n" % (med(p["runs"], "wall_us") / med(d["runs"], "wall_us"),
                                med(p["runs"], "cpu_us") / med(d["runs"], "cpu_us")))
        if key == "batch":
            ratios = batch_ratios(c)
            if ratios:
                w("; ".join("%s ÷ zero: wall %.1f×, CPU %.1f×, peak RSS %.1f×" % ((who,) + r)
                            for who, r in ratios.items()) + ".\n")
        if c.get("note"):
            w(c["note"] + "\n")
        peers = c.get("peers") or {}
        if peers:
            w("The peers' equivalents: " + "; ".join("%s — %s" % (a, t) for a, t in peers.items())
              + ".\n")


def peer_ratios(c, zero_row, peer_rows, keys):
    """{peer: (figure peer ÷ zero for each of keys)} of a capability
    scenario's rows that ran: zero's row named zero_row, the peers' rows
    named by peer_rows ({peer: row name})."""
    rows = c.get("rows") or {}
    z = rows.get(zero_row)
    if not z or not z.get("runs") or "failed" in z:
        return {}
    out = {}
    for who, name in peer_rows.items():
        x = rows.get(name)
        if x and x.get("runs") and "failed" not in x:
            out[who] = tuple(med(x["runs"], k) / med(z["runs"], k) for k in keys)
    return out


def batch_ratios(c):
    """{peer: (wall, CPU, peak RSS) peer ÷ zero} of (l)'s rows that ran."""
    return peer_ratios(c, "zero batch --local -j 8", BATCH_ROWS,
                       ("wall_us", "cpu_us", "peak_rss_kb"))


def swarm_ratios(c):
    """{peer: (peak, steady) RSS peer ÷ zero} of (m)'s rows that ran."""
    return peer_ratios(c, "zero swarm of 8", SWARM_ROWS, ("peak_rss_kb", "steady_rss_kb"))


def glance_caps(w, results):
    """The at-a-glance rows of (l) and (m): the best peer (least CPU, least
    steady RSS) ÷ zero."""
    br = batch_ratios(results.get("batch") or {})
    if br:
        who = min(br, key=lambda a: br[a][1])
        w("| %s (`%s`) | %s | %s |" % (
            CAPS_TITLES["batch"], BATCH_ROWS[who], " | ".join(
                ("**%.0f×**" if r >= 10 else "**%.1f×**") % r for r in br[who]), who))
    sr = swarm_ratios(results.get("swarm") or {})
    if sr:
        who = min(sr, key=lambda a: sr[a][1])
        w("| %s (`%s`) — peak RSS / steady RSS | — | — | **%.1f×** / **%.1f×** | %s "
          "(by steady RSS) |" % (CAPS_TITLES["swarm"], SWARM_ROWS[who], sr[who][0],
                                 sr[who][1], who))


def render_swarm(w, c):
    """(m): RSS only (every member waits on a slow model: wall and CPU are
    not what it measures)."""
    w("zero's orchestrator (`zero exec`, `swarm.enabled`) spawns %d members (background "
      "`zero exec` children, a git worktree each) whose model turns are slow, so all wait at "
      "once; beside it, for each peer (none has a swarm), %d of its headless runs started "
      "side by side, each in its own isolated home, waiting the same way: `codex exec` and "
      "`claude -p`, each the native binary. Whole tree; peak from the start, steady the "
      "median while all "
      "wait. RSS counts a shared library's page once per process mapping it; PSS splits it "
      "between them (what the tree alone holds).\n" % (c.get("members", 0), c.get("members", 0)))
    w("| row | runs | peak RSS MiB | steady RSS MiB | steady PSS MiB | ratio to the first row "
      "(peak / steady) |")
    w("|---|---|---|---|---|---|")
    first = None
    for name, r in c.get("rows", {}).items():
        if "failed" in r:
            w("| %s | — | **failed**: %s | | | |" % (name, r["failed"].replace(
                "|", "/").replace("\n", " ")[:300]))
            continue
        runs = r.get("runs") or []
        if not runs:
            continue
        pk, st = med(runs, "peak_rss_kb") / 1024, med(runs, "steady_rss_kb") / 1024
        if first is None:
            first, ratio = (pk, st), "1"
        else:
            ratio = "%.1f× / %.1f×" % (pk / first[0], st / first[1])
        pss = fmt(med(runs, "steady_pss_kb") / 1024) if all(
            "steady_pss_kb" in x for x in runs) else "—"
        w("| %s | %d | %s | %s | %s | %s |" % (name, len(runs), fmt(pk), fmt(st), pss, ratio))
    w("")
    peers = c.get("peers") or {}
    if peers:
        w("The peers' equivalents: " + "; ".join("%s — %s" % (a, t) for a, t in peers.items())
          + ".\n")


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
        fl = floor_runs(results)
        if fl:  # the baseline, last and labelled as such
            f.write('"(no agent)" %.3f %.3f\n' % (med(fl, "cpu_us") / 1e6,
                                                    med(fl, "peak_rss_kb") / 1024))
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


def series_file(rdir, scenario, agent):
    """lab.py's series_name: where a long scenario's RSS samples are."""
    name = "series-%s.tsv" % agent if scenario == "long" else \
        "series-%s-%s.tsv" % (scenario, agent)
    return os.path.join(rdir, name)


def rss_by_turn(results, rdir, scenario):
    """{agent: {model turn: highest whole-tree RSS sample in MiB}} of a long
    scenario's run (turn ≥ 1: scripted requests made so far)."""
    res = results["scenarios"].get(scenario, {})
    out = {}
    for a in ok_runs(res):
        series = series_file(rdir, scenario, a)
        run = res[a]["runs"][0]
        times = sorted(run.get("request_times") or [])
        if not os.path.exists(series) or not times:
            continue
        start = None
        by_turn = {}
        with open(series) as f:
            for line in f:
                if line.startswith("# start_unix"):
                    start = float(line.split()[2])
                    continue
                ms, rss, _procs = line.split()
                t = start + float(ms) / 1000.0
                turn = bisect.bisect_right(times, t)
                if turn >= 1:
                    by_turn[turn] = max(by_turn.get(turn, 0), int(rss) / 1024)
        if by_turn:
            out[a] = by_turn
    return out


def rss_slope(by_turn):
    """(MiB per 100 turns, first MiB, last MiB) of a least-squares line
    through the per-turn highest samples of the second half of the session
    (the first half holds start-up and the context's growth to its working
    size), or None with fewer than 4 points there."""
    turns = sorted(by_turn)
    half = [t for t in turns if t > turns[-1] / 2]
    if len(half) < 4:
        return None
    xs, ys = half, [by_turn[t] for t in half]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0
    return slope * 100, by_turn[turns[0]], by_turn[turns[-1]]


def render_slopes(w, results, rdir):
    """The memory-over-time table of the long scenarios."""
    rows = []
    for scenario in ("long", "long_sub"):
        for a, by_turn in rss_by_turn(results, rdir, scenario).items():
            sl = rss_slope(by_turn)
            run = results["scenarios"][scenario][a]["runs"][0]
            kept = "%d of %d" % (run["results_kept"], run["tool_results"]) \
                if "results_kept" in run else "—"
            if sl:
                rows.append("| %s | %s | %d | %.1f | %.1f | %+.2f | %s |" % (
                    SCENARIO_TITLES[scenario], a, max(by_turn), sl[1], sl[2], sl[0], kept))
    if not rows:
        return
    w("**Memory over a long session** — whole-tree RSS, the highest sample of each model "
      "turn; the slope is a least-squares line through the second half of the session "
      "(MiB per 100 turns; flat is ≈ 0). Every tool result reached the model in the request "
      "after its call (the lab checks it); the last column is how many the last request "
      "still carries in full — what the agent's context management kept (zero replaces old "
      "file reads by a note, Claude Code compacts near its context window).\n")
    w("| session | agent | turns | RSS at turn 1 MiB | RSS at the end MiB | slope MiB / 100 "
      "turns | tool results in the last request |")
    w("|---|---|---|---|---|---|---|")
    for r in rows:
        w(r)
    w("")


def chart_long(results, rdir, chart_dir):
    lines = []
    for a, by_turn in rss_by_turn(results, rdir, "long").items():
        dat = os.path.join(chart_dir, "long-%s.dat" % a)
        with open(dat, "w") as f:
            for turn in sorted(by_turn):
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


def render_search_turn_note(w, sc):
    one = sc.get("one_turn", {})
    st = sc["search_turn"]
    cells = []
    for a in ok_runs(st):
        if a in ok_runs(one):
            d = med(st[a]["runs"], "cpu_us") - med(one[a]["runs"], "cpu_us")
            cells.append("%s %s ms" % (a, fmt(max(d, 0) / 1e3)))
    w("Each agent makes the call its model would: zero `grep` (file list), Codex "
      "`rg -l` in its shell (it has no search tool), Gemini CLI `grep_search` "
      "(`names_only`), opencode `grep` (which runs rg and lists at most 100 matching "
      "lines). The check: the tool result sent back to the model names only files that "
      "contain the word. CPU over the one-turn answer (b), i.e. the search and the "
      "extra turn: %s.\n" % (", ".join(cells) or "—"))


def render_search(w, results):
    search = results.get("search")
    if not search:
        return
    tree = search.get("tree") or results.get("search_tree") or {}
    w("**(f) zero's grep and glob tools against ripgrep**\n")
    if search.get("failed"):
        w("Not run: %s\n" % search["failed"])
        return
    w("The same generated tree (`bench/lab/searchtree.py`: %s files, %.0f MB in %s vendored "
      "libraries, a git repository whose .gitignore hides %s more files that also match), "
      "the same question, warm page cache. zero runs `zero tools run TOOL ARGS -C TREE` (the "
      "tool the model calls, with start-up, permission check, redaction and output budget); "
      "%s. Before timing, both answers are compared line by line; medians of the runs, "
      "interleaved, range min–max; **rg ÷ zero** above 1 means zero is cheaper.\n" % (
          "{:,}".format(tree.get("files", 0)), tree.get("bytes", 0) / 1e6,
          tree.get("libraries", "?"), "{:,}".format(tree.get("ignored_files", 0)),
          search.get("rg", "rg")))
    w("| query | matches | zero wall ms | rg wall ms | zero CPU ms | rg CPU ms | zero RSS MiB "
      "| rg RSS MiB | rg ÷ zero (wall / CPU / RSS) |")
    w("|---|---|---|---|---|---|---|---|---|")
    for key, q in search.get("queries", {}).items():
        if "failed" in q:
            w("| %s | **failed**: %s | | | | | | | |" % (q["title"], q["failed"].replace(
                "|", "/")[:300]))
            continue
        z, r = q["results"]["zero"]["runs"], q["results"]["rg"]["runs"]
        cells = []
        for m, _, scale, _ in METRICS:
            cells += ["%s (%s)" % (fmt(med(z, m) / scale), spread(z, m, scale)),
                      "%s (%s)" % (fmt(med(r, m) / scale), spread(r, m, scale))]
        ratios = " / ".join("%.1f×" % (med(r, m) / med(z, m)) for m, _, _, _ in METRICS)
        w("| %s | %d, identical | %s | %s |" % (q["title"], q.get("matches", 0),
                                                 " | ".join(cells), ratios))
    w("")
    w("Commands: " + "; ".join("`%s` vs `%s`" % (q["zero_cmd"], q["rg_cmd"])
                              for q in search.get("queries", {}).values()) + ".\n")


def session_rows(ses):
    """[(label, unit, now, previous)] of scenario (g); previous from the last
    record of the same workload, part by part (None when there is none)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sessionslab
    prevs = ses.get("previous") or {}
    rows = []
    for part, label, unit, v in sessionslab.figures_of(ses["now"]):
        p = prevs.get(part) if isinstance(prevs, dict) and "date" not in prevs else None
        old = {lab: x for _, lab, _, x in sessionslab.figures_of(p)} if p else {}
        rows.append((label, unit, v, old.get(label)))
    return rows


def session_prev_text(ses):
    prevs = ses.get("previous") or {}
    parts = []
    for part in ("resume", "search"):
        p = prevs.get(part)
        if p:
            how = p.get("note") or "%s, load average %s" % (p.get("build", "?"),
                                                            p.get("load_avg_1min", "?"))
            parts.append("%s: %s (%s)" % (part, p.get("date", "?"), how))
        else:
            parts.append("%s: none at this workload" % part)
    return "; ".join(parts)


def render_sessions(w, results):
    ses = results.get("sessions")
    if not ses:
        return
    commit = ses.get("side_by_side")
    w("**(g) session resume and search at scale (zero only, against %s)**\n"
      % ("an earlier commit's zero in the same run" if commit else "its previous figures"))
    if "failed" in ses:
        w("Failed: %s\n" % ses["failed"].replace("\n", " "))
        return
    now = ses["now"]
    sizes = ("{:,}".format(now["resume"]["events"]), now["resume"]["log_mb"],
             "{:,}".format(now["search"]["sessions"]), now["search"]["logs_mb"])
    w("`bench/sessions/run --only resume,search`: resume of a %s-event session (%s MB of "
      "JSONL), then %s sessions (%s MB) indexed by the first `zero search` and queried "
      "(median of 15 runs per query), on this machine (1-minute load average %s when it "
      "started). " % (sizes + (now.get("load_avg_1min", "?"),)))
    if commit:
        w("Side by side: zero as built at commit %s (the commit of the last record of this "
          "workload in `bench/lab/history/sessions.json`; CMake Release, built by the lab) "
          "ran in the same run on the same data, interleaved — resume in 11 rounds and each "
          "query 15 times, the order alternating; indexing twice each in the order A B B A "
          "(the mean kept). A change above +%d %% in CPU, memory or index size is "
          "flagged; wall times are shown but not judged.\n" % (commit, REGRESSION * 100))
        w("| figure | this commit | commit %s | change |" % commit)
    else:
        w("Not side by side (%s): previous figures are the last record of the same "
          "workload (same counts, data within 5 %%) in `bench/lab/history/sessions.json` — "
          "%s, taken under another load. A change above +%d %% in CPU, memory or index size "
          "is flagged; wall times are shown but not judged (one run each, on a machine that "
          "may be shared).\n" % (ses.get("why_not_side_by_side") or "no earlier build",
                                  session_prev_text(ses), REGRESSION * 100))
        w("| figure | this run | previous | change |")
    w("|---|---|---|---|")
    for label, unit, v, p in session_rows(ses):
        if v is None:
            continue
        if p:
            ch = v / p - 1
            change = "%+.0f %%%s" % (ch * 100, "" if ch <= REGRESSION else
                                     " (wall: load-dependent)" if sessionslab.is_wall(label)
                                     else " **worse**")
        else:
            change = "—"
        w("| %s | %s %s | %s | %s |" % (label, fmt(v), unit,
                                        "%s %s" % (fmt(p), unit) if p else "—", change))
    w("")
    if ses.get("recorded"):
        w("This run's figures were appended to `bench/lab/history/sessions.json`.\n")


def loaded(meta):
    """True when the 1-minute load average at the start exceeded half the CPUs."""
    try:
        return float(meta["load_avg"].split()[0]) > 0.5 * int(meta.get("nproc") or 1)
    except (KeyError, ValueError, IndexError):
        return False


def render_partial(w, results):
    """A run cut short (results.json still marked partial): which of its
    scenarios it reached, and which not."""
    wanted = results.get("partial")
    if not wanted:
        return
    done = [s for s in wanted if s in results["scenarios"] or s in results]
    w("**A partial run**: the lab was stopped before its end (the session that ran it had "
      "to finish); these figures are of the scenarios it completed: %s. Not reached: %s "
      "(nor zero's instruction counts).\n" % (", ".join(done) or "none",
                                             ", ".join(s for s in wanted if s not in done)))


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
      "%d runs after %d warm-up (the *runs* column says; the long session runs once), "
      "the agents interleaved round by round; the range is "
      "min–max. CPU and peak RSS are of the whole process tree (the agent and every "
      "process it spawns, the fake server excluded).\n" %
      (meta.get("date", "?"), results["runs"], results["warmup"]))
    render_partial(w, results)
    load = loaded(meta)
    if load:
        w("**Measured on a loaded machine**: load average %s on %s CPUs when the lab "
          "started (other work was running). Wall times are inflated and spreads wide; the "
          "ratios within this run are still like for like, and the instruction counts are "
          "unaffected.\n" % (meta["load_avg"], meta.get("nproc", "?")))
    # The verdict first.
    w("### At a glance\n")
    w("Ratios best peer / zero (how many times more the best peer in the same run needs; "
      "above 1 zero is cheaper):\n")
    w("| scenario | wall | CPU | peak RSS | best peer (by CPU) |")
    w("|---|---|---|---|---|")
    for key in GLANCE:
        res = sc.get(key)
        if not res or "zero" not in ok_runs(res):
            continue
        title = SCENARIO_TITLES[key]
        if key in ("task", "task_cheap"):
            # The headline of a task: what the agent adds over running the
            # task's commands with no agent at all.
            ov = task_overheads(results, key)
            rc, wc = overhead_ratio(ov, 0)
            rm, wm = overhead_ratio(ov, 1)
            if rc or rm:
                w("| %s — **agent overhead over the bare-commands floor** (CPU: tree − floor; "
                  "RSS: the agent's side of the tree) | — | %s | %s | %s |" % (
                      title, "**%.1f×** (%s)" % (rc, wc) if rc else "—",
                      "**%.1f×** (%s)" % (rm, wm) if rm else "—", wc or wm or "none ran"))
            title += " — whole tree (commands included)"
        cells = []
        for m, _, _, _ in METRICS:
            b, who = best_peer(res, m)
            z = med(res["zero"]["runs"], m)
            cells.append(("**%.0f×** (%s)" if b and z and b / z >= 10 else "**%.1f×** (%s)")
                         % (b / z, who) if b and z else "—")
        _, who = best_peer(res, "cpu_us")
        w("| %s | %s | %s |" % (title, " | ".join(cells), who or "none ran"))
    glance_caps(w, results)
    hk = hook_costs(results)
    if "zero" in hk and hk["zero"] > 0:
        peers = [(v, a) for a, v in hk.items() if a != "zero"]
        if peers:
            b, who = min(peers)
            # A peer whose difference is not above zero: its hook's cost is
            # below its own run-to-run spread, and no ratio can be given.
            cell = "**%.1f×** (%s)" % (b / hk["zero"], who) if b > 0 else \
                "— (%s: with − without %s ms, within its run-to-run spread)" % (
                    who, "%.1f" % (b / 1e3))
            w("| %s — CPU per hook call (with − without) | — | %s | — | %s |" % (
                SCENARIO_TITLES["hook"], cell, who))
    search = results.get("search") or {}
    for key, q in search.get("queries", {}).items():
        z, r = q["results"]["zero"]["runs"], q["results"]["rg"]["runs"]
        if "failed" in q or not z or not r:
            continue
        cells = ["**%.1f×**" % (med(r, m) / med(z, m)) for m, _, _, _ in METRICS]
        w("| (f) %s, zero's tool vs ripgrep | %s | rg (baseline) |" % (q["title"],
                                                                      " | ".join(cells)))
    w("")
    w("Targets of issue 9 (against the best peer in the same run), and the lab's "
      "checks of equal outcome:\n")
    w("| target | measured | result |")
    w("|---|---|---|")
    for key, m, want, text in TARGETS:
        res = sc.get(key, {})
        if not res:
            continue
        if "zero" not in ok_runs(res):
            w("| %s | zero did not run | — |" % text)
            continue
        b, who = best_peer(res, m)
        if b is None:
            w("| %s | no peer completed it | — |" % text)
            continue
        r = b / med(res["zero"]["runs"], m)
        w("| %s | %.1f× (vs %s) | %s |" % (text, r, who, "pass" if r >= want else "**not met**"))
        if key == "task":
            ov = task_overheads(results)
            idx = 0 if m == "cpu_us" else 1
            ro, wo = overhead_ratio(ov, idx)
            fl = floor_runs(results)
            if ro and fl:
                what = ("CPU over the bare-commands floor (%s ms of the task's own commands)"
                        % fmt(med(fl, "cpu_us") / 1e3) if idx == 0 else
                        "agent-side peak RSS (the tree without the command processes; the "
                        "commands alone peak at %s MiB)" % fmt(med(fl, "peak_rss_kb") / 1024))
                w("| ↳ explanation, not the target: %s | %.1f× (vs %s) | — |" % (what, ro, wo))
            if fl:
                # The ceiling: what an agent that cost nothing at all on top of
                # the task's commands would reach, and what 10× leaves it.
                floor = med(fl, m)
                unit, scale = ("ms", 1e3) if idx == 0 else ("MiB", 1024)
                w("| ↳ ceiling, not the target: best peer ÷ the bare commands alone (an agent "
                  "costing nothing on top of them) | %.1f× (vs %s); %g× leaves an agent %s %s "
                  "on top of the commands | — |" % (b / floor, who, want,
                                                      fmt((b / want - floor) / scale), unit))
    task = sc.get("task", {})
    if task:
        outcome = ", ".join("%s %s" % (a, "failed" if "failed" in r else "identical files")
                            for a, r in task.items() if "runs" in r or "failed" in r)
        w("| equal task outcome | %s | %s |" % (
            outcome or "—", "pass" if all("failed" not in r for r in task.values()
                                          if "not_comparable" not in r) else "see below"))
    if search:
        qs = search.get("queries", {})
        bad = [k for k, q in qs.items() if "failed" in q]
        w("| (f) grep/glob: the same matches as ripgrep | %s | %s |" % (
            search.get("failed") or "%d of %d queries identical%s" % (
                len(qs) - len(bad), len(qs), " (failed: %s)" % ", ".join(bad) if bad else ""),
            "pass" if qs and not bad and not search.get("failed") else "**not met**"))
        worst = max(((med(q["results"]["zero"]["runs"], "wall_us") /
                      med(q["results"]["rg"]["runs"], "wall_us"), q["title"])
                     for q in qs.values() if "failed" not in q and q["results"]["rg"]["runs"]),
                    default=None)
        if worst:
            w("| (f) zero's grep/glob wall time ≤ 1.3× rg's (the tools' target) | worst "
              "%.2f× (%s) | %s |" % (worst[0], worst[1], "pass" if worst[0] <= 1.3
                                     else "**not met**"))
    st = sc.get("search_turn")
    if st:
        outcome = ", ".join("%s %s" % (a, "failed" if "failed" in r else "right files")
                            for a, r in st.items() if "runs" in r or "failed" in r)
        w("| (f) search in an agent turn: equal outcome | %s | %s |" % (
            outcome, "pass" if all("failed" not in r for r in st.values()) else "see below"))
    ses = results.get("sessions")
    if ses:
        if "failed" in ses:
            w("| (g) resume and search: no regression over %d %% | failed: %s | **not met** |" % (
                REGRESSION * 100, ses["failed"][:200].replace("|", "/").replace("\n", " ")))
        else:
            rows = [r for r in session_rows(ses) if r[2] is not None and r[3]]
            worse = ["%s %+.0f %%" % (label, (now / prev - 1) * 100)
                     for label, _, now, prev in rows
                     if now > prev * (1 + REGRESSION) and not sessionslab.is_wall(label)]
            rows = [r for r in rows if not sessionslab.is_wall(r[0])]
            if not rows:
                w("| (g) resume and search: no regression over %d %% | no previous figures "
                  "for this workload | — |" % (REGRESSION * 100))
            else:
                prevs = ses.get("previous") or {}
                if ses.get("side_by_side"):
                    base = "commit %s's zero, side by side in this run" % ses["side_by_side"]
                    against = "same data, interleaved"
                else:
                    base = "the last record of the same workload"
                    against = ", ".join("%s vs %s" % (part, prevs[part].get("date", "?"))
                                        if prevs.get(part) else "%s: first record" % part
                                        for part in ("resume", "search"))
                w("| (g) resume and search: no regression over %d %% (CPU, memory, index "
                  "size) against %s | %s (%s) | %s |"
                  % (REGRESSION * 100, base, "worse: " + "; ".join(worse)
                     if worse else "%d figures compared, none worse" % len(rows), against,
                     "**regressed**" if worse else "pass"))
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
        charts.append("![20-turn task: CPU and peak RSS per agent%s](%s/%s)" % (
            ", and of the bare commands alone (no agent)" if floor_runs(results) else "",
            rel, t))
    lg = chart_long(results, rdir, chart_dir)
    if lg:
        charts.append("![memory over a long session](%s/%s)" % (rel, lg))
    for c in charts:
        w(c + "\n")
    render_slopes(w, results, rdir)
    # Every scenario in full.
    w("### Figures per scenario\n")
    for key in ["version", "one_turn", "task", "task_cheap", "big_output", "sandbox",
                "search_turn", "subagent", "hook", "long", "long_sub"]:
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
                if r.get("not_peer") and not a.endswith("(no hook)"):
                    a += " *(not a peer)*"
                w("| %s | %d | %s | %d | %s |" % (a, len(runs), " | ".join(cells),
                                              max(x["procs"] for x in runs), ratio))
        if key in ("task", "task_cheap") and floor_of(results, key) is not None:
            fl = floor_of(results, key)
            if "failed" in fl:
                w("| *bare commands (baseline, no agent)* | — | **failed**: %s | | | | |" %
                  fl["failed"].replace("|", "/").replace("\n", " ")[:300])
            elif fl.get("runs"):
                runs = fl["runs"]
                cells = ["%s (%s)" % (fmt(med(runs, k) / s), spread(runs, k, s))
                         for k, _, s, _ in METRICS]
                w("| *bare commands (baseline, no agent)* | %d | %s | %d | — |" % (
                    len(runs), " | ".join(cells), max(x["procs"] for x in runs)))
        w("")
        if key in ("task", "task_cheap"):
            render_task_floor(w, results, key)
        if key == "search_turn":
            render_search_turn_note(w, sc)
        if key == "subagent":
            render_subagent_note(w, sc)
        if key == "hook":
            render_hook_note(w, results)
        if key == "sandbox" and "codex (npm launcher)" in res:
            w("Codex runs as its native binary (`@openai/codex-linux-x64/.../bin/codex`) in "
              "every scenario: its agent loop is that binary and re-executes itself for each "
              "sandboxed command. The *codex (npm launcher)* row is `node_modules/.bin/codex`, "
              "the Node.js script a user's `codex` command is, which starts the native binary: "
              "shown so the launcher's cost is visible, never a peer in a ratio.\n")
    render_search(w, results)
    render_sessions(w, results)
    render_caps(w, results)
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
    for k in ["cpu", "nproc", "load_avg", "kernel", "os", "build", "gnuplot", "valgrind", "node",
              "ripgrep"]:
        if k in meta:
            w("| %s | %s |" % (k, meta[k]))
    py = results.get("python")
    if py:
        w("| python3 of the task's commands | `%s` (sys.executable `%s`, Python %s), by absolute "
          "path for every agent and the floor; `python3` on the lab's PATH: `%s` |" % (
              py.get("command"), py.get("executable"), py.get("version"), py.get("on_path")))
    for a, st in results["agents"].items():
        runs_as = "; runs as %s" % st["runs_as"] if st.get("runs_as") else ""
        w("| %s | %s |" % (a, st["version"] + runs_as if st["available"] else "not available: "
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
