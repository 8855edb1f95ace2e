"""The official MCP conformance suite's *server* scenarios
(@modelcontextprotocol/conformance, pinned in tests/conformance/package.json)
against zero's MCP server over Streamable HTTP.

Two servers, one server core and transport (src/mcp/server.c, serve_http.c):
 - `zero serve --mcp --http` itself runs every scenario that needs no
   fixture (ZERO_SCENARIOS): initialize, ping, logging, completion, the
   three lists, concurrent SSE streams, DNS rebinding protection;
 - zero-mcp-fixture-server (tests/conformance/fixture_server.c) serves the
   suite's reference catalog (test_* tools, test:// resources, test_*
   prompts) and runs every scenario, so the scenarios that call fixtures by
   name (sampling, elicitation, progress, logging, resumable streams, …)
   exercise zero's protocol code.
A scenario passes when none of its checks is a FAILURE or WARNING. Skipped,
saying why, only when node/npm are missing or npm cannot install the suite."""
import glob
import json
import os
import re
import shutil
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

FIXTURE_BIN = os.path.join(os.path.dirname(harness.ZERO_BIN), "tests", "zero-mcp-fixture-server")

# The scenarios zero's own catalog can pass: the others call the suite's
# fixtures by name (test_simple_text, test://static-text, test_simple_prompt …).
ZERO_SCENARIOS = ["server-initialize", "ping", "logging-set-level", "completion-complete",
                  "tools-list", "resources-list", "prompts-list", "server-sse-multiple-streams",
                  "dns-rebinding-protection"]


def results_of(out_dir):
    """{scenario: [bad check, …]} from the suite's checks.json files."""
    results = {}
    for path in glob.glob(os.path.join(out_dir, "*", "checks.json")):
        name = os.path.basename(os.path.dirname(path))
        scenario = re.sub(r"^server-", "", re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z?$", "", name))
        with open(path) as f:
            checks = json.load(f)
        results[scenario] = ["%s %s%s" % (c["id"], c["status"],
                                          " (%s)" % c["errorMessage"] if c.get("errorMessage")
                                          else "")
                             for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    return results


class ConformanceServerTest(harness.ZeroTest):
    def setUp(self):
        super().setUp()
        why = install.ensure()
        if why:
            self.skipTest("MCP conformance suite unavailable: " + why)

    def start(self, argv, env=None, cwd=None):
        """Starts a server that prints its URL; returns (proc, url)."""
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, cwd=cwd)
        self.addCleanup(lambda: p.poll() is None and (p.terminate(), p.communicate(timeout=10)))
        stream = p.stderr if argv[0] == harness.ZERO_BIN else p.stdout
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = stream.readline()
            m = re.search(r"(http://\S+/mcp)", line)
            if m:
                return p, m.group(1)
            if not line and p.poll() is not None:
                break
        self.fail("server did not start: " + (p.stderr.read() if p.stderr else ""))

    def assert_clean_exit(self, p):
        """Stops p and checks its stderr: in a sanitizer build (make test,
        make test-tsan) a report there fails the test, so a race or leak
        the suite provokes in the server does not pass unseen."""
        p.terminate()
        _, err = p.communicate(timeout=30)
        for word in ("Sanitizer", "runtime error:"):
            self.assertFalse(word in err, err[-3000:])
        self.assertEqual(p.returncode, 0, err[-2000:])

    def run_suite(self, url, scenario=None):
        out_dir = tempfile.mkdtemp(prefix="zero-conf-server-")
        self.addCleanup(shutil.rmtree, out_dir, True)
        argv = ["node", "--import", os.path.join(CONF, "shim", "register.mjs"),
                install.cli_path(), "server", "--url", url, "-o", out_dir]
        argv += ["--scenario", scenario] if scenario else ["--suite", "all"]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=240)
        return results_of(out_dir), r

    def report(self, who, results):
        for scenario, bad in sorted(results.items()):
            print("  %-8s %-34s %s" % (who, scenario, "pass" if not bad else "FAIL: " + "; ".join(bad)),
                  file=sys.stderr)

    def test_fixture_catalog_passes_every_server_scenario(self):
        if not os.path.exists(FIXTURE_BIN):
            self.fail("%s is not built (cmake --build build)" % FIXTURE_BIN)
        p, url = self.start([FIXTURE_BIN])
        results, r = self.run_suite(url)
        self.report("fixture", results)
        self.assert_clean_exit(p)
        self.assertGreaterEqual(len(results), 30, r.stdout[-3000:] + r.stderr[-3000:])
        for scenario, bad in sorted(results.items()):
            with self.subTest(scenario=scenario):
                self.assertEqual(bad, [])

    def test_zero_serve_http_passes_the_fixture_free_scenarios(self):
        ws = tempfile.mkdtemp(prefix="zero-conf-ws-")
        self.addCleanup(shutil.rmtree, ws, True)
        with open(os.path.join(ws, "notes.txt"), "w") as f:
            f.write("a workspace file\n")
        cfg = tempfile.mkdtemp(prefix="zero-conf-cfg-")
        self.addCleanup(shutil.rmtree, cfg, True)
        os.makedirs(os.path.join(cfg, "zero", "commands"))
        with open(os.path.join(cfg, "zero", "commands", "explain.md"), "w") as f:
            f.write("---\ndescription: Explain a file\n---\nExplain $ARGUMENTS.\n")
        env = dict(os.environ, XDG_CONFIG_HOME=cfg)
        p, url = self.start([harness.ZERO_BIN, "serve", "--mcp", "--http", "0"], env=env, cwd=ws)
        results, r = self.run_suite(url)
        self.report("zero", {s: results.get(s, ["not run"]) for s in ZERO_SCENARIOS})
        self.assert_clean_exit(p)
        for scenario in ZERO_SCENARIOS:
            with self.subTest(scenario=scenario):
                self.assertIn(scenario, results, r.stdout[-2000:])
                self.assertEqual(results[scenario], [])


if __name__ == "__main__":
    harness.main()
