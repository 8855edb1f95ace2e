"""`zero batch --local` (issue 21, part C): a tasks file run as parallel
`zero exec` workers, one results.jsonl line per task, a failing task among
passing ones, a bad line reported with its number while the others run,
--resume-batch, and the command's bad input.

Real `zero exec` workers run against the fake model server; where a test
needs a worker that fails, sleeps or logs its starts, the scripted worker
tests/e2e/daemon_worker.py stands in (ZERO_BATCH_WORKER_EXE); its prompt is a
JSON spec (see that file).
"""
import json
import os
import re
import signal
import subprocess
import time

from harness import ZeroTest, main

def alive(pid):
    """Whether pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "daemon_worker.py")


def git(cwd, *args):
    return subprocess.run(["git", "-C", cwd, "-c", "user.email=t@t", "-c", "user.name=t"]
                          + list(args), check=True, capture_output=True, text=True).stdout


def git_repo(path):
    os.makedirs(path, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    with open(os.path.join(path, "README"), "w") as f:
        f.write("base\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "base")


class BatchTest(ZeroTest):
    def write_tasks(self, lines, name="tasks.jsonl"):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            for l in lines:
                f.write((l if isinstance(l, str) else json.dumps(l)) + "\n")
        return path

    def results(self, name="results.jsonl"):
        with open(os.path.join(self.work, name)) as f:
            return [json.loads(l) for l in f if l.strip()]

    def scripted(self):
        self.env["ZERO_BATCH_WORKER_EXE"] = WORKER

    def task(self, tid, spec=None, **extra):
        return dict({"id": tid, "prompt": json.dumps(spec or {})}, **extra)

    def starts(self, log):
        with open(log) as f:
            return [float(l.split()[1]) for l in f if l.startswith("start")]

    def test_real_workers_a_failing_task_among_passing_ones(self):
        # -j 1 keeps the fake server's turns in task order; b's turn is an
        # authentication error, which zero exec reports as a provider error
        model = self.serve([{"text": "answer A"}, {"status": 401},
                            {"text": "answer C"}])
        os.makedirs(os.path.join(self.work, "sub"))
        self.write_tasks([{"id": "a", "prompt": "say A"},
                          {"id": "b", "prompt": "say B"},
                          {"id": "c", "prompt": "say C", "cwd": "sub", "model": "other-model",
                           "permissionMode": "plan"}])
        r = self.zero("batch", "tasks.jsonl", "--local", "-j", "1", timeout=120)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("3 tasks run: 2 succeeded, 1 failed", r.stdout)
        res = {x["id"]: x for x in self.results()}
        self.assertEqual(sorted(res), ["a", "b", "c"])
        self.assertEqual((res["a"]["exitCode"], res["a"]["status"]), (0, "succeeded"))
        self.assertEqual(res["a"]["finalAnswer"], "answer A")
        self.assertIn(res["a"]["sessionId"], self.session_ids())
        self.assertGreater(res["a"]["usage"]["totalTokens"], 0)
        self.assertGreaterEqual(res["a"]["durationMs"], 0)
        self.assertEqual(res["b"]["exitCode"], 3)  # ZEXIT_PROVIDER
        self.assertEqual(res["b"]["status"], "failed")
        self.assertTrue(res["b"].get("error"), res["b"])
        self.assertEqual(res["c"]["finalAnswer"], "answer C")
        # the task's model and directory reached its worker
        self.assertEqual(model.bodies()[-1]["model"], "other-model")
        with open(os.path.join(self.sessions_dir(), res["c"]["sessionId"], "metadata.json")) as f:
            self.assertEqual(json.load(f)["cwd"], os.path.realpath(os.path.join(self.work, "sub")))
        # progress lines on stderr, one per end at least
        self.assertRegex(r.stderr, r"batch: 3/3 done, 1 failed, 0 running")

    def test_jobs_bound_the_parallel_workers(self):
        self.scripted()
        log = os.path.join(self.tmp, "starts")
        self.write_tasks([self.task("t%d" % i, {"log": log, "sleep": 1.0}) for i in range(4)])
        r = self.zero("batch", "tasks.jsonl", "-j", "2", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        st = sorted(self.starts(log))
        self.assertEqual(len(st), 4)
        # two ran together; the third waited for a free slot (each sleeps 1 s)
        self.assertLess(st[1] - st[0], 0.9)
        self.assertGreaterEqual(st[2] - st[0], 0.95)
        running = [int(m) for m in re.findall(r"(\d+) running", r.stderr)]
        self.assertEqual(max(running), 2)
        self.assertEqual(len(self.results()), 4)

    def test_a_bad_line_is_reported_with_its_number_and_the_others_run(self):
        self.scripted()
        self.write_tasks([self.task("ok1"),
                          '{"id": "broken", "prompt": ',
                          self.task("fails", {"exit": 5}),
                          {"id": "nop"},
                          self.task("ok1"),
                          "# a comment",
                          "",
                          self.task("wt", worktree="yes"),
                          {"id": "x", "prompt": "p", "colour": "red"},
                          self.task("ok2")])
        r = self.zero("batch", "tasks.jsonl", "-j", "3", timeout=120)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertRegex(r.stderr, r"tasks\.jsonl:2: not JSON")
        self.assertRegex(r.stderr, r'tasks\.jsonl:4: task "nop" needs a non-empty "prompt"')
        self.assertRegex(r.stderr, r'tasks\.jsonl:5: task id "ok1" is used by an earlier line')
        self.assertRegex(r.stderr, r'tasks\.jsonl:8: "worktree" must be true or false')
        self.assertRegex(r.stderr, r'tasks\.jsonl:9: unknown field "colour"')
        self.assertIn("3 tasks run: 2 succeeded, 1 failed; 5 bad lines", r.stdout)
        res = {x["id"]: x["exitCode"] for x in self.results()}
        self.assertEqual(res, {"ok1": 0, "fails": 5, "ok2": 0})

    def test_tasks_sharing_a_repository_get_a_worktree_each(self):
        # work is one repository with three tasks in it; "alone" is in a
        # repository of its own. -j 1 keeps the fake server's turns in order.
        git_repo(self.work)
        other = os.path.join(self.tmp, "other")
        git_repo(other)
        self.serve([{"tool_calls": [{"name": "write_file",
                                     "arguments": {"path": "new.txt", "content": "by writer\n"}}]},
                    {"text": "wrote"}, {"text": "nothing"}, {"text": "here"},
                    {"text": "alone"}])
        self.write_tasks([{"id": "writer", "prompt": "write new.txt"},
                          {"id": "reader", "prompt": "look"},
                          {"id": "inplace", "prompt": "look here", "worktree": False},
                          {"id": "alone", "prompt": "look", "cwd": other}])
        r = self.zero("batch", "tasks.jsonl", "-j", "1", timeout=180)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = {x["id"]: x for x in self.results()}
        wtroot = os.path.join(os.path.realpath(self.work), ".zero", "worktrees")

        def cwd_of(tid):
            with open(os.path.join(self.sessions_dir(), res[tid]["sessionId"],
                                   "metadata.json")) as f:
                return json.load(f)["cwd"]
        # the writer changed its worktree: kept, named in its result line and
        # in the progress line; the main checkout is untouched
        wt = res["writer"].get("worktree")
        self.assertTrue(wt, res["writer"])
        self.assertEqual(os.path.dirname(wt["path"]), wtroot)
        self.assertTrue(os.path.basename(wt["path"]).startswith("writer-"), wt)
        self.assertEqual(wt["branch"], "zero/" + os.path.basename(wt["path"]))
        self.assertEqual(cwd_of("writer"), wt["path"])
        with open(os.path.join(wt["path"], "new.txt")) as f:
            self.assertEqual(f.read(), "by writer\n")
        self.assertFalse(os.path.exists(os.path.join(self.work, "new.txt")))
        self.assertIn("writer: exit 0, kept worktree " + wt["path"], r.stderr)
        self.assertIn(wt["branch"], git(self.work, "branch", "--format=%(refname:short)"))
        # the reader ran in a worktree of its own, removed (with its branch)
        # because it left it clean
        self.assertNotIn("worktree", res["reader"])
        self.assertEqual(os.path.dirname(cwd_of("reader")), wtroot)
        self.assertTrue(os.path.basename(cwd_of("reader")).startswith("reader-"))
        self.assertFalse(os.path.exists(cwd_of("reader")))
        self.assertEqual(git(self.work, "branch", "--format=%(refname:short)").split(),
                         sorted(["main", wt["branch"]]))
        # "worktree": false runs in the checkout itself; a task alone in its
        # repository needs no worktree
        self.assertEqual(cwd_of("inplace"), os.path.realpath(self.work))
        self.assertNotIn("worktree", res["inplace"])
        self.assertEqual(cwd_of("alone"), os.path.realpath(other))
        self.assertFalse(os.path.exists(os.path.join(other, ".zero")))

    def test_worktree_true_outside_a_repository_fails_that_task_only(self):
        self.serve([{"text": "fine"}])
        self.write_tasks([{"id": "wt", "prompt": "p", "worktree": True},
                          {"id": "plain", "prompt": "p"}])
        r = self.zero("batch", "tasks.jsonl", "-j", "1", timeout=120)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        res = {x["id"]: x for x in self.results()}
        self.assertNotEqual(res["wt"]["exitCode"], 0)
        self.assertIn("not in a git repository", res["wt"].get("error", "") + r.stderr)
        self.assertEqual(res["plain"]["finalAnswer"], "fine")

    def test_every_task_passing_exits_0(self):
        self.scripted()
        self.write_tasks([self.task("a"), self.task("b")])
        r = self.zero("batch", "tasks.jsonl", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 tasks run: 2 succeeded, 0 failed", r.stdout)

    def test_a_task_whose_directory_is_missing_fails_with_127(self):
        self.scripted()
        self.write_tasks([self.task("gone", cwd="no/such/dir"), self.task("here")])
        r = self.zero("batch", "tasks.jsonl", timeout=120)
        self.assertEqual(r.returncode, 4, r.stderr)
        res = {x["id"]: x for x in self.results()}
        self.assertEqual(res["gone"]["exitCode"], 127)
        self.assertIn("no/such/dir", res["gone"]["error"])
        self.assertEqual(res["here"]["exitCode"], 0)

    def test_resume_skips_the_ids_already_in_the_results(self):
        self.scripted()
        log = os.path.join(self.tmp, "starts")
        first = [self.task("a", {"log": log}), self.task("b", {"log": log, "exit": 2})]
        self.write_tasks(first)
        r = self.zero("batch", "tasks.jsonl", "--results", "out.jsonl", timeout=120)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertEqual(len(self.starts(log)), 2)
        # a second run without --resume-batch refuses to mix batches
        r = self.zero("batch", "tasks.jsonl", "-o", "out.jsonl", timeout=120)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--resume-batch", r.stderr)
        self.assertEqual(len(self.starts(log)), 2)
        # a batch killed mid-write left a torn line: it is skipped and ended
        with open(os.path.join(self.work, "out.jsonl"), "a") as f:
            f.write('{"id": "c", "exitCo')
        self.write_tasks(first + [self.task("c", {"log": log}), self.task("d", {"log": log})])
        r = self.zero("batch", "tasks.jsonl", "-o", "out.jsonl", "--resume-batch", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 tasks run: 2 succeeded, 0 failed; 2 skipped", r.stdout)
        self.assertEqual(len(self.starts(log)), 4)
        with open(os.path.join(self.work, "out.jsonl")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[2], '{"id": "c", "exitCo')
        ids = [json.loads(l)["id"] for l in lines[:2] + lines[3:]]
        self.assertEqual(sorted(ids), ["a", "b", "c", "d"])

    def test_an_interrupted_batch_takes_its_workers_with_it(self):
        self.scripted()
        log = os.path.join(self.tmp, "starts")
        self.write_tasks([self.task("long%d" % i, {"log": log, "sleep": 60}) for i in range(3)])
        p = self.spawn("batch", "tasks.jsonl", "-j", "2")
        deadline = time.time() + 30
        while time.time() < deadline and (not os.path.exists(log) or len(self.starts(log)) < 2):
            time.sleep(0.05)
        with open(log) as f:
            pids = [int(l.split()[2]) for l in f if l.startswith("start")]
        self.assertEqual(len(pids), 2)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
        self.assertNotEqual(p.returncode, 0)
        deadline = time.time() + 10
        while time.time() < deadline and any(alive(x) for x in pids):
            time.sleep(0.05)
        self.assertFalse([x for x in pids if alive(x)], "workers outlived the batch")
        self.assertEqual(self.results() if os.path.exists(
            os.path.join(self.work, "results.jsonl")) else [], [])

    def test_usage_errors(self):
        r = self.zero("batch")
        self.assertEqual(r.returncode, 2)
        self.assertIn("name the tasks file", r.stderr)
        r = self.zero("batch", "missing.jsonl")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read the tasks file missing.jsonl", r.stderr)
        self.write_tasks([self.task("a")])
        for bad in ("0", "257", "x", ""):
            r = self.zero("batch", "tasks.jsonl", "-j", bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("-j takes a number of tasks from 1 to 256", r.stderr)
        self.write_tasks(["", "# nothing"], name="empty.jsonl")
        r = self.zero("batch", "empty.jsonl")
        self.assertEqual(r.returncode, 2)
        self.assertIn("holds no tasks", r.stderr)
        r = self.zero("batch", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--resume-batch", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.work, "results.jsonl")))


if __name__ == "__main__":
    main()
