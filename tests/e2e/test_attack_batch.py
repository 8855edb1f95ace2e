"""Attack tests for `zero batch` on a cluster (issue 21, part C): a batch's
state directory holds the prompts, results and sessions of the user, so it
is owner-only whatever the umask (0700 folders, 0600 files), from the
submission (`--slurm`, with a stand-in `sbatch`) through a task's run
(`zero batch task`) to `zero batch collect`; `squeue` (run by `zero batch
status` outside the sandbox) gets no credential in its environment.

Run as root, then again as uid 65534 (setpriv), like the other attack tests.
"""
import json
import os
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import unpriv  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "daemon_worker.py")


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


class BatchStateAttacks(harness.ZeroTest):
    def zero_umask0(self, *args):
        """zero run under umask 0: every mode it makes is its own choice."""
        return subprocess.run([harness.ZERO_BIN] + list(args), cwd=self.work, env=self.env,
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL, preexec_fn=lambda: os.umask(0))

    def fake_sbatch(self):
        """An `sbatch` that records its arguments and answers a job id, and
        a `squeue` that records its environment and lists one task running."""
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        path = os.path.join(bindir, "sbatch")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" > %s/sbatch-args\necho 4242\n" % self.tmp)
        os.chmod(path, 0o755)
        path = os.path.join(bindir, "squeue")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nenv > %s/squeue-env\necho RUNNING\n" % self.tmp)
        os.chmod(path, 0o755)
        self.env["PATH"] = bindir + ":" + self.env.get("PATH", "/usr/bin:/bin")

    def test_state_dir_and_results_are_owner_only_under_umask_0(self):
        self.fake_sbatch()
        with open(os.path.join(self.work, "tasks.jsonl"), "w") as f:
            for i in range(2):
                f.write(json.dumps({"id": "t%d" % i, "prompt": json.dumps({"exit": 0})}) + "\n")
        state = os.path.join(self.work, "state")
        r = self.zero_umask0("batch", "tasks.jsonl", "--slurm", "--state-dir", state)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("submitted Slurm job array 4242", r.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "sbatch-args")))
        for d in ("", "results", "logs", "data"):
            self.assertEqual(mode(os.path.join(state, d)), 0o700, d or "the state directory")
        for f in ("tasks.jsonl", "batch.json"):
            self.assertEqual(mode(os.path.join(state, f)), 0o600, f)
        self.assertEqual(mode(os.path.join(state, "job.sh")), 0o700)
        # what an array index runs: its result file is the owner's only
        self.env["ZERO_BATCH_WORKER_EXE"] = WORKER
        r = self.zero_umask0("batch", "task", "--state-dir", state, "--index", "0")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = os.path.join(state, "results", "0.jsonl")
        self.assertEqual(mode(res), 0o600)
        with open(res) as f:
            self.assertEqual(json.loads(f.read())["id"], "t0")
        # collect gathers them into a file as private as its parts
        r = self.zero_umask0("batch", "collect", state)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)  # t1 has no result yet
        self.assertIn("no result yet for task t1", r.stderr)
        self.assertEqual(mode(os.path.join(state, "results.jsonl")), 0o600)
        # squeue (zero batch status) never sees a credential, not even one
        # the configuration declares under a name that does not look secret
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfg, exist_ok=True)
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"providers": [{"name": "work", "provider_kind": "openai-compatible",
                                      "apiKeyEnv": "WORKPROV", "model": "m"}]}, f)
        self.env.update({"WORKPROV": "prov-5e4d3c2b1a09f8e7", "OPENAI_API_KEY": "sk-op-776655443322"})
        r = self.zero_umask0("batch", "status", state)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("1 succeeded, 0 failed, 1 RUNNING", r.stdout)
        with open(os.path.join(self.tmp, "squeue-env")) as f:
            seen = f.read()
        self.assertIn("PATH=", seen)
        for value in ("prov-5e4d3c2b1a09f8e7", "sk-op-776655443322"):
            self.assertNotIn(value, seen)
        # nothing in the state directory is open to group or others
        for root, dirs, files in os.walk(state):
            for name in dirs + files:
                p = os.path.join(root, name)
                self.assertEqual(mode(p) & 0o077, 0, p)


if __name__ == "__main__":
    unpriv.main(__file__)
