"""sessionslab.py — scenario (g): session resume and search at scale, zero
only, against its own earlier self.

Runs bench/sessions/run --only resume,search (a 100,000-event session
resumed; 1,000 sessions of 1 MB indexed and searched; --quick sizes in a
quick lab) side by side with zero as built at the commit of the last record
of the same workload in bench/lab/history/sessions.json: that commit is
built (CMake Release, as the lab builds HEAD; kept in bench/.cache/) and
both binaries run interleaved on the same data in this run, so that a
change is not the machine's load of another day. When that commit cannot be
built (a shallow clone), the figures are compared with the record itself,
as the report then says. A full-size run of the full lab appends its record
(with the machine, the commit and the load average): commit that file with
the regenerated docs/PERFORMANCE.md.
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HISTORY = os.path.join(HERE, "history", "sessions.json")
SESSIONS_RUN = os.path.join(ROOT, "bench", "sessions", "run")
CACHE = os.path.join(ROOT, "bench", ".cache")
# The counts each size runs: (resume events, search sessions).
COUNTS = {False: (100000, 1000), True: (10000, 100)}

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


def commit_of(rec):
    m = re.search(r"commit ([0-9a-f]{7,40})", (rec or {}).get("build", ""))
    return m.group(1) if m else None


def baseline_commit(hist, quick):
    """The commit of the last record that ran this size, or None."""
    events, sessions = COUNTS[quick]
    for h in reversed(hist):
        if sizes_of(h) == (events, sessions) and commit_of(h):
            return commit_of(h)
    return None


def baseline_zero(lab, commit):
    """zero as built at commit (CMake Release, as bench/lab/run builds HEAD),
    kept in bench/.cache/zero-<commit>/: (binary, None), or (None, why)."""
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", commit + "^{commit}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, "commit %s is not in this clone" % commit
    full = r.stdout.strip()
    out = os.path.join(CACHE, "zero-" + full[:12])
    exe = os.path.join(out, "build", "zero")
    if os.access(exe, os.X_OK):
        return exe, None
    shutil.rmtree(out, ignore_errors=True)
    src = os.path.join(out, "src")
    os.makedirs(src)
    lab.say("sessions: building zero at %s (CMake Release) to run beside this one" % full[:12])
    log = os.path.join(out, "build.log")
    with open(log, "w") as f:
        archive = subprocess.Popen(["git", "-C", ROOT, "archive", full], stdout=subprocess.PIPE)
        ok = subprocess.run(["tar", "-x", "-C", src], stdin=archive.stdout, stderr=f).returncode == 0
        ok = archive.wait() == 0 and ok
        for step in (["cmake", "-S", src, "-B", os.path.join(out, "build"), "-G", "Ninja",
                      "-DCMAKE_BUILD_TYPE=Release"],
                     ["cmake", "--build", os.path.join(out, "build"), "-j", "2", "--target", "zero"]):
            ok = ok and subprocess.run(step, stdout=f, stderr=subprocess.STDOUT).returncode == 0
    if not ok or not os.access(exe, os.X_OK):
        with open(log) as f:
            tail = f.read()[-300:]
        return None, "building commit %s failed (%s): %s" % (full[:12], log, tail)
    return exe, None


def side_by_side(now, figs, commit, load):
    """The against binary's figures as a record of their own, named as what
    they are: the same run, the same data, interleaved."""
    against = figs.pop("against")
    rec = {"date": now["date"], "build": "commit %s (CMake Release)" % commit,
           "load_avg_1min": load, "resume": against.get("resume"),
           "search": against.get("search"),
           "note": "commit %s's zero, in this run, interleaved on the same data" % commit}
    return {part: rec for part in WORKLOAD}


def run(lab, quick):
    """Run the sessions bench; return {"now": record, "previous": {part:
    record or None}, "side_by_side": commit or None, "recorded": bool} (or
    {"failed": why}). previous is the earlier commit's binary measured in
    this run when it could be built, else the last record of the same
    workload (then "why_not_side_by_side" says why)."""
    out_json = os.path.join(lab.results, "sessions.json")
    hist = load_history()
    commit = baseline_commit(hist, quick)
    against, why_not = (None, "no earlier record of this size")
    if commit:
        against, why_not = baseline_zero(lab, commit)
    if why_not:
        lab.say("sessions: not side by side: " + why_not)
    argv = [sys.executable, SESSIONS_RUN, "--only", "resume,search", "--zero", lab.zero,
            "--json", out_json] + (["--quick"] if quick else []) + (
                ["--against", against] if against else [])
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
    prev = side_by_side(now, figs, commit, round(load, 2)) if against else None
    now.update(figs)
    prev = prev or previous_of(hist, now)
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
    return {"now": now, "previous": prev, "side_by_side": commit if against else None,
            "why_not_side_by_side": why_not, "recorded": recorded}
