"""`zero batch --slurm` (issue 21, part C) against a real Slurm: the test
starts a one-node cluster on this machine (munged, slurmctld and slurmd from
Debian's slurm-wlm and munge, configuration written here, everything on
loopback and in the test's folder), submits a batch of 8 tasks whose
`zero exec` runs talk to the fake model server, and checks the 8 results,
`zero batch status` and `zero batch collect`. Every daemon it starts is
stopped by pid.

The cluster needs root (slurmd launches the jobs); without root or without
Slurm's daemons the cluster test is skipped and says why (.ci/run installs
them and runs as root). The bad-input tests run everywhere.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import unittest

from harness import ZeroTest, free_port, main

SLURM_BINS = ("slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "munged", "mungekey")


def which(name):
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


class Cluster:
    """A one-node Slurm cluster in folder d (munge authentication)."""

    def __init__(self, d):
        self.d = d
        self.procs = []
        for sub in ("state", "spool", "logs", "munge"):
            os.makedirs(os.path.join(d, sub), mode=0o700, exist_ok=True)
        self.munge_sock = os.path.join(d, "munge", "sock")
        self.conf = os.path.join(d, "slurm.conf")
        host = socket.gethostname()
        with open(self.conf, "w") as f:
            f.write("""ClusterName=zerotest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={cport}
SlurmdPort={dport}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/logs/slurmctld.log
SlurmdLogFile={d}/logs/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""".format(host=host, cport=free_port(), dport=free_port(), sock=self.munge_sock, d=d,
           cpus=os.cpu_count() or 1))
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def start(self):
        key = os.path.join(self.d, "munge", "munge.key")
        subprocess.run([which("mungekey"), "-c", "-k", key], check=True, capture_output=True)
        m = os.path.join(self.d, "munge")
        self.procs.append(subprocess.Popen(
            [which("munged"), "--foreground", "--force", "-S", self.munge_sock,
             "--key-file=" + key, "--log-file=" + m + "/log", "--pid-file=" + m + "/pid",
             "--seed-file=" + m + "/seed"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.wait(lambda: os.path.exists(self.munge_sock), "munged")
        for daemon in ("slurmctld", "slurmd"):
            self.procs.append(subprocess.Popen([which(daemon), "-D", "-f", self.conf],
                                               env=self.env, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))
        self.wait(self.idle, "the node to be idle")

    def idle(self):
        r = subprocess.run([which("sinfo"), "--noheader", "--format=%t"], env=self.env,
                           capture_output=True, text=True)
        return r.returncode == 0 and r.stdout.strip() in ("idle", "mix", "alloc")

    def wait(self, cond, what, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if cond():
                return
            for p in self.procs:
                if p.poll() is not None:
                    raise AssertionError("%s exited while waiting for %s: %s" % (
                        p.args[0], what, self.logs()))
            time.sleep(0.2)
        raise AssertionError("timed out waiting for %s: %s" % (what, self.logs()))

    def logs(self):
        out = []
        for name in ("slurmctld.log", "slurmd.log"):
            p = os.path.join(self.d, "logs", name)
            if os.path.exists(p):
                with open(p) as f:
                    out.append(name + ":\n" + f.read()[-3000:])
        return "\n".join(out)

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def cluster_missing():
    if os.geteuid() != 0:
        return "slurmd needs root to launch jobs"
    missing = [b for b in SLURM_BINS if not which(b)]
    if missing:
        return "not installed: %s (Debian's slurm-wlm and munge)" % ", ".join(missing)
    return None


class SlurmBatch(ZeroTest):
    @unittest.skipIf(cluster_missing(), cluster_missing())
    def test_eight_tasks_on_a_one_node_cluster(self):
        answers = ["answer %d" % i for i in range(8)]
        model = self.serve([{"text": a} for a in answers])
        cluster = Cluster(os.path.join(self.tmp, "slurm"))
        self.addCleanup(cluster.stop)
        cluster.start()
        self.env["SLURM_CONF"] = cluster.conf
        self.env["PATH"] = os.environ["PATH"] + ":/usr/sbin"
        os.makedirs(os.path.join(self.work, "svc"))
        with open(os.path.join(self.work, "tasks.jsonl"), "w") as f:
            for i in range(8):
                task = {"id": "t%d" % i, "prompt": "task number %d" % i}
                if i % 2:
                    task["cwd"] = "svc"
                f.write(json.dumps(task) + "\n")
        state = os.path.join(self.tmp, "shared", "batch1")
        r = self.zero("batch", "tasks.jsonl", "--slurm", "--state-dir", state, "-j", "4",
                      "--sbatch-arg=--job-name=zero-test")
        self.assertEqual(r.returncode, 0, r.stderr + cluster.logs())
        self.assertIn("submitted Slurm job array", r.stdout)
        with open(os.path.join(state, "batch.json")) as f:
            info = json.load(f)
        self.assertEqual((info["backend"], info["tasks"]), ("slurm", 8))
        with open(os.path.join(state, "job.sh")) as f:
            script = f.read()
        self.assertIn("#SBATCH --array=0-7%4", script)

        def finished():
            st = self.zero("batch", "status", state, "--json")
            self.assertEqual(st.returncode, 0, st.stderr)
            return json.loads(st.stdout)["finished"]
        cluster.wait(finished, "the array's 8 tasks", timeout=180)
        st = json.loads(self.zero("batch", "status", state, "--json").stdout)
        self.assertEqual((st["tasks"], st["succeeded"], st["failed"], st["lost"]), (8, 8, 0, 0))
        self.assertEqual(st["jobId"], info["jobId"])
        text = self.zero("batch", "status", state)
        self.assertIn("8 tasks: 8 succeeded, 0 failed", text.stdout)
        c = self.zero("batch", "collect", state)
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        with open(os.path.join(state, "results.jsonl")) as f:
            results = [json.loads(l) for l in f]
        self.assertEqual([x["id"] for x in results], ["t%d" % i for i in range(8)])
        self.assertTrue(all(x["exitCode"] == 0 and x["status"] == "succeeded" for x in results))
        # each task got one of the scripted answers, none twice: 8 real model calls
        self.assertEqual(sorted(x["finalAnswer"] for x in results), sorted(answers))
        self.assertEqual(len(model.bodies()), 8)
        prompts = sorted(json.dumps(b) for b in model.bodies())
        for i in range(8):
            self.assertTrue(any("task number %d" % i in p for p in prompts), i)
        # sessions live on the shared filesystem, in the task's directory
        sessions = os.path.join(state, "data", "zero", "sessions")
        for x in results:
            with open(os.path.join(sessions, x["sessionId"], "metadata.json")) as f:
                meta = json.load(f)
            want = os.path.realpath(os.path.join(self.work, "svc" if int(x["id"][1]) % 2 else ""))
            self.assertEqual(os.path.realpath(meta["cwd"]), want, meta)
        # each array index's output is its result line
        with open(os.path.join(state, "logs", "3.out")) as f:
            self.assertEqual(json.loads(f.read().strip().splitlines()[-1])["id"], "t3")
        # a state directory holds one batch
        r = self.zero("batch", "tasks.jsonl", "--slurm", "--state-dir", state)
        self.assertEqual(r.returncode, 2)
        self.assertIn("already holds a batch", r.stderr)


class BadInput(ZeroTest):
    def write(self, text):
        with open(os.path.join(self.work, "tasks.jsonl"), "w") as f:
            f.write(text)

    def test_slurm_not_installed_names_the_package(self):
        self.write('{"id": "a", "prompt": "x"}\n')
        empty = os.path.join(self.tmp, "nobin")
        os.makedirs(empty)
        self.env["PATH"] = empty
        r = self.zero("batch", "tasks.jsonl", "--slurm", "--state-dir", "st")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("sbatch is not installed", r.stderr)
        self.assertIn("slurm-client", r.stderr)

    def test_flags_that_do_not_belong(self):
        self.write('{"id": "a", "prompt": "x"}\n')
        for args, want in [(["--state-dir", "x"], "--state-dir goes with --slurm"),
                           (["--slurm"], "--slurm needs --state-dir"),
                           (["--slurm", "--state-dir", "a b"], "whitespace"),
                           (["--index", "3"], "--index belongs to zero batch task")]:
            r = self.zero("batch", "tasks.jsonl", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(want, r.stderr)
        r = self.zero("batch", "status", os.path.join(self.tmp, "nowhere"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("holds no submitted batch", r.stderr)
        r = self.zero("batch", "task", "--state-dir", self.tmp)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--index N", r.stderr)

    def test_a_task_runs_by_the_schedulers_index(self):
        """The entry point a job runs, without a scheduler: the index comes
        from $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) as it would
        from $SLURM_ARRAY_TASK_ID."""
        self.serve([{"text": "done by index 1"}])
        state = os.path.join(self.tmp, "st")
        os.makedirs(os.path.join(state, "results"))
        with open(os.path.join(state, "tasks.jsonl"), "w") as f:
            f.write(json.dumps({"id": "zero", "prompt": "p0", "cwd": self.work}) + "\n")
            f.write(json.dumps({"id": "one", "prompt": "p1", "cwd": self.work}) + "\n")
        self.env["JOB_COMPLETION_INDEX"] = "1"
        r = self.zero("batch", "task", "--state-dir", state)
        self.assertEqual(r.returncode, 0, r.stderr)
        line = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual((line["id"], line["finalAnswer"]), ("one", "done by index 1"))
        with open(os.path.join(state, "results", "1.jsonl")) as f:
            self.assertEqual(json.loads(f.read())["id"], "one")
        self.assertFalse(os.path.exists(os.path.join(state, "results", "0.jsonl")))


if __name__ == "__main__":
    main()
