"""The official MCP conformance suite (@modelcontextprotocol/conformance,
pinned in tests/conformance/package.json) against zero's MCP client: every
client scenario, run by the suite in parallel, with tests/conformance/
zero_client.py driving `zero mcp add/login/tools/call` as a user would.

A scenario passes when none of its checks is a FAILURE or WARNING and the
client script exited 0. Scenarios listed in EXPECTED_FAILURES must fail (a
listed one that passes fails the test, so the list stays honest). Skipped,
saying why, only when node/npm are missing or npm cannot install the suite."""
import glob
import shutil
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.normpath(os.path.join(HERE, "..", "conformance"))
sys.path.insert(0, CONF)
import install  # noqa: E402

sys.path.insert(0, HERE)
import harness  # noqa: E402

# Client scenarios zero does not pass yet, with what is missing (none since
# private_key_jwt and cross-app access).
EXPECTED_FAILURES = {}

# Client scenarios of the pinned suite (`client --suite all`). None of them
# covers sampling or resource subscriptions (the suite's tools-call-sampling
# and resources-(un)subscribe are server scenarios): test_mcp_sampling.py
# covers zero's client side of both.
CLIENT_SCENARIOS = 26

# Scenarios whose server never lets the client succeed: the checks say
# whether zero stopped for the right reason, and its failing exit is right.
CLIENT_MUST_FAIL = {
    "auth/resource-mismatch",   # the metadata names another resource: no login
    "auth/scope-retry-limit",   # 403 insufficient_scope forever: give up
}


def scenario_results(out_dir, status_dir):
    """{scenario: (passed, why)} from the suite's checks.json files and the
    exit statuses zero_client.py recorded."""
    results = {}
    for path in glob.glob(os.path.join(out_dir, "**", "checks.json"), recursive=True):
        rel = os.path.relpath(os.path.dirname(path), out_dir)
        scenario = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z?$", "", rel)  # the suite appends -<timestamp>
        with open(path) as f:
            checks = json.load(f)
        bad = ["%s %s%s" % (c["id"], c["status"],
                             " (%s)" % c["errorMessage"] if c.get("errorMessage") else "")
               for c in checks if c.get("status") in ("FAILURE", "WARNING")]
        status_file = os.path.join(status_dir, scenario.replace("/", "_") + ".exit")
        try:
            with open(status_file) as f:
                rc = int(f.read().strip())
        except (OSError, ValueError):
            rc = None
        if rc != 0 and not (rc == 1 and scenario in CLIENT_MUST_FAIL):
            bad.append("client exit %s" % ("timeout/none" if rc is None else rc))
        results[scenario] = (not bad, "; ".join(bad))
    return results


class ConformanceTest(unittest.TestCase):
    def test_client_scenarios(self):
        why = install.ensure()
        if why:
            self.skipTest("MCP conformance suite unavailable: " + why)
        tmp = tempfile.mkdtemp(prefix="zero-conformance-run-")
        self.addCleanup(shutil.rmtree, tmp, True)
        out_dir = os.path.join(tmp, "results")
        status_dir = os.path.join(tmp, "status")
        os.makedirs(status_dir)
        env = dict(os.environ, ZERO_BIN=harness.ZERO_BIN, ZERO_CONFORMANCE_STATUS_DIR=status_dir)
        client = "%s %s" % (sys.executable, os.path.join(CONF, "zero_client.py"))
        t0 = time.monotonic()
        r = subprocess.run(["node", "--import", os.path.join(CONF, "shim", "register.mjs"),
                            install.cli_path(), "client", "--suite", "all", "--command", client,
                            "--timeout", "90000", "-o", out_dir],
                           cwd=tmp, env=env, capture_output=True, text=True, timeout=280)
        print("conformance client suite: %.0f s" % (time.monotonic() - t0), file=sys.stderr)
        results = scenario_results(out_dir, status_dir)
        # The pinned suite's "all" has 26 client scenarios; every one must
        # have run (a scenario that never wrote its checks is a failure).
        self.assertEqual(len(results), CLIENT_SCENARIOS, "%s\n%s%s" % (
            sorted(results), r.stdout[-3000:], r.stderr[-3000:]))
        # The suite starts every scenario at once; a scenario that checks
        # timing (sse-retry wants the reconnection within 450-1000 ms) can
        # miss under that load. One that failed unexpectedly runs once more
        # alone; a real fault fails both times.
        for scenario, (passed, _) in sorted(results.items()):
            if passed or scenario in EXPECTED_FAILURES:
                continue
            again = os.path.join(tmp, "again")
            shutil.rmtree(again, ignore_errors=True)
            subprocess.run(["node", "--import", os.path.join(CONF, "shim", "register.mjs"),
                            install.cli_path(), "client", "--scenario", scenario,
                            "--command", client, "--timeout", "90000", "-o", again],
                           cwd=tmp, env=env, capture_output=True, text=True, timeout=150)
            retried = scenario_results(again, status_dir).get(scenario)
            if retried:
                print("  %s failed in the parallel run (%s); alone: %s"
                      % (scenario, results[scenario][1], "pass" if retried[0] else retried[1]),
                      file=sys.stderr)
                results[scenario] = retried
        for scenario, (passed, why) in sorted(results.items()):
            print("  %-48s %s" % (scenario, "pass" if passed else "FAIL: " + why), file=sys.stderr)
        for scenario, (passed, why) in sorted(results.items()):
            with self.subTest(scenario=scenario):
                if scenario in EXPECTED_FAILURES:
                    self.assertFalse(passed, "%s passes now: drop it from EXPECTED_FAILURES"
                                     % scenario)
                else:
                    self.assertTrue(passed, why)


if __name__ == "__main__":
    harness.main()
