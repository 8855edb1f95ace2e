#!/usr/bin/env python3
"""`zero batch --local -j J` over N one-turn tasks against the fake model
server (tests/e2e/fake_server.py): wall time, CPU summed over the batch and
its workers, and the largest child's peak RSS.

    bench/batch/batch_local.py [N] [J]     (default 64 8; ZERO_BIN picks the binary)

The side-by-side with `codex exec` the issue asks for belongs in the lab
(bench/lab/), which installs the peers; not built yet.
"""
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "e2e"))
from harness import ZeroTest  # noqa: E402


class Bench(ZeroTest):
    def runTest(self):
        pass

    def measure(self, n, jobs):
        self.serve([{"text": "done"}] * n)
        with open(os.path.join(self.work, "t.jsonl"), "w") as f:
            for i in range(n):
                f.write(json.dumps({"id": "t%d" % i, "prompt": "say done"}) + "\n")
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        r = self.zero("batch", "t.jsonl", "-j", str(jobs), timeout=900)
        wall = time.monotonic() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        with open(os.path.join(self.work, "results.jsonl")) as f:
            ok = sum(json.loads(l)["exitCode"] == 0 for l in f)
        if r.returncode != 0 or ok != n:
            sys.exit("batch failed: rc %d, %d/%d ok\n%s" % (r.returncode, ok, n, r.stderr))
        print("zero batch --local -j %d, %d tasks: wall %.2f s, CPU %.2f s (%.1f ms/task), "
              "peak RSS of the largest process %d KiB" % (jobs, n, wall, cpu, cpu * 1000 / n,
                                                          r1.ru_maxrss))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    b = Bench()
    b.setUp()
    try:
        b.measure(n, jobs)
    finally:
        b.tearDown()


if __name__ == "__main__":
    main()
