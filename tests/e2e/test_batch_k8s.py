"""`zero batch --k8s` (issue 21, part C): the Kubernetes Indexed Job
manifest, its entry point, and `zero batch collect --k8s-logs`.

There is no cluster here, so the manifest is checked three ways: against
Kubernetes' own API schemas (the pinned kubernetes-models package,
tests/k8s: the batch/v1 Job and v1 ConfigMap definitions compiled to ajv
validators; the test is skipped, saying why, without node/npm or the
registry), field by field for what the schema cannot know (the command,
the mounts, the tasks in index order), and by a dry run of what each pod
runs: `zero batch task` with $JOB_COMPLETION_INDEX set and the ConfigMap's
tasks.jsonl as its file, against the fake model server. The pods' stdout
(what `kubectl logs` prints) is then collected back, one task failed.
"""
import json
import os
import re
import subprocess
import sys

from harness import ZeroTest, main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "k8s"))
import install as k8s_schemas  # noqa: E402


class K8sTest(ZeroTest):
    def write_tasks(self, lines, name="tasks.jsonl"):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            for l in lines:
                f.write((l if isinstance(l, str) else json.dumps(l)) + "\n")
        return path

    def manifest(self, *flags, tasks="tasks.jsonl", name="demo"):
        out = os.path.join(self.work, "job.json")
        extra = ["--name", name] if name else []
        r = self.zero("batch", tasks, "--k8s", "--out", out, *extra, *flags)
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
        return r, doc

    def items(self, doc):
        kinds = {i["kind"]: i for i in doc["items"]}
        self.assertEqual(sorted(kinds), ["ConfigMap", "Job"])
        return kinds["ConfigMap"], kinds["Job"]

    def validate(self, path):
        why = k8s_schemas.ensure()
        if why:
            self.skipTest("Kubernetes schemas not available: " + why)
        return subprocess.run(["node", k8s_schemas.validator_path(), path],
                              capture_output=True, text=True, timeout=120)


class Manifest(K8sTest):
    def test_the_manifest_is_valid_against_kubernetes_schemas(self):
        self.write_tasks([{"id": "a", "prompt": "do a", "cwd": "repo/a"},
                          "{broken",
                          {"id": "b", "prompt": "do b", "model": "m1",
                           "permissionMode": "auto-edit"},
                          {"id": "c", "prompt": "do c"}])
        r, doc = self.manifest("-j", "2", "--image", "registry.example/zero:0.1")
        self.assertEqual(r.returncode, 4, r.stderr)  # the bad line is reported, the rest written
        self.assertIn("tasks.jsonl:2:", r.stderr)
        self.assertIn("kubectl apply -f", r.stderr)
        v = self.validate(os.path.join(self.work, "job.json"))
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertEqual(v.stdout.split("\n")[:2], ["ok ConfigMap demo-tasks", "ok Job demo"])
        # the validator bites: the same manifest with a wrong completionMode fails
        doc["items"][1]["spec"]["completionMode"] = "Indexd"
        bad = os.path.join(self.work, "bad.json")
        with open(bad, "w") as f:
            json.dump(doc, f)
        v = self.validate(bad)
        self.assertEqual(v.returncode, 1)
        self.assertIn("completionMode must be equal to one of the allowed values", v.stdout)

    def test_what_the_schema_cannot_check(self):
        self.write_tasks([{"id": "a", "prompt": "do a", "cwd": "repo/a"},
                          {"id": "b", "prompt": "do b", "model": "m1"},
                          {"id": "c", "prompt": "do c"}])
        r, doc = self.manifest("-j", "2", "--image", "reg/zero:1")
        self.assertEqual(r.returncode, 0, r.stderr)
        cm, job = self.items(doc)
        self.assertEqual(doc["kind"], "List")
        # line N of the ConfigMap is task N, cwd as given (the pod's)
        lines = [json.loads(l) for l in cm["data"]["tasks.jsonl"].splitlines()]
        self.assertEqual([l["id"] for l in lines], ["a", "b", "c"])
        self.assertEqual(lines[0]["cwd"], "repo/a")
        self.assertNotIn("cwd", lines[2])
        spec = job["spec"]
        self.assertEqual((spec["completionMode"], spec["completions"], spec["parallelism"]),
                         ("Indexed", 3, 2))
        pod = spec["template"]["spec"]
        self.assertEqual(pod["restartPolicy"], "Never")
        c = pod["containers"][0]
        self.assertEqual(c["image"], "reg/zero:1")
        self.assertEqual(c["command"], ["zero", "batch", "task", "--tasks",
                                        "/etc/zero-batch/tasks.jsonl", "--state-dir",
                                        "/var/lib/zero-batch", "--exit-zero"])
        self.assertEqual(c["envFrom"], [{"secretRef": {"name": "zero-credentials",
                                                       "optional": True}}])
        mounts = {m["name"]: m for m in c["volumeMounts"]}
        vols = {v["name"]: v for v in pod["volumes"]}
        self.assertEqual(mounts["tasks"]["mountPath"], "/etc/zero-batch")
        self.assertTrue(mounts["tasks"]["readOnly"])
        self.assertEqual(vols["tasks"]["configMap"]["name"], cm["metadata"]["name"])
        self.assertEqual(vols["state"], {"name": "state", "emptyDir": {}})
        self.assertEqual(job["metadata"]["labels"]["app.kubernetes.io/instance"], "demo")

    def test_flags_stdout_and_defaults(self):
        self.write_tasks([{"id": "a", "prompt": "do a"}, {"id": "b", "prompt": "do b"}])
        # stdout is the manifest itself when there is no --out
        r = self.zero("batch", "tasks.jsonl", "--k8s", "-j", "50", "--k8s-pvc", "shared-claim",
                      "--k8s-secret", "my-keys")
        self.assertEqual(r.returncode, 0, r.stderr)
        cm, job = self.items(json.loads(r.stdout))
        self.assertRegex(job["metadata"]["name"], r"^zero-batch-\d{8}-\d{6}$")
        self.assertEqual(cm["metadata"]["name"], job["metadata"]["name"] + "-tasks")
        self.assertEqual(job["spec"]["parallelism"], 2)  # never more pods than tasks
        pod = job["spec"]["template"]["spec"]
        self.assertEqual(pod["containers"][0]["image"], "zero:" + re.search(
            r"\d+\.\d+\.\d+", self.zero("--version").stdout).group(0))
        self.assertEqual(pod["containers"][0]["envFrom"][0]["secretRef"]["name"], "my-keys")
        self.assertIn({"name": "state", "persistentVolumeClaim": {"claimName": "shared-claim"}},
                      pod["volumes"])
        path = os.path.join(self.work, "stdout.json")
        with open(path, "w") as f:
            f.write(r.stdout)
        v = self.validate(path)
        self.assertEqual(v.returncode, 0, v.stdout)

    def test_bad_input(self):
        self.write_tasks([{"id": "a", "prompt": "do a"}])
        cases = [
            (["--name", "Bad_Name"], "lower-case letters, digits and '-' only"),
            (["--name", "-x"], "must start and end with a letter or a digit"),
            (["--name", "x" * 53], "1 to 52 characters"),
            (["--image", "a b"], "is not an image reference"),
            (["--k8s-secret", "Keys!"], "--k8s-secret"),
            (["--slurm"], "choose one"),
            (["--state-dir", "/tmp/x"], "go with --slurm"),
        ]
        for flags, msg in cases:
            r = self.zero("batch", "tasks.jsonl", "--k8s", *flags)
            self.assertEqual(r.returncode, 2, flags)
            self.assertIn(msg, r.stderr, flags)
            self.assertEqual(r.stdout, "", flags)
        r = self.zero("batch", "tasks.jsonl", "--image", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("go with --k8s", r.stderr)
        r = self.zero("batch", "status", "/tmp", "--k8s-logs", "x")
        self.assertIn("--k8s-logs belongs to zero batch collect", r.stderr)
        # more than a ConfigMap holds
        self.write_tasks([{"id": "big%d" % i, "prompt": "x" * 600000} for i in range(2)],
                         name="big.jsonl")
        r, doc = self.manifest(tasks="big.jsonl")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("more than a ConfigMap holds", r.stderr)
        self.assertIsNone(doc)


class EntryPointAndCollect(K8sTest):
    def pod(self, cm_text, index, *flags, state=None):
        """What pod `index` runs: the ConfigMap mounted as a file, an empty
        state directory, $JOB_COMPLETION_INDEX set by the Job controller."""
        mount = os.path.join(self.tmp, "mount")
        os.makedirs(mount, exist_ok=True)
        tasks = os.path.join(mount, "tasks.jsonl")
        with open(tasks, "w") as f:
            f.write(cm_text)
        state = state or os.path.join(self.tmp, "state-%d" % index)
        self.env["JOB_COMPLETION_INDEX"] = str(index)
        r = self.zero("batch", "task", "--tasks", tasks, "--state-dir", state, *flags)
        del self.env["JOB_COMPLETION_INDEX"]
        return r, state

    def test_each_index_runs_its_task_and_the_logs_are_collected(self):
        os.makedirs(os.path.join(self.work, "sub"))
        self.write_tasks([{"id": "a", "prompt": "say A", "cwd": "sub"},
                          {"id": "b", "prompt": "say B"},
                          {"id": "c", "prompt": "say C"}])
        r, doc = self.manifest()
        cm, job = self.items(doc)
        text = cm["data"]["tasks.jsonl"]
        self.assertEqual(job["spec"]["template"]["spec"]["containers"][0]["command"][-1],
                         "--exit-zero")
        # b's turn is an authentication error: that task fails
        self.serve([{"text": "answer A"}, {"status": 401}, {"text": "answer C"}])
        logs = os.path.join(self.tmp, "logs")
        os.makedirs(logs)
        for i in range(3):
            r, state = self.pod(text, i, "--exit-zero")
            # --exit-zero: a failed task still completes its index
            self.assertEqual(r.returncode, 0, r.stderr)
            last = json.loads(r.stdout.strip().splitlines()[-1])
            self.assertEqual(last["id"], "abc"[i])
            with open(os.path.join(state, "results", "%d.jsonl" % i)) as f:
                self.assertEqual(json.loads(f.read()), last)
            self.assertTrue(os.listdir(os.path.join(state, "data", "zero", "sessions")))
            with open(os.path.join(logs, "%d.log" % i), "w") as f:
                f.write("some line a pod printed\n" + r.stdout)  # as `kubectl logs` gives it
        with open(os.path.join(self.tmp, "state-0", "results", "0.jsonl")) as f:
            a = json.load(f)
        self.assertEqual((a["exitCode"], a["finalAnswer"]), (0, "answer A"))
        # without --exit-zero the pod's exit code is the task's (Slurm's way)
        self.serve([{"status": 401}])
        r, _ = self.pod(text, 1, state=os.path.join(self.tmp, "again"))
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(json.loads(r.stdout.strip().splitlines()[-1])["id"], "b")

        out = os.path.join(self.work, "collected.jsonl")
        r = self.zero("batch", "collect", "--k8s-logs", logs, "tasks.jsonl", "--results", out)
        self.assertEqual(r.returncode, 4, r.stderr)  # one task failed
        self.assertIn("3 tasks: 2 succeeded, 1 failed", r.stdout)
        with open(out) as f:
            got = [json.loads(l) for l in f]
        self.assertEqual([g["id"] for g in got], ["a", "b", "c"])
        self.assertEqual([g["exitCode"] == 0 for g in got], [True, False, True])
        self.assertEqual(got[2]["finalAnswer"], "answer C")

        # one file with kubectl's --prefix and --timestamps, index 2 missing,
        # a pod of index 0 run twice (the later line wins), a stranger's id
        lines = []
        for i in (0, 1):
            with open(os.path.join(logs, "%d.log" % i)) as f:
                res = f.read().strip().splitlines()[-1]
            lines.append("[pod/demo-%d-x7k2p/zero] 2026-12-02T10:00:00.000000000Z %s" % (i, res))
        rerun = dict(json.loads(lines[0].split(" ", 2)[2]), finalAnswer="second try")
        lines.append("[pod/demo-0-q9z8w/zero] " + json.dumps(rerun))
        lines.append(json.dumps({"id": "stranger", "exitCode": 0}))
        one = os.path.join(self.tmp, "all.log")
        with open(one, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = self.zero("batch", "collect", "--k8s-logs", one, "tasks.jsonl", "--results", out)
        self.assertEqual(r.returncode, 4)
        self.assertIn("3 tasks: 1 succeeded, 1 failed, 1 without a result yet", r.stdout)
        self.assertIn("no result yet for task c", r.stderr)
        self.assertIn('a result for "stranger", not a task of tasks.jsonl', r.stderr)
        with open(out) as f:
            got = [json.loads(l) for l in f]
        self.assertEqual([g["id"] for g in got], ["a", "b"])
        self.assertEqual(got[0]["finalAnswer"], "second try")
        # without the tasks file: every result found, in the order first seen
        r = self.zero("batch", "collect", "--k8s-logs", one, "--results", out)
        with open(out) as f:
            self.assertEqual([json.loads(l)["id"] for l in f], ["a", "b", "stranger"])
        r = self.zero("batch", "collect", "--k8s-logs", os.path.join(self.tmp, "nope"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot read the pod logs", r.stderr)

    def test_the_entry_point_past_the_last_task(self):
        self.write_tasks([{"id": "a", "prompt": "do a"}])
        r, doc = self.manifest()
        cm, _ = self.items(doc)
        r, _ = self.pod(cm["data"]["tasks.jsonl"], 1, "--exit-zero")
        self.assertNotEqual(r.returncode, 0)  # an index without a task is the pod's failure
        self.assertIn("has no task 1", r.stderr)


if __name__ == "__main__":
    main()
