#!/usr/bin/env python3
"""Sub-agent costs (issue 17), side by side in one run, against the fake
model server:

1. task round trip: CPU of a parent that delegates to a one-turn child,
   minus the CPU of the same child run alone and of a parent whose tool
   call does nothing (update_plan) — what delegation itself costs.
2. 8 background sub-agents at once: RSS of the whole process tree (parent
   + 8 child zero processes) while all 8 wait on the model.
3. a swarm of 8 members at once (swarm_spawn, swarm.maxTeamSize 8, writers
   in a git worktree each): RSS of the whole tree while all 8 wait on the
   model, beside 8 parallel `codex exec` runs waiting the same way (the
   peer: Codex's native binary from bench/.peers/codex, installed by
   bench/lab/run or by hand with npm install @openai/codex@0.171.0 there;
   skipped when missing). The lab's swarm scenario (bench/lab/capslab.py,
   `swarm`) measures the same tree its own way, beside every peer it has
   (Codex and Claude Code), and does not use these figures.

RSS sums each process's resident pages, so a shared library's page counts
once per process that maps it (how the target, "the whole process tree
under 120 MiB of RSS", is phrased); PSS, printed beside it, splits each
shared page between the processes mapping it (what the tree alone holds).

Usage: ZERO_BIN=build/zero python3 bench/subagent/bench.py [reps]
           [--max-swarm-mib 120]   (exit 1 when the swarm's tree peaks over it)
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
from harness import FakeModel  # noqa: E402

ZERO = os.path.abspath(os.environ.get("ZERO_BIN", "build/zero"))


def cpu_of(turns, args, tmp, env):
    m = FakeModel(turns, tmp)
    e = dict(env, OPENAI_BASE_URL=m.base_url)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([ZERO] + args, cwd=env["WORK"], env=e, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m.stop()
    assert r.returncode == 0, r.stdout + r.stderr
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def tree_pids(pid, table=None):
    """pid and every descendant of it alive now (from `ps`), with each one's
    RSS in KiB: {pid: rss}."""
    if table is None:
        table = ps_table()
    kids, rss = table
    found, todo = {}, [pid]
    while todo:
        p = todo.pop()
        found[p] = rss.get(p, 0)
        todo += kids.get(p, [])
    return found


def ps_table():
    out = subprocess.run(["ps", "-eo", "pid,ppid,rss"], capture_output=True, text=True).stdout
    kids, rss = {}, {}
    for line in out.splitlines()[1:]:
        p, pp, r = (int(x) for x in line.split())
        kids.setdefault(pp, []).append(p)
        rss[p] = r
    return kids, rss


def tree_rss_kib(pid):
    """The sum of RSS over pid's process tree: a page of a shared library
    counts once in every process that maps it (the figure the issue's
    target is phrased in)."""
    return sum(tree_pids(pid).values())


def pss_kib(pids):
    """The sum of PSS (/proc/PID/smaps_rollup) over pids: each shared page
    split between the processes that map it, so the sum over a tree is what
    the tree alone holds in memory. A process gone meanwhile counts 0."""
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/smaps_rollup" % p) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total


def main():
    ap = argparse.ArgumentParser(description="sub-agent costs (issue 17)")
    ap.add_argument("reps", nargs="?", type=int, default=5, help="task round trips (median)")
    ap.add_argument("--max-swarm-mib", type=int, default=0,
                    help="exit 1 when the swarm's tree peaks over this RSS (a guard)")
    args = ap.parse_args()
    reps, max_mib = args.reps, args.max_swarm_mib
    tmp = tempfile.mkdtemp(prefix="zero-bench-sub-")
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "LANG": "C.UTF-8",
           "XDG_DATA_HOME": os.path.join(tmp, "data"), "XDG_CONFIG_HOME": os.path.join(tmp, "cfg"),
           "OPENAI_API_KEY": "sk-bench", "OPENAI_MODEL": "test-model", "WORK": work}
    task = [{"tool_calls": [{"name": "task", "arguments": {
        "description": "b", "prompt": "answer", "agent": "explore"}}]},
        {"text": "child answer"}, {"text": "done"}]
    plan = [{"tool_calls": [{"name": "update_plan", "arguments": {
        "plan": [{"step": "x", "status": "completed"}]}}]}, {"text": "done"}]
    child = [{"text": "child answer"}]
    with_task, parent_only, child_only = [], [], []
    for _ in range(reps):
        with_task.append(cpu_of(task, ["exec", "-o", "stream-json", "go"], tmp, env))
        parent_only.append(cpu_of(plan, ["exec", "-o", "stream-json", "go"], tmp, env))
        child_only.append(cpu_of(child, ["exec", "-o", "stream-json", "--agent", "explore",
                                         "answer"], tmp, env))
    med = lambda v: sorted(v)[len(v) // 2]  # noqa: E731
    overhead_ms = (med(with_task) - med(parent_only) - med(child_only)) * 1000
    print("task round trip: parent+child %.1f ms CPU, parent alone %.1f ms, child alone %.1f ms "
          "-> delegation overhead %.1f ms (median of %d)" % (
              med(with_task) * 1000, med(parent_only) * 1000, med(child_only) * 1000,
              overhead_ms, reps))

    # 8 background sub-agents waiting on the model at once.
    n = 8
    turns = [{"match": "PARENT-8", "tool_calls": [
        {"name": "task", "arguments": {"description": "m%d" % i, "prompt": "p%d" % i,
                                       "agent": "explore", "background": True}}
        for i in range(n)]}]
    turns += [{"match": "explore sub-agent", "text": "late", "delay_before_ms": 4000}
              for _ in range(n)]
    turns += [{"match": "PARENT-8", "tool_calls": [{"name": "task_output", "arguments": {
        "task_id": "bg-%d" % (i + 1), "wait_ms": 20000}} for i in range(n)]},
        {"match": "PARENT-8", "text": "done"}]
    m = FakeModel(turns, tmp)
    e = dict(env, OPENAI_BASE_URL=m.base_url)
    p = subprocess.Popen([ZERO, "exec", "-o", "stream-json", "PARENT-8"], cwd=work, env=e,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    deadline = time.time() + 3.5
    while time.time() < deadline and p.poll() is None:
        peak = max(peak, tree_rss_kib(p.pid))
        time.sleep(0.1)
    p.wait(60)
    m.stop()
    print("8 background sub-agents at once: process tree RSS peak %.1f MiB" % (peak / 1024))
    swarm_peak, swarm_steady, swarm_pss = swarm_rss(tmp, env, n)
    print("swarm of %d members at once (worktrees): process tree RSS peak %.1f MiB, steady "
          "%.1f MiB (PSS %.1f MiB)" % (n, swarm_peak / 1024, swarm_steady / 1024,
                                       swarm_pss / 1024))
    codex_peak, codex_steady, codex_pss = codex_rss(tmp, env, n)
    if codex_peak:
        print("%d parallel codex exec runs: process trees RSS peak %.1f MiB, steady %.1f MiB "
              "(PSS %.1f MiB) -> zero uses %.1fx less (peak), %.1fx less (steady), %.1fx less "
              "(PSS)" % (n, codex_peak / 1024, codex_steady / 1024, codex_pss / 1024,
                         codex_peak / swarm_peak, codex_steady / swarm_steady,
                         codex_pss / swarm_pss))
    else:
        print("codex: no native binary in bench/.peers/codex (skipped)")
    shutil.rmtree(tmp, ignore_errors=True)
    if max_mib and swarm_peak / 1024 > max_mib:
        print("bench guard: the swarm's tree peaked at %.1f MiB of RSS, over %d MiB"
              % (swarm_peak / 1024, max_mib))
        return 1
    return 0


WAIT_MS = 20000  # each member's (or codex run's) model turn is this slow: all wait at once


def peak_while(pids, model, want):
    """(peak, steady, steady_pss) in KiB over the trees of pids: peak RSS from
    the start (start-up, worktree creation, git) until `want` requests
    reached the model, steady the median RSS over the next 2.5 s, when all
    of them wait on it (the turns are WAIT_MS slow), and steady_pss the
    median PSS over those same samples (what the trees hold once shared
    pages are split; reported beside RSS, the target's figure)."""
    peak, start = 0, time.time()
    while time.time() < start + 90 and len(model.bodies()) < want:
        peak = max(peak, sum(tree_rss_kib(p) for p in pids))
        time.sleep(0.1)
    late, late_pss = [], []
    until = time.time() + 2.5
    while time.time() < until:
        table = ps_table()
        trees = [tree_pids(p, table) for p in pids]
        late.append(sum(sum(t.values()) for t in trees))
        late_pss.append(sum(pss_kib(t) for t in trees))
        time.sleep(0.1)
    late.sort()
    late_pss.sort()
    return max([peak] + late), late[len(late) // 2], late_pss[len(late_pss) // 2]


def swarm_rss(tmp, env, n):
    """(peak, steady, steady_pss) KiB of a zero orchestrator and its n
    members, all waiting (peak_while)."""
    work = os.path.join(tmp, "swarm")
    os.makedirs(work)
    g = ["git", "-C", work, "-c", "user.email=b@b", "-c", "user.name=b"]
    subprocess.run(g + ["init", "-q"], check=True)
    with open(os.path.join(work, "README"), "w") as f:
        f.write("bench\n")
    subprocess.run(g + ["add", "README"], check=True)
    subprocess.run(g + ["commit", "-qm", "base"], check=True)
    cfg = os.path.join(env["XDG_CONFIG_HOME"], "zero")
    os.makedirs(cfg, exist_ok=True)
    with open(os.path.join(cfg, "config.json"), "w") as f:
        json.dump({"swarm": {"enabled": True, "maxTeamSize": n}}, f)
    turns = [{"match": "PARENT-S", "tool_calls": [{"name": "swarm_spawn", "arguments": {
        "team": "bench", "members": [{"name": "m%d" % i, "prompt": "p%d" % i}
                                     for i in range(n)]}}]}]
    turns += [{"match": "a member of the swarm team", "text": "late", "delay_before_ms": WAIT_MS}
              for _ in range(n)]
    turns += [{"match": "PARENT-S", "tool_calls": [{"name": "swarm_collect", "arguments": {
        "team": "bench", "wait_ms": 60000}}]}, {"match": "PARENT-S", "text": "done"}]
    m = FakeModel(turns, tmp)
    e = dict(env, OPENAI_BASE_URL=m.base_url)
    log = open(os.path.join(tmp, "swarm.out"), "w+")
    p = subprocess.Popen([ZERO, "exec", "-o", "stream-json", "PARENT-S"], cwd=work, env=e,
                         stdout=log, stderr=subprocess.STDOUT)
    # the parent's first request, then one per member (a worktree each), then all wait
    peak = peak_while([p.pid], m, 1 + n)
    if p.poll() is not None or len(m.bodies()) < 1 + n:
        p.kill()
        p.wait(60)
        m.stop()
        log.seek(0)
        raise RuntimeError("the swarm did not have its %d members waiting at once (zero exited "
                           "%s after %d model requests): %s" % (n, p.returncode, len(m.bodies()),
                                                                log.read()[-2000:]))
    log.close()
    p.kill()  # the numbers are in; the watchdog stops the members
    p.wait(60)
    m.stop()
    os.remove(os.path.join(cfg, "config.json"))
    return peak


def codex_native():
    """Codex's native binary in bench/.peers (what its agent loop is; the npm
    launcher would add a Node.js process to every run), or None."""
    sys.path.insert(0, os.path.join(HERE, "..", "lab"))
    import agents  # noqa: E402  (bench/lab/agents.py: where npm puts the binary)
    return agents.native_binary(os.path.join(HERE, "..", ".peers", "codex", "node_modules"),
                                agents.CODEX_NATIVE)


def codex_rss(tmp, env, n, codex=None):
    """(peak, steady, steady_pss) KiB of n parallel `codex exec` runs of the
    native binary `codex` (default: codex_native()), each waiting on its
    model turn (peak_while); (0, 0, 0) when there is no binary."""
    codex = codex or codex_native()
    if not codex:
        return 0, 0, 0
    m = FakeModel([{"text": "late", "delay_before_ms": WAIT_MS} for _ in range(n)], tmp)
    procs = []
    for i in range(n):
        home = os.path.join(tmp, "codex%d" % i)
        ws = os.path.join(home, "ws")
        os.makedirs(os.path.join(home, ".codex"))
        os.makedirs(ws)
        with open(os.path.join(home, ".codex", "config.toml"), "w") as f:
            f.write('model = "gpt-5.5"\nmodel_provider = "fake"\n'
                    'check_for_update_on_startup = false\n[analytics]\nenabled = false\n'
                    '[model_providers.fake]\nname = "fake"\nbase_url = "%s"\n'
                    'env_key = "FAKE_KEY"\nwire_api = "responses"\n' % m.base_url)
        e = dict(env, HOME=home, CODEX_HOME=os.path.join(home, ".codex"), FAKE_KEY="bench")
        procs.append(subprocess.Popen([codex, "exec", "--skip-git-repo-check", "--sandbox",
                                       "workspace-write", "-C", ws, "task %d" % i], env=e,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
    peak = peak_while([p.pid for p in procs], m, n)
    for p in procs:
        os.killpg(p.pid, 9)
        p.wait(60)
    m.stop()
    return peak


if __name__ == "__main__":
    sys.exit(main())
