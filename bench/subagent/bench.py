#!/usr/bin/env python3
"""Sub-agent costs (issue 17), side by side in one run, against the fake
model server:

1. task round trip: CPU of a parent that delegates to a one-turn child,
   minus the CPU of the same child run alone and of a parent whose tool
   call does nothing (update_plan) — what delegation itself costs.
2. 8 background sub-agents at once: RSS of the whole process tree (parent
   + 8 child zero processes) while all 8 wait on the model.

Usage: ZERO_BIN=build/zero python3 bench/subagent/bench.py [reps]
"""
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


def tree_rss_kib(pid):
    out = subprocess.run(["ps", "-eo", "pid,ppid,rss"], capture_output=True, text=True).stdout
    kids, rss = {}, {}
    for line in out.splitlines()[1:]:
        p, pp, r = (int(x) for x in line.split())
        kids.setdefault(pp, []).append(p)
        rss[p] = r
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += kids.get(p, [])
    return total


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
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
        "plan": [{"step": "x", "status": "pending"}]}}]}, {"text": "done"}]
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
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
