"""sessionslab.py — scenario (g): session resume and search at scale, zero
only, against its own previous figures.

Runs bench/sessions/run --only resume,search (a 100,000-event session
resumed; 1,000 sessions of 1 MB indexed and searched; --quick sizes in a
quick lab) and compares the figures with the last record of the same
workload in bench/lab/history/sessions.json (per part: the same number of events or
sessions and the same amount of data). A full-size run of the full lab appends
its record there (with the machine, the commit and the load average, since
the machine may be shared): commit that file with the regenerated
docs/PERFORMANCE.md.
"""

import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HISTORY = os.path.join(HERE, "history", "sessions.json")
SESSIONS_RUN = os.path.join(ROOT, "bench", "sessions", "run")

# The figures compared run to run: (path in the record, label, unit,
# lower is better).
FIGURES = [
    (("resume", "first_request_ms"), "resume: first request after", "ms"),
    (("resume", "cpu_ms"), "resume: CPU", "ms"),
    (("resume", "peak_rss_mib"), "resume: peak RSS", "MiB"),
    (("search", "index_wall_s"), "search: first search (full indexing), wall", "s"),
    (("search", "index_cpu_s"), "search: full indexing, CPU", "s"),
    (("search", "index_peak_rss_mib"), "search: full indexing, peak RSS", "MiB"),
    (("search", "index_mb"), "search: index size", "MB"),
]


def is_wall(label):
    """Wall-clock figures move with the machine's load: shown, not judged."""
    return "wall" in label or "first request" in label


def load_history():
    try:
        with open(HISTORY) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def sizes_of(rec):
    return (rec.get("resume", {}).get("events"), rec.get("search", {}).get("sessions"))


# What makes two records' parts comparable: the same counts and the same
# amount of data (within 5 %; the generator may change between commits).
WORKLOAD = {"resume": ("events", "log_mb"), "search": ("sessions", "logs_mb")}


def same_workload(a, b, part):
    pa, pb = a.get(part) or {}, b.get(part) or {}
    count, mb = WORKLOAD[part]
    if not pa or not pb or pa.get(count) != pb.get(count):
        return False
    try:
        return abs(pa[mb] / pb[mb] - 1) <= 0.05
    except (KeyError, TypeError, ZeroDivisionError):
        return False


def previous_of(hist, now):
    """{part: the last record whose part ran the same workload, or None}."""
    return {part: next((h for h in reversed(hist) if same_workload(h, now, part)), None)
            for part in WORKLOAD}


def figure(rec, path):
    v = rec
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def figures_of(rec):
    """[(part, label, unit, value)] of a record, the per-query times included."""
    out = [(path[0], label, unit, figure(rec, path)) for path, label, unit in FIGURES]
    for q, v in sorted((rec.get("search") or {}).get("queries", {}).items()):
        out.append(("search", "search `%s`: wall" % q, "ms", v.get("wall_ms")))
        out.append(("search", "search `%s`: CPU" % q, "ms", v.get("cpu_ms")))
    return out


def run(lab, quick):
    """Run the sessions bench; return {"now": record, "previous": {part:
    record or None}, "recorded": bool} (or {"failed": why})."""
    out_json = os.path.join(lab.results, "sessions.json")
    argv = [sys.executable, SESSIONS_RUN, "--only", "resume,search", "--zero", lab.zero,
            "--json", out_json] + (["--quick"] if quick else [])
    lab.say("sessions: %s" % " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a
                                       for a in argv[1:]))
    load = os.getloadavg()[0]
    r = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    with open(os.path.join(lab.results, "sessions.md"), "w") as f:
        f.write(r.stdout)
    if r.returncode != 0 or not os.path.exists(out_json):
        why = (r.stderr or r.stdout).strip()[-400:]
        lab.say("sessions FAILED: " + why)
        return {"failed": why}
    with open(out_json) as f:
        figs = json.load(f)
    meta = {}
    mp = os.path.join(lab.results, "meta.json")
    if os.path.exists(mp):
        with open(mp) as f:
            meta = json.load(f)
    now = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "build": meta.get("build", "?"), "cpu": meta.get("cpu", "?"),
           "nproc": meta.get("nproc"), "load_avg_1min": round(load, 2)}
    now.update(figs)
    hist = load_history()
    prev = previous_of(hist, now)
    recorded = False
    if not quick:
        hist.append(now)
        os.makedirs(os.path.dirname(HISTORY), exist_ok=True)
        with open(HISTORY, "w") as f:
            json.dump(hist, f, indent=1)
            f.write("\n")
        recorded = True
    for _, label, unit, v in figures_of(now):
        lab.say("sessions %s: %s %s" % (label, v, unit))
    return {"now": now, "previous": prev, "recorded": recorded}
