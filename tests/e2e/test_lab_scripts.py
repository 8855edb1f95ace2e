"""The performance lab's own logic (bench/lab), without running any agent:

- the long session's steps never repeat a tool call, so Gemini CLI's loop
  detection (a cycle of 1 to 5 identical calls seen 5 times in a row) cannot
  stop it — it made 11 of 40 requests when the steps alternated two calls;
- the long-session check finds every tool result in the request right
  after its call, in each agent's protocol, notices a missing one, and
  accepts an agent that later drops old results from its context (zero's
  pruning, Claude Code's compaction: 500 turns outgrow a context window);
- the search tree is the same on every run, and its .gitignore'd files
  really contain the query word (so ignoring them matters);
- zero's grep/glob answers are compared with rg's line for line, and the
  in-agent check reads only tool results (Gemini CLI's prompt lists files);
- scenario (g) runs beside zero built at the commit of the last record of
  the same size (both binaries interleaved on the same data in one run;
  bench/sessions/run --against), falls back to that record when the
  commit cannot be built, says which in the report, and
  bench/sessions/run writes the same search data whether or not the resume
  part ran first (its output pool was cached for the first size asked, so
  `--only resume,search` wrote 2.1 GB of sessions instead of 1.1 GB);
- (c)'s bare-commands floor runs the task's commands without an agent,
  fails when one of them fails, runs interleaved with the agents, and the
  report shows it as a baseline row (never the best peer) with each agent's
  overhead over it; treemeasure -x leaves the command processes out of the
  agent-side RSS; the task's Python commands name one interpreter by path;
- (l) and (m) run Claude Code beside Codex the same way (xargs starting one
  headless run per prompt line; 8 runs side by side), and the report gives
  each peer's ratio to zero and the best one at a glance; opencode's
  sub-agent step is a call of its own `task` tool.
"""
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "lab")
sys.path.insert(0, LAB)

import agents  # noqa: E402
import harness  # noqa: E402
import capslab  # noqa: E402
import lab  # noqa: E402
import report  # noqa: E402
import searchlab  # noqa: E402
import searchtree  # noqa: E402
import sessionslab  # noqa: E402


def gemini_sees_loop(keys, threshold=5):
    """Gemini CLI 0.61's checkToolCallLoop over a whole session."""
    hist = []
    for key in keys:
        hist = (hist + [key])[-5 * threshold:]
        n = len(hist)
        for k in range(1, 6):
            if n >= k * threshold:
                cycle = hist[-k:]
                if all(hist[n - k * threshold + i] == cycle[i % k] for i in range(k * threshold)):
                    return True
    return False


class FakeLab:
    def __init__(self, tree=None):
        self.tree = tree

    def search_tree(self):
        return self.tree


class LongSessionTest(unittest.TestCase):
    def test_no_repeated_tool_calls_for_any_agent(self):
        steps = lab.long_steps(100)
        self.assertEqual(steps[-1][0], "text")
        for cls in agents.ALL:
            a = cls(None)
            keys = [json.dumps(a.tool_call(s, "/ws"), sort_keys=True) for s in steps[:-1]]
            self.assertEqual(len(keys), len(set(keys)), cls.name)
            self.assertFalse(gemini_sees_loop(keys), cls.name)

    def test_the_old_alternating_steps_were_a_loop(self):
        old = ["read data.txt", "wc -c data.txt"] * 20
        self.assertTrue(gemini_sees_loop(old))

    @staticmethod
    def long_results(ws, steps):
        """The tool result text of each read / shell step of a long session."""
        out = []
        for s in steps[:-1]:
            if s[0] not in ("read", "shell"):
                out.append(None)
                continue
            name = lab.long_step_file(s)
            p = os.path.join(ws, name)
            out.append(open(p).read() if s[0] == "read" else
                       "%d %s\n" % (os.path.getsize(p), name))
        return out

    @staticmethod
    def long_requests(results, body_of, keep_all=True, drop=()):
        """One request per scripted turn: turn i+1 carries result i (every
        earlier one too with keep_all, else only the newest), results whose
        step index is in drop never sent."""
        reqs, sent = [{"turn": 0, "body": body_of([])}], []
        for i, r in enumerate(results):
            if r is not None and i not in drop:
                sent = sent + [r] if keep_all else [r]
            reqs.append({"turn": i + 1, "body": body_of(sent)})
        return reqs

    def test_check_long_in_every_protocol(self):
        steps = lab.long_steps(6)
        ws = tempfile.mkdtemp(prefix="lab-long-")
        try:
            lab.long_extra(6)(ws)
            results = self.long_results(ws, steps)
            bodies = {
                "responses": lambda rs: {"input": [{"type": "function_call_output", "output": r}
                                                   for r in rs]},
                "chat": lambda rs: {"messages": [{"role": "tool", "content": r} for r in rs]},
                "anthropic": lambda rs: {"messages": [{"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": r}]} for r in rs]},
                "gemini": lambda rs: {"contents": [{"parts": [{"functionResponse": {
                    "response": {"output": r}}}]} for r in rs]},
            }
            for proto, body_of in bodies.items():
                reqs = self.long_requests(results, body_of)
                self.assertIsNone(lab.check_long(steps, reqs), proto)
                self.assertEqual(lab.long_results_kept(steps, reqs), 5, proto)
            responses = bodies["responses"]
            # Old results dropped from the context later: still done, fewer kept.
            reqs = self.long_requests(results, responses, keep_all=False)
            self.assertIsNone(lab.check_long(steps, reqs))
            self.assertEqual(lab.long_results_kept(steps, reqs), 1)
            # A result that never reached the model: the work was not done.
            why = lab.check_long(steps, self.long_requests(results, responses, drop=(4,)))
            self.assertIn("1 of 5 tool results missing", why)
            why = lab.check_long(steps, self.long_requests(results, responses)[:-1])
            self.assertEqual(why, "no request for the last scripted turn")
        finally:
            shutil.rmtree(ws)

    def test_delegating_long_session(self):
        """long_sub: a task call then the child's answer every 10th turn,
        the turn count kept, no repeated tool call, and the check reads the
        read/shell results only (the child's answer is not a tool result)."""
        steps = lab.long_steps(40, lab.LONG_SUB_EVERY)
        self.assertEqual(len(steps), 40)
        kinds = [s[0] for s in steps]
        self.assertEqual(kinds.count("task"), 3)
        for i, k in enumerate(kinds):
            if k == "task":
                self.assertEqual(i % lab.LONG_SUB_EVERY, lab.LONG_SUB_EVERY - 1)
                self.assertEqual(kinds[i + 1], "text")
        zero = agents.Zero(None)
        calls = [json.dumps(zero.tool_call(s, "/ws"), sort_keys=True)
                 for s in steps[:-1] if s[0] != "text"]
        self.assertEqual(len(calls), len(set(calls)))
        tools = [s for s in steps if s[0] in ("read", "shell")]
        ws = tempfile.mkdtemp(prefix="lab-long-sub-")
        try:
            lab.long_extra(40)(ws)
            results = self.long_results(ws, steps)

            def body_of(rs):
                return {"input": [{"type": "function_call_output", "output": r} for r in rs]}
            self.assertIsNone(lab.check_long(steps, self.long_requests(results, body_of)))
            third = [i for i, s in enumerate(steps) if s[0] in ("read", "shell")][3]
            why = lab.check_long(steps, self.long_requests(results, body_of, drop=(third,)))
            self.assertIn("1 of %d tool results missing" % len(tools), why)
        finally:
            shutil.rmtree(ws)

    def test_rss_slope_of_the_second_half(self):
        flat = {t: 50.0 + (30.0 if t < 5 else 0.0) for t in range(1, 101)}
        slope, first, last = report.rss_slope(flat)
        self.assertAlmostEqual(slope, 0.0, places=6)
        self.assertEqual((first, last), (80.0, 50.0))
        growing = {t: 40.0 + 0.02 * t for t in range(1, 501)}
        self.assertAlmostEqual(report.rss_slope(growing)[0], 2.0, places=6)
        self.assertIsNone(report.rss_slope({1: 1.0, 2: 1.0, 3: 1.0}))


class SearchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="lab-tree-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def digest(self, top):
        h = hashlib.sha256()
        for d, dirs, files in os.walk(top):
            dirs[:] = sorted(x for x in dirs if x != ".git")
            for f in sorted(files):
                p = os.path.join(d, f)
                h.update(os.path.relpath(p, top).encode())
                with open(p, "rb") as fh:
                    h.update(fh.read())
        return h.hexdigest()

    def test_tree_is_deterministic_and_ignored_files_match(self):
        a, b = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        sa = searchtree.make_tree(a, libs=2)
        sb = searchtree.make_tree(b, libs=2)
        self.assertEqual(sa, sb)
        self.assertEqual(self.digest(a), self.digest(b))
        self.assertEqual(sa["files"], 2 * searchtree.DIRS_PER_LIB * searchtree.FILES_PER_DIR + 2)
        with open(os.path.join(a, ".gitignore")) as f:
            self.assertEqual(f.read(), "build/\n*.log\n")
        self.assertTrue(os.path.isdir(os.path.join(a, ".git")))
        ignored = []
        for d, _, files in os.walk(os.path.join(a, "vendor")):
            ignored += [os.path.join(d, f) for f in files
                        if f.endswith(".log") or os.path.basename(d) == "build"]
        self.assertEqual(len(ignored), sa["ignored_files"])

    def test_check_outputs(self):
        self.assertIsNone(searchlab.check_outputs("b\na\n", "a\nb\n"))
        why = searchlab.check_outputs("a\nc\n", "a\nb\n")
        self.assertIn("only zero: ['c']", why)
        self.assertIn("only rg: ['b']", why)
        self.assertIn("budget", searchlab.check_outputs(
            "a\n[… output truncated: 10 of 20 bytes omitted here.]", "a\n"))

    @unittest.skipUnless(shutil.which("rg"), "ripgrep not installed")
    def test_agent_check_reads_tool_results_only(self):
        tree = os.path.join(self.dir, "t")
        searchtree.make_tree(tree, libs=3)
        # stdin from /dev/null: with no path and a readable stdin (make -j
        # hands parallel jobs a pipe at EOF), rg searches stdin, not the cwd.
        truth = subprocess.run(["rg", "-l", "-e", searchlab.AGENT_WORD], cwd=tree,
                               stdin=subprocess.DEVNULL, capture_output=True,
                               text=True).stdout.split()
        self.assertTrue(truth)
        allfiles = subprocess.run(["rg", "--files"], cwd=tree, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True).stdout.split()
        other = sorted(f for f in set(allfiles) - set(truth) if f.startswith("vendor/"))[0]
        fl = FakeLab(tree)
        # Gemini CLI's prompt lists workspace files; only the tool result counts.
        body = {"contents": [{"parts": [{"text": "folder: " + other}]},
                             {"parts": [{"functionResponse": {"response": {
                                 "output": "Found:\n" + "\n".join(truth[:3])}}}]}]}
        self.assertIsNone(searchlab.check_agent_result(fl, [{"turn": 1, "body": body}]))
        body["contents"][1]["parts"][0]["functionResponse"]["response"]["output"] += "\n" + other
        self.assertIn("without the word",
                      searchlab.check_agent_result(fl, [{"turn": 1, "body": body}]))
        body = {"messages": [{"role": "tool", "content": "No files found"}]}
        self.assertIn("names no matching file",
                      searchlab.check_agent_result(fl, [{"turn": 1, "body": body}]))


class SessionsHistoryTest(unittest.TestCase):
    def test_figures_and_sizes(self):
        rec = {"resume": {"events": 10, "first_request_ms": 5.0},
               "search": {"sessions": 2, "index_wall_s": 1.0,
                          "queries": {"q": {"wall_ms": 3.0, "cpu_ms": 2.0}}}}
        self.assertEqual(sessionslab.sizes_of(rec), (10, 2))
        figs = {label: v for _, label, _, v in sessionslab.figures_of(rec)}
        self.assertEqual(figs["resume: first request after"], 5.0)
        self.assertIsNone(figs["resume: CPU"])
        self.assertEqual(figs["search `q`: CPU"], 2.0)

    def test_previous_is_the_same_workload_part_by_part(self):
        old = {"date": "1", "resume": {"events": 10, "log_mb": 20.0},
               "search": {"sessions": 5, "logs_mb": 100}}
        newer = {"date": "2", "resume": {"events": 10, "log_mb": 20.5},
                 "search": {"sessions": 5, "logs_mb": 200}}
        now = {"resume": {"events": 10, "log_mb": 20.2}, "search": {"sessions": 5, "logs_mb": 98}}
        prev = sessionslab.previous_of([old, newer], now)
        self.assertEqual(prev["resume"]["date"], "2")  # the last one with the same workload
        self.assertEqual(prev["search"]["date"], "1")  # twice the data is not comparable
        self.assertIsNone(sessionslab.previous_of([], now)["search"])

    def test_sessions_output_pool_per_size(self):
        path = os.path.join(os.path.dirname(LAB), "sessions", "run")
        loader = importlib.machinery.SourceFileLoader("sessions_run", path)
        spec = importlib.util.spec_from_loader("sessions_run", loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        big = mod.output_pool(3893)
        small = mod.output_pool(1896)
        self.assertTrue(all(len(x) <= 1896 for x in small))
        self.assertTrue(any(len(x) > 3000 for x in big))
        self.assertIs(mod.output_pool(1896), small)

    def test_the_baseline_is_the_commit_of_the_last_record_of_the_size(self):
        hist = [{"build": "zero 0.1.0, CMake Release, commit aaaaaaa",
                 "resume": {"events": 100000}, "search": {"sessions": 1000}},
                {"build": "zero 0.1.0, CMake Release, commit bbbbbbb",
                 "resume": {"events": 100000}, "search": {"sessions": 1000}},
                {"build": "zero 0.1.0, CMake Release, commit ccccccc",
                 "resume": {"events": 10000}, "search": {"sessions": 100}},
                {"build": "?", "resume": {"events": 100000}, "search": {"sessions": 1000}}]
        self.assertEqual(sessionslab.baseline_commit(hist, quick=False), "bbbbbbb")
        self.assertEqual(sessionslab.baseline_commit(hist, quick=True), "ccccccc")
        self.assertIsNone(sessionslab.baseline_commit(hist[:1], quick=True))

    def test_a_commit_not_in_the_clone_is_said_not_built(self):
        class Lab:
            said = []

            def say(self, m):
                self.said.append(m)

        exe, why = sessionslab.baseline_zero(Lab(), "0123456789abcdef0123456789abcdef01234567")
        self.assertIsNone(exe)
        self.assertIn("is not in this clone", why)

    def test_sessions_run_measures_the_against_binary_beside_zero(self):
        """Both binaries on the same data, in one run: the second's figures
        under "against" (the same build here: this checks the plumbing)."""
        zero = harness.ZERO_BIN
        d = tempfile.mkdtemp(prefix="lab-sessions-")
        try:
            out = os.path.join(d, "figs.json")
            r = subprocess.run([sys.executable, os.path.join(os.path.dirname(LAB), "sessions",
                                                             "run"),
                                "--quick", "--only", "resume", "--zero", zero, "--against", zero,
                                "--json", out], capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                figs = json.load(f)
        finally:
            shutil.rmtree(d)
        self.assertEqual(figs["against"]["zero"], os.path.abspath(zero))
        for rec in (figs, figs["against"]):
            self.assertEqual(rec["resume"]["events"], 10000)
            self.assertGreater(rec["resume"]["cpu_ms"], 0)
        self.assertEqual(r.stdout.count("| resume, 10000 events"), 2)

    def test_report_says_side_by_side_and_flags_a_regression(self):
        now = {"date": "d", "load_avg_1min": 0.5,
               "resume": {"events": 10, "log_mb": 1.0, "first_request_ms": 10.0,
                          "cpu_ms": 30.0, "peak_rss_mib": 10.0},
               "search": {"sessions": 2, "logs_mb": 3, "index_wall_s": 1.0, "index_cpu_s": 2.0,
                          "index_peak_rss_mib": 50.0, "index_mb": 4, "queries": {}}}
        base = json.loads(json.dumps(now))
        base["resume"]["cpu_ms"] = 20.0  # this commit takes 50 % more CPU
        prev = sessionslab.side_by_side({"date": "d"}, {"against": base}, "abc1234", 0.5)
        ses = {"now": now, "previous": prev, "side_by_side": "abc1234", "recorded": False}
        lines = []
        report.render_sessions(lines.append, {"sessions": ses})
        text = "\n".join(lines)
        self.assertIn("against an earlier commit's zero in the same run", text)
        self.assertIn("Side by side: zero as built at commit abc1234", text)
        self.assertIn("| figure | this commit | commit abc1234 | change |", text)
        self.assertIn("| resume: CPU | 30.0 ms | 20.0 ms | +50 % **worse** |", text)
        self.assertNotIn("Not side by side", text)
        floor = FloorReportTest("test_no_floor_no_row")
        results = dict(floor.results(None), sessions=ses)
        self.assertIn("| (g) resume and search: no regression over 10 % (CPU, memory, index "
                      "size) against commit abc1234's zero, side by side in this run | worse: "
                      "resume: CPU +50 % (same data, interleaved) | **regressed** |",
                      floor.render(results))
        ses.update(side_by_side=None, why_not_side_by_side="commit abc1234 is not in this clone")
        lines = []
        report.render_sessions(lines.append, {"sessions": ses})
        self.assertIn("Not side by side (commit abc1234 is not in this clone)", "\n".join(lines))

    def test_history_file_parses_and_has_full_size_records(self):
        hist = sessionslab.load_history()
        self.assertTrue(hist)
        self.assertIn((100000, 1000), [sessionslab.sizes_of(h) for h in hist])


def build_treemeasure(d):
    exe = os.path.join(d, "treemeasure")
    subprocess.run(["cc", "-O2", "-std=c17", "-Wall", "-Wextra", "-Werror", "-o", exe,
                    os.path.join(LAB, "treemeasure.c")], check=True)
    return exe


def make_lab(d, zero="/nonexistent/zero"):
    args = types.SimpleNamespace(zero=zero, peers=os.path.join(d, "peers"), results=d,
                                 treemeasure=build_treemeasure(d), runs=2, warmup=1,
                                 long_turns=10, slow_cap=0, slow_runs=3)
    return lab.Lab(args)


def zero_bin():
    import harness
    return os.path.abspath(harness.ZERO_BIN)


@unittest.skipUnless(shutil.which("cc"), "no C compiler for treemeasure")
class FloorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="lab-floor-")
        self.lab = make_lab(self.dir)

    def tearDown(self):
        self.lab.log.close()
        shutil.rmtree(self.dir)

    def test_python_commands_name_one_interpreter(self):
        py = [s[1] for s in lab.TASK if s[0] == "shell" and "python" in s[1]]
        self.assertEqual(len(py), 3)
        for cmd in py:
            self.assertIn(lab.PYTHON, cmd)
            self.assertNotIn(" python3 ", " " + cmd.replace(lab.PYTHON, "PY") + " ")
        info = lab.python_info()
        self.assertEqual(os.path.realpath(info["executable"]), lab.PYTHON)
        self.assertRegex(info["version"], r"^3\.\d+")

    def test_floor_runs_the_task_commands(self):
        m, why = self.lab.run_floor("floor")
        self.assertIsNone(why)
        shells = [s for s in lab.TASK if s[0] == "shell"]
        self.assertEqual(m["commands"], len(shells))
        self.assertGreater(m["cpu_us"], 0)
        self.assertGreater(m["peak_rss_kb"], 0)
        self.assertFalse(os.path.exists(os.path.join(self.lab.scratch, "ws-floor")))

    def test_failing_floor_command_is_a_failure(self):
        task = list(lab.TASK)
        i = next(i for i, s in enumerate(task) if s[0] == "shell" and "wc -l" in s[1])
        task[i] = ("shell", "wc -l src/nope.py")
        old = lab.TASKS["task"]
        lab.TASKS["task"] = task
        try:
            self.lab._expected = None
            m, why = self.lab.run_floor("floor")
        finally:
            lab.TASKS["task"] = old
            self.lab._expected = None
        self.assertIsNone(m)
        self.assertIn("command %d `wc -l src/nope.py`: exit 1" % i, why)
        self.assertIn("nope.py", why)

    def test_treemeasure_leaves_commands_out_of_the_agent_side(self):
        py = lab.PYRUN + " -c 'import time; x = bytearray(20 << 20); time.sleep(0.3)'"
        # `timeout` stands for the agent: it stays, its child is the command
        # (bash, then the Python run it execs as its last command).
        m = self.lab.measured(["timeout", "30", "bash", "-c", "sleep 0.2; " + py], None,
                              self.dir, "x", exclude=lab.TASK_CMD_NAMES)
        self.assertEqual(m["status"], 0)
        self.assertGreaterEqual(m["cmd_procs"], 1)
        self.assertGreater(m["peak_rss_kb"], 20 << 10)
        self.assertGreater(m["own_rss_kb"], 0)
        self.assertLess(m["own_rss_kb"], 8 << 10)
        m = self.lab.measured(["sleep", "0.1"], None, self.dir, "y", exclude=["python3"])
        self.assertEqual(m["cmd_procs"], 0)
        self.assertGreater(m["own_rss_kb"], 0)
        self.assertNotIn("own_rss_kb", self.lab.measured(["true"], None, self.dir, "z"))

    @unittest.skipUnless(os.access(os.path.join(HERE, "..", "..", "build", "zero"), os.X_OK)
                         or os.environ.get("ZERO_BIN"), "zero not built")
    def test_full_task_interleaves_the_floor(self):
        self.lab.log.close()
        self.lab = make_lab(self.dir, zero_bin())
        res = self.lab.full(["zero"], ["task"])
        task = res["scenarios"]["task"]
        self.assertEqual(list(task), ["zero"])  # the floor is never an agent
        self.assertNotIn("failed", task["zero"], task["zero"].get("failed"))
        self.assertEqual(len(task["zero"]["runs"]), 2)
        self.assertIn("own_rss_kb", task["zero"]["runs"][0])
        self.assertGreaterEqual(task["zero"]["runs"][0]["cmd_procs"], 1)
        floor = res["task_floor"]
        self.assertEqual(len(floor["runs"]), 2)
        with open(os.path.join(self.dir, "lab.log")) as f:
            lines = [line.split(" run ")[0] for line in f if line.startswith("task ")]
        # Round by round, the order rotating: warm-up zero, floor; then floor, zero; ...
        self.assertEqual(lines, ["task zero", "task bare commands", "task bare commands",
                                 "task zero", "task zero", "task bare commands"])


def run(cpu_ms, rss_mib, own_mib=None, cmd=2):
    m = {"wall_us": cpu_ms * 2000, "cpu_us": cpu_ms * 1000, "peak_rss_kb": rss_mib * 1024,
         "procs": 3}
    if own_mib is not None:
        m.update(own_rss_kb=own_mib * 1024, cmd_procs=cmd)
    return m


class FloorReportTest(unittest.TestCase):
    def results(self, floor):
        return {"runs": 2, "warmup": 1, "agents": {}, "task_cmd_names": ["sh", "python3"],
                "python": {"command": "/opt/py/bin/python3.11", "executable":
                           "/opt/py/bin/python3.11", "version": "3.11.7",
                           "on_path": "/opt/py/bin/python3"},
                "scenarios": {"task": {"zero": {"runs": [run(300, 33, 16), run(320, 33, 16)]},
                                       "codex": {"runs": [run(2200, 250, 230),
                                                          run(2000, 270, 232)]}}},
                "task_floor": floor}

    def render(self, results):
        d = tempfile.mkdtemp(prefix="lab-report-")
        try:
            return report.render(results, {}, d, d, d)
        finally:
            shutil.rmtree(d)

    def test_floor_row_and_overheads(self):
        text = self.render(self.results({"runs": [dict(run(160, 16), commands=8),
                                                  dict(run(170, 17), commands=8)]}))
        self.assertIn("| *bare commands (baseline, no agent)* | 2 | 330 (320–340) | "
                      "165 (160–170) |", text)
        # Targets keep the whole-tree ratio against the best peer, codex.
        self.assertIn("| ≥ 10× less CPU on the 20-turn task | 6.8× (vs codex) | **not met** |",
                      text)
        # Overheads: CPU (2100 − 165) / (310 − 165); agent-side RSS 231 / 16.
        self.assertIn("↳ explanation, not the target: CPU over the bare-commands floor "
                      "(165 ms of the task's own commands) | 13.3× (vs codex) | — |", text)
        self.assertIn("↳ explanation, not the target: agent-side peak RSS", text)
        self.assertIn("| 14.4× (vs codex) | — |", text)
        self.assertIn("| zero | 145 | 16.0 | 2 |", text)
        self.assertIn("| codex | 1935 | 231 | 2 |", text)
        self.assertIn("Best peer / zero on the overhead: CPU **13.3×** (codex), agent-side "
                      "peak RSS **14.4×** (codex)", text)
        self.assertNotIn("bare commands)", text.split("### Figures per scenario")[0]
                         .split("| scenario | wall")[1].split("Targets")[0])
        self.assertIn("| python3 of the task's commands | `/opt/py/bin/python3.11` "
                      "(sys.executable `/opt/py/bin/python3.11`, Python 3.11.7)", text)

    def test_failed_floor(self):
        text = self.render(self.results({"runs": [], "failed": "command 5 `x`: exit 1: boom"}))
        self.assertIn("| *bare commands (baseline, no agent)* | — | **failed**: command 5 "
                      "`x`: exit 1: boom |", text)
        self.assertNotIn("↳ explanation", text)
        self.assertNotIn("Best peer / zero on the overhead", text)
        self.assertIn("6.8× (vs codex)", text)

    def test_no_floor_no_row(self):
        r = self.results(None)
        del r["task_floor"]
        text = self.render(r)
        self.assertNotIn("bare commands", text)

    def test_a_partial_run_says_what_it_reached(self):
        r = self.results(None)
        r["partial"] = ["version", "task", "search", "long"]
        r["search"] = {}
        text = self.render(r)
        self.assertIn("**A partial run**", text)
        self.assertIn("the scenarios it completed: task, search. Not reached: version, long",
                      text)
        del r["partial"]
        self.assertNotIn("partial run", self.render(r))

    def test_each_agent_says_what_runs(self):
        r = self.results(None)
        r["agents"] = {"codex": {"available": True, "version": "codex 1.0",
                                 "runs_as": "native binary `codex/x/codex`"}}
        self.assertIn("| codex | codex 1.0; runs as native binary `codex/x/codex` |",
                      self.render(r))
        peers = tempfile.mkdtemp(prefix="lab-peers-")
        try:
            script = os.path.join(peers, "gem", "gemini.js")
            os.makedirs(os.path.dirname(script))
            with open(script, "w") as f:
                f.write("#!/usr/bin/env node\nconsole.log(1)\n")
            self.assertEqual(agents.executable_kind(script, peers),
                             "`/usr/bin/env node` script `gem/gemini.js`")
            self.assertEqual(agents.executable_kind(sys.executable, peers),
                             "native binary `%s`" % os.path.basename(
                                 os.path.realpath(sys.executable)))
        finally:
            shutil.rmtree(peers)


class CapsPeersTest(unittest.TestCase):
    """(l) batch and (m) swarm with Codex and Claude Code as peers."""

    def test_xargs_starts_one_headless_run_per_prompt_line(self):
        """Each line of prompts.txt is one argument of one run of the
        agent's task command (a prompt with spaces and quotes intact)."""
        ws = tempfile.mkdtemp(prefix="lab-batch-")
        try:
            class Echo:
                def task_cmd(self, prompt, workspace):
                    return ["sh", "-c", 'printf "%s|%s\\n" "$1" "$2" >> out.txt', "x",
                            prompt, workspace]
            lines = ["say done %d" % i for i in range(20)] + ["it's \"quoted\""]
            with open(os.path.join(ws, "prompts.txt"), "w") as f:
                f.write("".join(x + "\n" for x in lines))
            subprocess.run(capslab.xargs_argv(Echo())(ws), cwd=ws, check=True)
            with open(os.path.join(ws, "out.txt")) as f:
                got = sorted(f.read().splitlines())
            self.assertEqual(got, sorted("%s|%s" % (x, ws) for x in lines))
        finally:
            shutil.rmtree(ws)

    def test_claude_runs_its_native_binary_headless(self):
        claude = agents.Claude(types.SimpleNamespace(peers="/peers"))
        cmd = claude.task_cmd("{}", "/ws")
        self.assertEqual(cmd[1:3], ["-p", "{}"])
        self.assertIn("claude -p", capslab.BATCH_ROWS["claude"])
        self.assertIn("claude -p", capslab.SWARM_ROWS["claude"])

    def test_report_gives_each_peer_and_the_best_at_a_glance(self):
        batch = {"tasks": 64, "jobs": 8, "peers": {}, "rows": {
            "zero batch --local -j 8": {"runs": [run(50, 80)] * 2},
            "codex exec × 64, xargs -P 8": {"runs": [run(1000, 1600)] * 2},
            "claude -p × 64, xargs -P 8": {"runs": [run(1500, 2400)] * 2}}}
        swarm = {"members": 8, "peers": {}, "rows": {
            "zero swarm of 8": {"runs": [{"wall_us": 0, "cpu_us": 0, "peak_rss_kb": 100 << 10,
                                          "steady_rss_kb": 80 << 10}]},
            "codex exec × 8 (native), side by side": {"runs": [
                {"wall_us": 0, "cpu_us": 0, "peak_rss_kb": 900 << 10,
                 "steady_rss_kb": 800 << 10}]},
            "claude -p × 8 (native), side by side": {"runs": [
                {"wall_us": 0, "cpu_us": 0, "peak_rss_kb": 1800 << 10,
                 "steady_rss_kb": 1600 << 10}]}}}
        r = {"runs": 2, "warmup": 1, "agents": {}, "batch": batch, "swarm": swarm,
             "scenarios": {"one_turn": {"zero": {"runs": [run(100, 10, 10)]},
                                        "codex": {"runs": [run(1000, 100, 100)]}}}}
        d = tempfile.mkdtemp(prefix="lab-report-")
        try:
            text = report.render(r, {}, d, d, d)
        finally:
            shutil.rmtree(d)
        glance = text.split("### At a glance")[1].split("Targets")[0]
        self.assertIn("| (l) a batch of 64 one-turn tasks, 8 at once (`codex exec × 64, "
                      "xargs -P 8`) | **20×** | **20×** | **20×** | codex |", glance)
        self.assertIn("(`codex exec × 8 (native), side by side`) — peak RSS / steady RSS | — "
                      "| — | **9.0×** / **10.0×** | codex (by steady RSS) |", glance)
        self.assertIn("codex ÷ zero: wall 20.0×, CPU 20.0×, peak RSS 20.0×; claude ÷ zero: "
                      "wall 30.0×, CPU 30.0×, peak RSS 30.0×.", text)
        self.assertIn("| claude -p × 8 (native), side by side | 1 | 1800 | 1600 | — | "
                      "18.0× / 20.0× |", text)

    def test_opencode_delegates_with_its_task_tool(self):
        oc = agents.OpenCode(None)
        self.assertIsNone(oc.subagent_reason())
        call = oc.tool_call(("task", "count x", "How many bytes has x?"), "/ws")
        self.assertEqual(call, {"name": "task", "arguments": {
            "description": "count x", "prompt": "How many bytes has x?",
            "subagent_type": "general"}})


if __name__ == "__main__":
    unittest.main()
