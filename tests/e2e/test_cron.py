"""`zero cron` (issue 21, part B): schedules added, listed and removed as a
user does, run by the daemon as ordinary tagged sessions (at once for
--run-now, once for any number of missed runs, never two runs of one
schedule at a time), and `zero cron run ID` in the foreground.

Daemons run real `zero exec` workers against the fake model server, or the
scripted worker (tests/e2e/daemon_worker.py) where a run must wait.
"""
import json
import os
import stat
import time

from harness import main
from test_daemon import DaemonCase


class CronCase(DaemonCase):
    def cron_file(self):
        return os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "cron.json")

    def jobs(self):
        r = self.zero("cron", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return {j["id"]: j for j in json.loads(r.stdout)}

    def write_jobs(self, jobs):
        os.makedirs(os.path.dirname(self.cron_file()), exist_ok=True)
        tmp = self.cron_file() + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"version": 1, "jobs": jobs}, f)
        os.rename(tmp, self.cron_file())

    def cron_sessions(self, job_id):
        st = self.status()
        return [s for s in st["sessions"] if s["id"].startswith("cron-%s-" % job_id)]

    def stored_meta(self, sid):
        with open(os.path.join(self.sessions_dir(), sid, "metadata.json")) as f:
            return json.load(f)


class Commands(CronCase):
    def test_add_list_remove(self):
        r = self.zero("cron", "add", "--id", "prs", "--permission-mode", "auto",
                      "*/10 * * * *", "babysit", "the", "PRs")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("added schedule prs (*/10 * * * *): next run", r.stdout)
        self.assertIn("zero daemon start", r.stdout)  # no daemon runs: says who runs it
        r = self.zero("cron", "add", "@every 90m", "tidy up")  # a generated id
        self.assertEqual(r.returncode, 0, r.stderr)
        jobs = self.jobs()
        self.assertEqual(len(jobs), 2)
        prs = jobs["prs"]
        self.assertEqual(prs["prompt"], "babysit the PRs")
        self.assertEqual(prs["permissionMode"], "auto")
        self.assertEqual(prs["cwd"], os.path.realpath(self.work))
        self.assertEqual(prs["runs"], 0)
        # the next run is the next tenth minute
        nxt = prs["nextRunAt"]
        self.assertEqual(int(nxt[14:16]) % 10, 0, nxt)
        self.assertEqual(stat.S_IMODE(os.stat(self.cron_file()).st_mode), 0o600)
        text = self.zero("cron", "list")
        self.assertIn("prs", text.stdout)
        self.assertIn("babysit the PRs", text.stdout)
        # a second schedule of the same id is refused, the first kept
        r = self.zero("cron", "add", "--id", "prs", "@daily", "other")
        self.assertEqual(r.returncode, 2)
        self.assertIn("a schedule named prs exists", r.stderr)
        self.assertEqual(self.jobs()["prs"]["prompt"], "babysit the PRs")
        r = self.zero("cron", "remove", "prs")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("prs", self.jobs())
        r = self.zero("cron", "remove", "prs")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no schedule named prs", r.stderr)

    def test_bad_schedules_are_refused_with_the_reason(self):
        cases = [
            (["61 * * * *", "x"], 'minute field "61": 61 is out of 0-59'),
            (["0 9", "x"], "has 2"),
            (["@every 10", "x"], "needs a unit"),
            (["@every 20s", "x"], "shorter than a minute"),
            (["@sometimes", "x"], "unknown schedule"),
            (["0 9 * * funday", "x"], "day-of-week field"),
            (["*/10 * * * *"], "needs a SCHEDULE and a PROMPT"),
        ]
        for args, want in cases:
            r = self.zero("cron", "add", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(want, r.stderr, args)
        r = self.zero("cron", "add", "--id", "../x", "@daily", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("a schedule id is", r.stderr)
        r = self.zero("cron", "add", "--permission-mode", "yolo", "@daily", "x")
        self.assertEqual(r.returncode, 2)
        self.assertFalse(os.path.exists(self.cron_file()))

    def test_a_broken_file_is_reported_not_overwritten(self):
        os.makedirs(os.path.dirname(self.cron_file()), exist_ok=True)
        with open(self.cron_file(), "w") as f:
            f.write("{not json")
        r = self.zero("cron", "add", "@daily", "x")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cron.json", r.stderr)
        with open(self.cron_file()) as f:
            self.assertEqual(f.read(), "{not json")

    def test_run_now_in_the_foreground_records_a_tagged_session(self):
        self.serve([{"text": "the PRs are fine"}])
        r = self.zero("cron", "add", "--id", "prs", "@daily", "check the PRs")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.zero("cron", "run", "prs")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the PRs are fine", r.stdout)
        job = self.jobs()["prs"]
        self.assertEqual(job["runs"], 1)
        sid = job["lastSession"]
        self.assertTrue(sid.startswith("cron-prs-"), sid)
        self.assertEqual(self.stored_meta(sid)["schedule"], "prs")
        self.assertIn("check the PRs", json.dumps(self.model.bodies()[0]))
        r = self.zero("cron", "run", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no schedule named nope", r.stderr)


class Daemon(CronCase):
    def test_the_daemon_runs_a_run_now_schedule_at_once_as_a_tagged_session(self):
        self.serve([{"text": "all green"}])
        self.start(scripted=False)
        r = self.zero("cron", "add", "--id", "ci", "--run-now", "@weekly", "check CI")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("zero daemon start", r.stdout)  # the daemon runs, nothing to say
        self.wait_for(lambda: [s for s in self.cron_sessions("ci") if s["state"] == "done"],
                      what="the scheduled run")
        sid = self.cron_sessions("ci")[0]["id"]
        a = self.zero("daemon", "attach", sid)
        self.assertIn("all green", a.stdout)
        self.assertEqual(self.stored_meta(sid)["schedule"], "ci")
        job = self.jobs()["ci"]
        self.assertEqual((job["runs"], job["lastSession"]), (1, sid))
        self.assertNotIn("runNow", job)
        # the next run is next week's, not another one now
        time.sleep(1.5)
        self.assertEqual(len(self.cron_sessions("ci")), 1)
        self.assertEqual(len(self.model.bodies()), 1)

    def test_runs_missed_while_stopped_run_once_at_start(self):
        self.serve([{"text": "caught up"}, {"text": "again"}])
        long_ago = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - 10 * 3600))
        self.write_jobs([{"id": "tick", "schedule": "@every 1m", "prompt": "tick",
                          "cwd": os.path.realpath(self.work), "createdAt": long_ago,
                          "lastRunAt": long_ago, "runs": 4},
                         {"id": "later", "schedule": "@every 5m", "prompt": "not yet",
                          "cwd": os.path.realpath(self.work),
                          "createdAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                          "runs": 0}])
        self.start(scripted=False)
        self.wait_for(lambda: [s for s in self.cron_sessions("tick") if s["state"] == "done"],
                      what="the missed run")
        time.sleep(2)
        # 600 missed minutes, one run; the schedule that is not due did not run
        self.assertEqual(len(self.cron_sessions("tick")), 1)
        self.assertEqual(self.cron_sessions("later"), [])
        self.assertEqual(len(self.model.bodies()), 1)
        self.assertEqual(self.jobs()["tick"]["runs"], 5)

    def test_runs_of_one_schedule_never_overlap(self):
        gate = os.path.join(self.tmp, "gate")
        log = os.path.join(self.tmp, "starts.log")
        self.start()  # the scripted worker: the run waits for the gate file
        spec = json.dumps({"wait_file": gate, "log": log})
        r = self.zero("cron", "add", "--id", "slow", "--run-now", "@daily", spec)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.wait_for(lambda: os.path.exists(log), what="the first run")
        # asked to run again while the first goes on: it waits for the first
        with open(self.cron_file()) as f:
            jobs = json.load(f)["jobs"]
        jobs[0]["runNow"] = True
        self.write_jobs(jobs)
        time.sleep(2)
        self.assertEqual(len(self.cron_sessions("slow")), 1)
        with open(gate, "w"):
            pass
        # the second run follows once the first is over (the next check: <= 60 s,
        # here on the first session's end or the timer)
        self.wait_for(lambda: len([s for s in self.cron_sessions("slow")
                                   if s["state"] == "done"]) == 2, timeout=90,
                      what="the second run")
        with open(log) as f:
            self.assertEqual(sum(1 for l in f if l.startswith("start")), 2)

    def test_a_session_started_by_hand_with_schedule_does_not_hold_the_schedule(self):
        # Only the daemon's own runs of a schedule keep its next run waiting:
        # a session someone started with `--schedule quick` among its exec
        # flags is not one (the daemon used to find schedules by scanning
        # exec flags).
        gate = os.path.join(self.tmp, "gate")
        log = os.path.join(self.tmp, "cron-starts.log")
        self.start()
        hand = self.spawn("daemon", "run", "--session", "by-hand", "--prompt",
                          json.dumps({"wait_file": gate}), "--schedule", "quick")
        self.wait_for(lambda: any(s["id"] == "by-hand" and s["state"] == "running"
                                  for s in self.status()["sessions"]), what="the hand-run session")
        r = self.zero("cron", "add", "--id", "quick", "--run-now", "@daily",
                      json.dumps({"log": log}))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.wait_for(lambda: os.path.exists(log), timeout=60, what="the schedule's run")
        self.assertEqual(len(self.cron_sessions("quick")), 1)
        self.assertEqual(self.session("by-hand")["state"], "running")
        with open(gate, "w"):
            pass
        hand.communicate(timeout=60)

    def test_a_broken_file_is_logged_and_the_daemon_goes_on(self):
        os.makedirs(os.path.dirname(self.cron_file()), exist_ok=True)
        with open(self.cron_file(), "w") as f:
            f.write("[1, 2")
        self.start()
        self.wait_for(lambda: "cron.json" in self.log(), what="the log line")
        st = self.status()
        self.assertTrue(st["running"])


if __name__ == "__main__":
    main()
