#!/usr/bin/env python3
"""lab.py — the performance lab's driver: zero and its peers, side by side,
on the same scripted model behaviour, measured as whole process trees.

Called by bench/lab/run (which builds, installs the peers and isolates the
network); see bench/README.md. Modes:

  lab.py full  RESULTS_DIR     every scenario, every available agent, then
                               callgrind for zero's scenarios
  lab.py guard RESULTS_DIR     zero only, callgrind instruction counts
                               compared to bench/lab/baseline-ir.json
  lab.py record RESULTS_DIR    zero only, callgrind; rewrite the baseline

Python 3 standard library only.
"""

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import agents as agents_mod  # noqa: E402
import capslab  # noqa: E402
import searchlab  # noqa: E402
import sessionslab  # noqa: E402
import searchtree  # noqa: E402

FAKE_SERVER = os.path.join(ROOT, "tests", "e2e", "fake_server.py")
FIXTURE = os.path.join(HERE, "fixture")
BASELINE = os.path.join(HERE, "baseline-ir.json")
GUARD_LIMIT = 0.10

ANSWER = "Hello! How can I help you today?"
TASK_ANSWER = "Done: sub is fixed, mul and clamp's upper bound are added, with tests."
# The interpreter the task's commands run, by absolute path: the same for
# every agent and for the bare-commands floor, whatever each agent does to
# PATH (a login shell resets it) and without a pyenv shim (a bash script
# costing more than the Python run itself) in between. The lab's own
# interpreter: under pyenv, `python3 lab.py` is the real one.
PYTHON = os.path.realpath(sys.executable)
PYRUN = "PYTHONDONTWRITEBYTECODE=1 " + shlex.quote(PYTHON)
# Process names (/proc/PID/comm) of the task's commands, for the agent-side
# RSS (treemeasure -x): the shells that run them and the programs they run
# (cat: Codex reads files with it). An agent's own processes named so are
# left out too, which can only lower that agent's figure.
TASK_CMD_NAMES = ["sh", "bash", "dash", os.path.basename(PYTHON)[:15], "python3", "ls",
                  "grep", "wc", "cat"]

# (c) the 20-turn task: 19 tool calls, then the answer. Reads, shell
# commands (one of them writes a file) and patches; the final files must be
# the same for every agent.
TASK = [
    ("shell", "ls -R"),
    ("read", "README.md"),
    ("read", "src/ops.py"),
    ("shell", "grep -n 'def ' src/ops.py src/util.py"),
    ("patch", "src/ops.py", '    """Return a - b."""\n    return a + b\n',
     '    """Return a - b."""\n    return a - b\n'),
    ("shell", PYRUN + " -c \"import sys; sys.path.insert(0, 'src'); import ops; "
     "print(ops.sub(5, 3))\""),
    ("read", "tests/test_ops.py"),
    ("patch", "tests/test_ops.py", "        self.assertEqual(ops.add(2, 3), 5)\n",
     "        self.assertEqual(ops.add(2, 3), 5)\n\n    def test_sub(self):\n"
     "        self.assertEqual(ops.sub(5, 3), 2)\n"),
    ("shell", PYRUN + " -m unittest discover -s tests -q"),
    ("read", "src/ops.py"),
    ("patch", "src/ops.py", '    return a - b\n',
     '    return a - b\n\n\ndef mul(a, b):\n    """Return a * b."""\n    return a * b\n'),
    ("shell", "wc -l src/*.py tests/*.py"),
    ("read", "src/util.py"),
    ("patch", "src/util.py", "        return lo\n    return x\n",
     "        return lo\n    if x > hi:\n        return hi\n    return x\n"),
    ("read", "CHANGELOG.md"),
    ("patch", "CHANGELOG.md", "# Changelog\n\n",
     "# Changelog\n\n## 0.2.0\n\n- `sub` subtracts; new `mul`; `clamp` honours `hi`.\n\n"),
    ("shell", "printf 'checked by the bench task\\n' > NOTES.txt"),
    ("shell", "cat NOTES.txt && " + PYRUN + " -m unittest discover -s tests -q"),
    ("shell", "ls src tests"),
    ("text", TASK_ANSWER),
]
# (c2) the same 20 turns with cheap commands: `true`, `cat`, small greps and
# file reads, nothing written. The commands cost next to nothing, so what an
# agent spends is its own: start-up, requests, tool dispatch, its sandbox.
CHEAP_ANSWER = "Read the sources and the tests; nothing needs changing."
TASK_CHEAP = [
    ("shell", "true"),
    ("read", "README.md"),
    ("shell", "cat src/ops.py"),
    ("shell", "grep -n 'def ' src/ops.py"),
    ("read", "src/util.py"),
    ("shell", "grep -c return src/util.py"),
    ("shell", "true"),
    ("read", "tests/test_ops.py"),
    ("shell", "cat CHANGELOG.md"),
    ("shell", "grep -rl import tests"),
    ("read", "src/ops.py"),
    ("shell", "true"),
    ("shell", "cat README.md"),
    ("shell", "grep -n clamp src/util.py"),
    ("read", "CHANGELOG.md"),
    ("shell", "true"),
    ("shell", "cat tests/test_ops.py"),
    ("shell", "grep -c def tests/test_ops.py"),
    ("shell", "true"),
    ("text", CHEAP_ANSWER),
]
# The task scenarios, each with its bare-commands floor.
TASKS = {"task": TASK, "task_cheap": TASK_CHEAP}
# The baseline of (c) run with the agents: the task's commands without an agent.
FLOOR = "bare commands"
# Sub-agent round trip: the parent delegates one job with one tool call, the
# child answers in one turn, the parent answers. Three model turns in order.
SUB_CHILD = "The answer from the sub-agent: 42."
SUB_ANSWER = "The sub-agent answered 42."
SUBAGENT = [("task", "find the answer", "Answer with one sentence: what is the answer?"),
            ("text", SUB_CHILD), ("text", SUB_ANSWER)]
# A no-op hook before each tool call: 10 file reads (each its own file) with
# the hook, the same run without it; (with - without) / 10 is the hook's cost.
HOOK_CALLS = 10
HOOK_ANSWER = "Read the ten files."
SEARCH_ANSWER = "Those are the files that mention it."
BIG_CMD = "yes 0123456789abcdef0123456789abcde | head -c 2097152"
BIG = [("shell", BIG_CMD), ("text", "The command printed 65536 lines.")]


LONG_LINE = "part %03d line %02d: the quick brown fox jumps over the lazy dog\n"
LONG_LINES = 32


def long_data_name(i):
    return "data/part-%03d.txt" % i


def long_data_size(n):
    return sum(len(LONG_LINE % (n, i)) for i in range(LONG_LINES))


# long_sub: a delegation (a sub-agent round trip, two model turns: the
# parent's task call and the child's answer) every LONG_SUB_EVERY turns.
LONG_SUB_EVERY = 10


def long_steps(turns, delegate_every=0):
    """A long session of `turns` model turns: reads and shell commands, then
    the answer. Every step touches its own 2 KB file (the same work each
    turn, but no two tool calls are identical: agents with loop detection,
    such as Gemini CLI's, stop a session that repeats a short cycle of
    identical calls). With delegate_every, every delegate_every-th turn the
    parent delegates instead (("task", …) then the child's ("text", …)),
    each child asked about its own file."""
    steps = []
    n = 0
    while len(steps) < turns - 1:
        name = long_data_name(n)
        if delegate_every and len(steps) % delegate_every == delegate_every - 1 and \
                len(steps) + 2 < turns:
            steps.append(("task", "count %s" % name, "How many bytes has %s?" % name))
            steps.append(("text", "%s has %d bytes." % (name, long_data_size(n))))
        else:
            steps.append(("read", name) if n % 2 == 0 else ("shell", "wc -c " + name))
        n += 1
    steps.append(("text", "Finished the long session."))
    return steps


def long_step_file(step):
    """The data file a long session's tool step is about (read, wc -c)."""
    return step[1].split()[-1]


def long_extra(turns):
    """Writes the data files of a long session of up to `turns` turns."""
    def extra(ws):
        os.makedirs(os.path.join(ws, "data"), exist_ok=True)
        for n in range(turns - 1):
            with open(os.path.join(ws, long_data_name(n)), "w") as f:
                for i in range(LONG_LINES):
                    f.write(LONG_LINE % (n, i))
    return extra


def long_result_text(step):
    """What the tool result of a long session's read / shell step contains:
    the read file's last line, or the `wc -c` count."""
    name = long_step_file(step)
    n = int(name[len("data/part-"):-len(".txt")])
    if step[0] == "read":
        return "part %03d line %02d" % (n, LONG_LINES - 1)
    return "%d %s" % (long_data_size(n), name)


def check_long(steps, reqs):
    """None when every tool result of the long session reached the model:
    each read's file and each `wc -c` count is in the request of the turn
    right after its call; else what is missing (an agent whose tools failed
    quietly has not done the work). What an agent keeps of old results
    later is its own context management (zero drops old read outputs,
    Claude Code compacts), counted by long_results_kept, not checked."""
    by_turn = {r.get("turn"): r for r in reqs if r.get("turn") is not None}
    if len(steps) - 1 not in by_turn:
        return "no request for the last scripted turn"
    missing = []
    tools = [(i, s) for i, s in enumerate(steps[:-1]) if s[0] in ("read", "shell")]
    for i, s in tools:
        nxt = by_turn.get(i + 1)
        if nxt is None or long_result_text(s) not in \
                searchlab.tool_results_text(nxt.get("body")):
            missing.append("%s %s" % (s[0], long_step_file(s)))
    if missing:
        return "%d of %d tool results missing from the request after their call, e.g. %s" % (
            len(missing), len(tools), ", ".join(missing[:3]))
    return None


def long_results_kept(steps, reqs):
    """How many of the long session's tool results its last request still
    carries in full (the rest the agent dropped or summarized)."""
    last = [r for r in reqs if r.get("turn") == len(steps) - 1]
    if not last:
        return 0
    text = searchlab.tool_results_text(last[0].get("body"))
    return sum(1 for s in steps[:-1] if s[0] in ("read", "shell") and long_result_text(s) in text)


def series_name(scenario, agent):
    """The RSS series file of a long scenario's run (report.py reads it)."""
    return "series-%s.tsv" % agent if scenario == "long" else \
        "series-%s-%s.tsv" % (scenario, agent)


def tree_digest(top):
    """{relative path: sha256} of a workspace, without the agents' own state
    directories (top-level dot directories) and byte-code caches."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__"
                             and not (rel == "." and d.startswith(".")))
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.normpath(os.path.join(rel, f))] = hashlib.sha256(fh.read()).hexdigest()
    return out


def apply_patch(ws, step):
    """Applies a ("patch", path, old, new) step directly."""
    p = os.path.join(ws, step[1])
    with open(p) as f:
        text = f.read()
    assert text.count(step[2]) == 1, "bench task: patch %s is not unique" % step[1]
    with open(p, "w") as f:
        f.write(text.replace(step[2], step[3]))


def parse_kv(line):
    d = {}
    for part in line.split():
        k, _, v = part.partition("=")
        d[k] = int(v) if v.lstrip("-").isdigit() else v
    return d


class FloorRunner:
    """The bare-commands floor's place in the rotation of (c)."""
    name = FLOOR

    def __init__(self, rec):
        self.rec = rec


class NoHook:
    """An agent's run of scenario `hook` without its hook: the other half of
    the pair (with - without). Delegates everything to the agent; its own
    name gives it its own home, so the two configurations never mix."""
    peer = False
    only = ("hook",)

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name + " (no hook)"

    def __getattr__(self, k):
        return getattr(self.agent, k)


def hook_steps():
    steps = [("read", "data/hook-%02d.txt" % i) for i in range(HOOK_CALLS)]
    return steps + [("text", HOOK_ANSWER)]


def hook_extra(ws):
    os.makedirs(os.path.join(ws, "data"), exist_ok=True)
    for i in range(HOOK_CALLS):
        with open(os.path.join(ws, "data", "hook-%02d.txt" % i), "w") as f:
            f.write("hook file %02d\n" % i)


class Lab:
    def __init__(self, args):
        self.zero = os.path.abspath(args.zero)
        self.peers = os.path.abspath(args.peers)
        self.results = os.path.abspath(args.results)
        self.scratch = os.path.join(self.results, "scratch")
        self.measure = args.treemeasure
        self.runs = args.runs
        self.warmup = args.warmup
        self.long_turns = args.long_turns
        self.slow_cap = args.slow_cap
        self.slow_runs = args.slow_runs
        self.log = open(os.path.join(self.results, "lab.log"), "a")
        self.save_to = None
        os.makedirs(self.scratch, exist_ok=True)

    def say(self, msg):
        sys.stderr.write("lab: %s\n" % msg)
        sys.stderr.flush()
        self.log.write(msg + "\n")
        self.log.flush()

    def capture(self, argv, env=None):
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=120, env=env)
            return r.stdout or r.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            return "unknown (%s)" % e

    # -- the fake server ----------------------------------------------------
    def start_server(self, turns, agent, tag):
        d = os.path.join(self.scratch, "srv-" + tag)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        script = os.path.join(d, "script.json")
        with open(script, "w") as f:
            json.dump(turns, f)
        argv = [sys.executable, FAKE_SERVER, script, "--log", os.path.join(d, "requests.jsonl")]
        for prefix, text in agent.side_answers:
            argv += ["--auto-answer", "%s=%s" % (prefix, text)]
        for words, text in agent.side_answers_user:
            argv += ["--auto-answer-user", "%s=%s" % (words, text)]
        out = open(os.path.join(d, "server.out"), "w+")
        proc = subprocess.Popen(argv, stdout=out, stderr=open(os.path.join(d, "server.err"), "w"),
                                stdin=subprocess.DEVNULL)
        port = None
        # Up to 60 s: on a shared machine a Python start-up can take seconds.
        for _ in range(3000):
            out.seek(0)
            line = out.readline()
            if line.startswith("PORT "):
                port = int(line.split()[1])
                break
            if proc.poll() is not None:
                break
            time.sleep(0.02)
        if port is None:
            proc.kill()
            raise RuntimeError("fake server did not start: see " + d)
        return proc, "http://127.0.0.1:%d/v1" % port, d

    @staticmethod
    def stop_server(proc):
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    @staticmethod
    def server_requests(d):
        p = os.path.join(d, "requests.jsonl")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return [json.loads(line) for line in f if line.strip()]

    # -- one measured run -----------------------------------------------------
    def measured(self, argv, env, cwd, tag, timeout=300, series=None, interval=5, exclude=None):
        out = os.path.join(self.scratch, tag + ".out")
        err = os.path.join(self.scratch, tag + ".err")
        cmd = [self.measure, "-i", str(interval), "-t", str(timeout), "-o", out, "-e", err]
        if series:
            cmd += ["-s", series]
        if exclude:
            cmd += ["-x", ",".join(exclude)]
        r = subprocess.run(cmd + ["--"] + argv, env=env, cwd=cwd, capture_output=True, text=True)
        if r.returncode not in (0, 124) or not r.stdout.strip():
            raise RuntimeError("treemeasure failed: " + r.stderr)
        m = parse_kv(r.stdout.strip().splitlines()[-1])
        with open(out, errors="replace") as f:
            m["stdout"] = f.read()
        with open(err, errors="replace") as f:
            m["stderr_tail"] = f.read()[-2000:]
        return m

    def home(self, agent, scenario=None):
        """The agent's isolated home; scenario (i) gets one of its own, so
        the hook it configures never reaches another scenario's runs."""
        h = os.path.join(self.scratch, "home-" + agent.name +
                         ("-" + scenario if scenario == "hook" else ""))
        os.makedirs(h, exist_ok=True)
        return h

    def workspace(self, tag, extra=None):
        ws = os.path.join(self.scratch, "ws-" + tag)
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(FIXTURE, ws)
        if extra:
            extra(ws)
        return ws

    # -- scenarios --------------------------------------------------------------
    def run_scenario(self, scenario, agent, tag, series=None, wrap=None):
        """One run of `scenario` by `agent`: (measurement, None) or (None, why it failed).
        `wrap` prefixes the command (valgrind)."""
        home = self.home(agent, scenario)
        wrap = wrap or []
        if scenario == "version":
            env = agent.env(home, "")
            m = self.measured(wrap + agent.version_cmd(), env, home, tag)
            if m["status"] != 0 or not m["stdout"].strip():
                return None, "exit %s: %s" % (m["status"], m["stderr_tail"][-300:])
            return m, None
        if scenario == "sandbox":
            argv = agent.sandbox_cmd()
            ws = self.workspace(tag)
            env = agent.env(home, "")
            agent.configure(home, "http://127.0.0.1:9/v1", ws)
            m = self.measured(wrap + argv, env, ws, tag)
            shutil.rmtree(ws, ignore_errors=True)
            if m["status"] != 0:
                return None, "exit %s: %s" % (m["status"], m["stderr_tail"][-300:])
            return m, None
        extra = None
        ws = None
        if scenario == "one_turn":
            steps, prompt, want = [("text", ANSWER)], "say hello", ANSWER
        elif scenario == "task":
            steps, prompt, want = TASK, "Fix sub, add mul and tests, bound clamp.", TASK_ANSWER
        elif scenario == "task_cheap":
            steps, prompt, want = TASK_CHEAP, "Look around the sources and tests.", CHEAP_ANSWER
        elif scenario == "subagent":
            steps, prompt, want = SUBAGENT, "Ask a sub-agent for the answer.", SUB_ANSWER
        elif scenario == "hook":
            steps, prompt, want = hook_steps(), "Read the ten files.", HOOK_ANSWER
            extra = hook_extra
        elif scenario == "search_turn":
            word = searchlab.AGENT_WORD
            steps, prompt, want = [("grep", word), ("text", SEARCH_ANSWER)], \
                "Which files mention %s?" % word, SEARCH_ANSWER
            ws = self.search_tree()
        elif scenario == "big_output":
            steps, prompt, want = BIG, "Print 2 MiB of text and count it.", BIG[-1][1]
        elif scenario in LONG_SCENARIOS:
            every = LONG_SUB_EVERY if scenario == "long_sub" else 0
            steps, prompt, want = long_steps(self.long_turns, every), "A long session.", \
                "Finished the long session."
            extra = long_extra(self.long_turns)
        else:
            raise ValueError(scenario)
        shared_ws = ws is not None
        if not shared_ws:
            ws = self.workspace(tag, extra)
        turns = [agent.turn(s, ws, i) for i, s in enumerate(steps)]
        proc, base_url, sdir = self.start_server(turns, agent, tag)
        try:
            agent.configure(home, base_url, ws)
            if scenario == "hook":
                agent.hook_setup(home, ws, not isinstance(agent, NoHook))
            env = agent.env(home, base_url)
            m = self.measured(wrap + agent.task_cmd(prompt, ws), env, ws, tag, series=series,
                              interval=20 if scenario in LONG_SCENARIOS else 5,
                              timeout=3600 if scenario in LONG_SCENARIOS else 300,
                              exclude=TASK_CMD_NAMES if scenario in TASKS else None)
        finally:
            self.stop_server(proc)
        reqs = self.server_requests(sdir)
        used = [r["turn"] for r in reqs if r.get("turn") is not None]
        m["requests"] = len([r for r in reqs if r["method"] == "POST"])
        m["request_times"] = [r["time"] for r in reqs if r.get("turn") is not None]
        why = None
        if m["status"] != 0:
            why = "exit %s: %s" % (m["status"], m["stderr_tail"][-400:].strip())
        elif len(used) != len(turns):
            why = "the agent made %d scripted requests, the script has %d" % (len(used), len(turns))
        elif want not in m["stdout"]:
            why = "the final answer is missing from its output: %r" % m["stdout"][-300:]
        elif scenario == "search_turn":
            why = searchlab.check_agent_result(self, reqs)
        elif scenario in LONG_SCENARIOS:
            why = check_long(steps, reqs)
            m["results_kept"] = long_results_kept(steps, reqs)
            m["tool_results"] = sum(1 for s in steps if s[0] in ("read", "shell"))
        elif scenario in TASKS:
            got = tree_digest(ws)
            if got != self.expected_task(scenario):
                exp = self.expected_task(scenario)
                diff = sorted(k for k in set(got) | set(exp) if got.get(k) != exp.get(k))
                why = "final files differ from the expected ones: " + ", ".join(diff)
        if why is None:
            if not shared_ws:
                shutil.rmtree(ws, ignore_errors=True)
            shutil.rmtree(sdir, ignore_errors=True)
        return (None, why) if why else (m, None)

    def run_floor(self, tag, scenario="task"):
        """The floor of (c): the task's shell commands alone, in order, each
        through /bin/sh -c in a fresh copy of the fixture, no agent and no
        sandbox; the patches are applied between them (unmeasured) so every
        command sees the files it sees in an agent's run. Each command is
        one treemeasure run; the floor's CPU and wall are their sums, its
        peak RSS the largest (they run one after the other).
        (measurement, None) or (None, why it failed)."""
        ws = self.workspace(tag)
        home = os.path.join(self.scratch, "home-floor")
        os.makedirs(home, exist_ok=True)
        env = agents_mod.Agent(self).env(home, "")
        total = {"wall_us": 0, "cpu_us": 0, "user_us": 0, "sys_us": 0, "peak_rss_kb": 0,
                 "max_proc_rss_kb": 0, "procs": 0, "commands": 0}
        for i, s in enumerate(TASKS[scenario]):
            if s[0] == "patch":
                apply_patch(ws, s)
            if s[0] != "shell":
                continue
            m = self.measured(["/bin/sh", "-c", s[1]], env, ws, "%s-%d" % (tag, i))
            if m["status"] != 0:
                return None, "command %d `%s`: exit %s: %s" % (
                    i, s[1], m["status"], m["stderr_tail"][-300:].strip())
            for k in ("wall_us", "cpu_us", "user_us", "sys_us"):
                total[k] += m[k]
            for k in ("peak_rss_kb", "max_proc_rss_kb", "procs"):
                total[k] = max(total[k], m[k])
            total["commands"] += 1
        got = tree_digest(ws)
        if got != self.expected_task(scenario):
            return None, "final files differ from the expected ones"
        shutil.rmtree(ws, ignore_errors=True)
        return total, None

    _tree = None

    def search_tree(self):
        """The large tree of scenario (f), made once per lab run."""
        if self._tree is None:
            tree = os.path.join(self.scratch, "search-tree")
            shutil.rmtree(tree, ignore_errors=True)
            self.tree_summary = searchtree.make_tree(tree)
            self.say("search tree: %(files)d files, %(bytes)d bytes" % self.tree_summary)
            self._tree = tree
        return self._tree

    _expected = None

    def expected_task(self, scenario="task"):
        """A task's final files, made by applying its steps directly."""
        if self._expected is None:
            self._expected = {}
        if scenario not in self._expected:
            ws = self.workspace("expected-" + scenario)
            for s in TASKS[scenario]:
                if s[0] == "shell":
                    subprocess.run(["sh", "-c", s[1]], cwd=ws, check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                elif s[0] == "patch":
                    apply_patch(ws, s)
            self._expected[scenario] = tree_digest(ws)
            shutil.rmtree(ws)
        return self._expected[scenario]

    # -- the side-by-side runs ---------------------------------------------------
    def full(self, agent_names, scenarios):
        agents = []
        status = {}
        for cls in agents_mod.ALL:
            a = cls(self)
            if agent_names and a.name not in agent_names and \
                    not (a.name == "codex (npm launcher)" and "codex" in agent_names):
                continue
            ok, why = a.available()
            status[a.name] = {"available": ok, "reason": why,
                              "version": a.version() if ok else None,
                              "runs_as": a.runs_as() if ok else None}
            if ok:
                agents.append(a)
            else:
                self.say("%s: not available: %s" % (a.name, why))
        results = {"agents": status, "scenarios": {}, "runs": self.runs, "warmup": self.warmup}
        if self.slow_cap:
            results["slow_cap"] = [self.slow_cap, self.slow_runs]
        for sc in scenarios:
            res = {}
            results["scenarios"][sc] = res
            active = []
            for a in agents:
                if a.only is not None and sc not in a.only:
                    continue
                why = None
                if sc == "sandbox" and a.sandbox_cmd() is None:
                    why = a.sandbox_reason()
                elif sc in ("subagent", "long_sub"):
                    why = a.subagent_reason()
                elif sc == "hook" and not a.hook_setup(self.home(a, sc), None, False):
                    why = a.hook_reason()
                if why:
                    res[a.name] = {"not_comparable": why}
                    continue
                active.append(a)
                res[a.name] = {"runs": []}
                if not a.peer:
                    res[a.name]["not_peer"] = True
                if sc == "hook":
                    # Its pair: the same run without the hook, in the rotation.
                    off = NoHook(a)
                    active.append(off)
                    res[off.name] = {"runs": [], "not_peer": True}
            n = 1 if sc in LONG_SCENARIOS else self.warmup + self.runs
            if sc in TASKS and any(a.peer for a in active):
                # The floor takes its turn in the rotation like an agent; it
                # is kept apart from the agents (never a "peer").
                floor = {"runs": []}
                results.setdefault("floors", {})[sc] = floor
                if sc == "task":
                    results["task_floor"] = floor
                active = active + [FloorRunner(floor)]
            for r in range(n):
                # A/B interleaved: every round runs each agent once, and the
                # order rotates so no agent always follows the same one.
                order = active[r % len(active):] + active[:r % len(active)] if active else []
                for a in order:
                    rec = a.rec if isinstance(a, FloorRunner) else res[a.name]
                    if "failed" in rec or r >= rec.get("limit", n):
                        continue
                    tag = "%s-%s-%d" % (sc, a.name.replace(" ", "_"), r)
                    series = os.path.join(self.results, series_name(sc, a.name)) \
                        if sc in LONG_SCENARIOS else None
                    t0 = time.time()
                    if isinstance(a, FloorRunner):
                        m, why = self.run_floor(tag, sc)
                        if why:
                            self.say("%s %s run %d FAILED: %s" % (sc, a.name, r, why))
                            rec["failed"] = why
                        elif r >= self.warmup:
                            rec["runs"].append(m)
                        if m:
                            self.say("%s %s run %d: wall %.1f ms, cpu %.1f ms, peak %.1f MiB "
                                     "(%d commands)" % (sc, a.name, r, m["wall_us"] / 1e3,
                                                        m["cpu_us"] / 1e3,
                                                        m["peak_rss_kb"] / 1024, m["commands"]))
                        continue
                    m, why = self.run_scenario(sc, a, tag, series=series)
                    if why:
                        self.say("%s %s run %d FAILED: %s" % (sc, a.name, r, why))
                        res[a.name]["failed"] = why
                        continue
                    self.say("%s %s run %d: wall %.1f ms, cpu %.1f ms, peak %.1f MiB (%.1fs)" % (
                        sc, a.name, r, m["wall_us"] / 1e3, m["cpu_us"] / 1e3,
                        m["peak_rss_kb"] / 1024, time.time() - t0))
                    m.pop("stdout", None)
                    if sc not in LONG_SCENARIOS:
                        m.pop("request_times", None)
                    if sc not in LONG_SCENARIOS and r == 0 and self.warmup and self.slow_cap and \
                            m["wall_us"] > self.slow_cap * 1e6:
                        # A very slow agent gets fewer runs, so the whole lab
                        # fits in its time; the report says how many it got.
                        res[a.name]["limit"] = self.warmup + self.slow_runs
                    if r >= (0 if sc in LONG_SCENARIOS else self.warmup):
                        res[a.name]["runs"].append(m)
            self.save(results)
        return results

    def save(self, results):
        """Writes what a run has measured so far (results.json, marked
        partial until the run ends): a run cut short still has its figures."""
        if self.save_to:
            self.save_to(results)

    # -- instruction counts for zero's own scenarios ------------------------------
    def callgrind(self, scenarios):
        zero = agents_mod.Zero(self)
        out = {}
        for sc in scenarios:
            cg = os.path.join(self.results, "callgrind-%s.out" % sc)
            wrap = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg]
            if sc == "search":
                m, why = searchlab.run_callgrind(self, wrap)
            else:
                m, why = self.run_scenario(sc, zero, "cg-" + sc, wrap=wrap)
            if why:
                out[sc] = {"failed": why}
                self.say("callgrind %s FAILED: %s" % (sc, why))
                continue
            ir = None
            with open(cg) as f:
                for line in f:
                    if line.startswith(("summary:", "totals:")):
                        ir = int(line.split()[1])
            out[sc] = {"ir": ir}
            self.say("callgrind %s: %.2f M instructions" % (sc, ir / 1e6))
        return out


GUARD_SCENARIOS = ["version", "one_turn", "task", "big_output", "sandbox", "search"]
# Every scenario of a full run, in order. One per capability as it lands:
#   subagent  a sub-agent round trip (zero's task tool; Claude Code's Agent;
#             opencode's task)
#   hook      a no-op hook before each tool call (hooks.json; PreToolUse)
#   egress    100 MiB through zero's egress proxy vs direct (zero only)
#   mcp_http  `zero serve --mcp --http` under 8 concurrent clients (zero only)
#   batch     64 one-turn tasks, 8 at once (zero batch --local -j 8; 64
#             `codex exec`, 64 `claude -p` with xargs -P 8)
#   swarm     an 8-member swarm: RSS of the whole tree while all eight wait
#             (8 native `codex exec`, 8 `claude -p` side by side as peers)
#   long_sub  the long session with a delegation every LONG_SUB_EVERY turns
#             (agents with a sub-agent tool): does memory stay flat?
FULL_SCENARIOS = ["version", "one_turn", "task", "task_cheap", "big_output", "sandbox",
                  "search_turn", "search", "sessions", "subagent", "hook", "egress", "mcp_http",
                  "batch", "swarm", "long", "long_sub"]
# Scenarios that are not one command per agent: (f) zero's tools against rg,
# (g) zero's sessions at scale beside an earlier commit's zero, and the
# capability scenarios measured by capslab.py.
CAPS = ("egress", "mcp_http", "batch", "swarm")
SPECIAL = {"search", "sessions"} | set(CAPS)
# The scenarios run once, whole-tree RSS sampled over time (a series file).
LONG_SCENARIOS = ("long", "long_sub")


def python_info():
    """What the task's Python commands run: the pinned interpreter, what it
    reports, and what a bare `python3` on the lab's PATH would have been."""
    probe = "import sys; print(sys.executable); print(sys.version.split()[0])"
    info = {"command": PYTHON, "on_path": shutil.which("python3") or "none"}
    try:
        out = subprocess.run(["/bin/sh", "-c", PYRUN + " -c " + shlex.quote(probe)],
                             capture_output=True, text=True, timeout=60).stdout.split("\n")
        info["executable"], info["version"] = out[0], out[1]
    except (OSError, subprocess.TimeoutExpired, IndexError) as e:
        info["executable"], info["version"] = "unknown (%s)" % e, "?"
    return info


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["full", "guard", "record"])
    ap.add_argument("results")
    ap.add_argument("--zero", required=True)
    ap.add_argument("--peers", default=os.path.join(ROOT, "bench", ".peers"))
    ap.add_argument("--treemeasure", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--long-turns", type=int, default=100)
    ap.add_argument("--slow-cap", type=float, default=0,
                    help="an agent whose warm-up run takes longer (s) gets --slow-runs runs "
                         "(default 0: off, every agent gets --runs runs)")
    ap.add_argument("--slow-runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="(g) at the small sizes, not recorded in the history")
    ap.add_argument("--agents", default="", help="comma-separated subset")
    ap.add_argument("--scenarios", default="", help="comma-separated subset")
    args = ap.parse_args(argv)
    os.makedirs(args.results, exist_ok=True)
    lab = Lab(args)
    if args.mode in ("guard", "record"):
        scs = [s for s in (args.scenarios.split(",") if args.scenarios else GUARD_SCENARIOS) if s]
        counts = lab.callgrind(scs)
        if lab._tree:
            shutil.rmtree(lab._tree, ignore_errors=True)
        failed = [s for s, c in counts.items() if "failed" in c]
        if failed:
            print("bench guard: zero failed scenario(s) %s; see %s/lab.log" % (
                ", ".join(failed), args.results))
            return 1
        if args.mode == "record":
            with open(BASELINE, "w") as f:
                json.dump({s: c["ir"] for s, c in counts.items()}, f, indent=2, sort_keys=True)
                f.write("\n")
            print("bench guard: baseline written to %s" % os.path.relpath(BASELINE, ROOT))
            return 0
        try:
            with open(BASELINE) as f:
                base = json.load(f)
        except OSError:
            print("bench guard: no baseline at %s; record one with bench/lab/run --record-baseline"
                  % BASELINE)
            return 1
        bad = 0
        print("| scenario | baseline Ir | now Ir | change |\n|---|---|---|---|")
        for s, c in counts.items():
            b = base.get(s)
            if not b:
                print("| %s | — | %d | (no baseline) |" % (s, c["ir"]))
                continue
            ch = c["ir"] / b - 1
            flag = ""
            if ch > GUARD_LIMIT:
                flag, bad = " **REGRESSION**", bad + 1
            print("| %s | %d | %d | %+.1f %%%s |" % (s, b, c["ir"], ch * 100, flag))
        if bad:
            print("bench guard: %d scenario(s) cost more than %d %% over the baseline. Find the "
                  "cause (callgrind files in %s), or if the cost is intended, re-record with "
                  "bench/lab/run --record-baseline and commit bench/lab/baseline-ir.json."
                  % (bad, GUARD_LIMIT * 100, args.results))
            return 1
        print("bench guard: every scenario within %d %% of the baseline" % (GUARD_LIMIT * 100))
        return 0
    scs = [s for s in (args.scenarios.split(",") if args.scenarios else FULL_SCENARIOS) if s]
    names = [a for a in args.agents.split(",") if a]
    common = {"task_turns": len(TASK), "hook_calls": HOOK_CALLS, "python": python_info(),
              "task_cmd_names": TASK_CMD_NAMES, "long_turns": args.long_turns}
    out = os.path.join(args.results, "results.json")
    lab.save_to = lambda r: write_results(out, dict(r, partial=scs, **common))
    results = lab.full(names, [s for s in scs if s not in SPECIAL])
    if "search" in scs:
        results["search"] = searchlab.run(lab)
        lab.save(results)
    if "sessions" in scs:
        results["sessions"] = sessionslab.run(lab, args.quick)
        lab.save(results)
    for sc in CAPS:
        if sc in scs:
            results[sc] = capslab.run(lab, sc, names)
            lab.save(results)
    results["callgrind"] = lab.callgrind([s for s in scs if s in GUARD_SCENARIOS])
    if lab._tree:
        results["search_tree"] = lab.tree_summary
        shutil.rmtree(lab._tree, ignore_errors=True)
    write_results(out, dict(results, **common))
    lab.say("results in " + out)
    return 0


def write_results(path, results):
    """results.json, replaced whole (never half written)."""
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
