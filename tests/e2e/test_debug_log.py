"""The debug log (docs/cli.md "Debug log"): `--debug` / ZERO_LOG=debug write
request timings, retries, spawns and the sandbox's argv to
$XDG_STATE_HOME/zero/logs/zero.log, redacted, without the prompt unless
ZERO_LOG_BODIES=1; the file rotates; `zero doctor --bundle` packs it with the
redacted config and the version into a .tar for a bug report."""
import glob
import json
import os
import shutil
import tarfile

from harness import ZeroTest, main

KEY = "sk-test-key-for-fake-server"  # the harness's OPENAI_API_KEY
PROMPT = "please PROMPT-MARKER-7781 look"
LEAKY_KEY = "sk-proj-" + "Ab3" * 16  # an OpenAI-shaped key inside the prompt


class DebugLog(ZeroTest):
    def setUp(self):
        super().setUp()
        self.env["XDG_STATE_HOME"] = os.path.join(self.home, "state")
        self.logdir = os.path.join(self.home, "state", "zero", "logs")
        self.log = os.path.join(self.logdir, "zero.log")

    def read_log(self):
        with open(self.log) as f:
            return f.read()

    def run_with_tool(self, *flags):
        turns = [{"status": 500},
                 {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo hi-from-tool"}}]},
                 {"text": "done"}]
        self.serve(turns)
        return self.zero(*flags, "exec", PROMPT + " " + LEAKY_KEY)

    def test_debug_flag_logs_timings_retries_spawns_and_sandbox_argv(self):
        r = self.run_with_tool("--debug")
        self.assertEqual(r.returncode, 0, r.stderr)
        log = self.read_log()
        self.assertRegex(log, r"start: zero \S+ \(commit \S+\), command exec, 2 words")
        url = self.model.base_url.rstrip("/")
        self.assertRegex(log, r"http: POST %s/\S*chat/completions -> 500 in \d+ ms \(connect \d+ ms, "
                              r"first byte \d+ ms\), sent \d+ bytes" % url)
        self.assertRegex(log, r"-> 200 in \d+ ms")
        self.assertRegex(log, r"retry: attempt 1 failed \(.*500.*\); attempt 2 in \d+ ms")
        self.assertIn("spawn: command: ", log)
        self.assertIn("echo hi-from-tool", log)
        self.assertRegex(log, r"spawn: started pid \d+")
        if shutil.which("bwrap"):
            self.assertRegex(log, r"sandbox: argv: \S*bwrap ")
        # never the key, never the prompt
        self.assertNotIn(KEY, log)
        self.assertNotIn("PROMPT-MARKER-7781", log)
        self.assertNotIn(LEAKY_KEY, log)
        st = os.stat(self.log)
        self.assertEqual(st.st_mode & 0o777, 0o600)
        # --debug is zero's, not a prompt word
        self.assertEqual(self.model.bodies()[-1]["messages"][1]["content"], PROMPT + " " + LEAKY_KEY)

    def test_bodies_only_when_asked_and_still_redacted(self):
        self.env["ZERO_LOG"] = "debug"
        self.env["ZERO_LOG_BODIES"] = "1"
        r = self.run_with_tool()
        self.assertEqual(r.returncode, 0, r.stderr)
        log = self.read_log()
        self.assertIn("http: request body: ", log)
        self.assertIn("PROMPT-MARKER-7781", log)
        self.assertNotIn(LEAKY_KEY, log)
        self.assertIn("[REDACTED", log)
        self.assertNotIn(KEY, log)

    def test_off_by_default_and_home_fallback(self):
        self.serve([{"text": "ok"}])
        self.assertEqual(self.zero("exec", "hi").returncode, 0)
        self.assertFalse(os.path.exists(self.logdir))
        del self.env["XDG_STATE_HOME"]
        self.env["ZERO_LOG"] = "debug"
        self.serve([{"text": "ok"}])
        self.assertEqual(self.zero("exec", "hi").returncode, 0)
        self.assertTrue(os.path.exists(os.path.join(self.home, ".local", "state", "zero", "logs",
                                                    "zero.log")))

    def test_the_log_rotates_and_keeps_five_files(self):
        os.makedirs(self.logdir)
        with open(self.log, "w") as f:
            f.write("OLD-CURRENT\n" + "x" * (2 * 1024 * 1024))
        for i in range(1, 5):
            with open("%s.%d" % (self.log, i), "w") as f:
                f.write("OLD-%d\n" % i)
        r = self.zero("--debug", "--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = sorted(os.listdir(self.logdir))
        self.assertEqual(names, ["zero.log", "zero.log.1", "zero.log.2", "zero.log.3",
                                 "zero.log.4"])
        with open(self.log + ".1") as f:
            self.assertTrue(f.read().startswith("OLD-CURRENT"))
        for i in range(2, 5):
            with open("%s.%d" % (self.log, i)) as f:
                self.assertEqual(f.read(), "OLD-%d\n" % (i - 1))  # the oldest, OLD-4, is gone
        self.assertIn("command version", self.read_log())
        self.assertLess(os.path.getsize(self.log), 1000)

    def test_doctor_bundle_packs_log_config_and_version_redacted(self):
        cfgdir = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfgdir)
        with open(os.path.join(cfgdir, "config.json"), "w") as f:
            json.dump({"providers": [{"name": "p", "provider_kind": "openai",
                                      "apiKey": LEAKY_KEY, "model": "gpt-4o"}],
                       "maxTurn": 3}, f, indent=2)
        self.env["ZERO_LOG"] = "debug"
        self.serve([{"text": "ok"}])
        self.zero("exec", "hi")
        r = self.zero("doctor", "--bundle")
        line = [l for l in r.stdout.splitlines() if l.startswith("Bug report bundle: ")]
        self.assertEqual(len(line), 1, r.stdout + r.stderr)
        path = line[0][len("Bug report bundle: "):]
        self.assertTrue(path.startswith(os.path.join(self.home, "state", "zero", "reports")), path)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with tarfile.open(path) as t:
            names = t.getnames()
            data = {n: t.extractfile(n).read().decode() for n in names}
        for want in ("zero-report/README.txt", "zero-report/version.txt",
                     "zero-report/doctor.json", "zero-report/config/user.json",
                     "zero-report/logs/zero.log"):
            self.assertIn(want, names)
        self.assertTrue(data["zero-report/version.txt"].startswith("zero "))
        self.assertEqual(data["zero-report/version.txt"].splitlines()[0],
                         self.zero("--version").stdout.splitlines()[0])
        checks = json.loads(data["zero-report/doctor.json"])
        self.assertTrue(any(c["check"] == "config" for c in checks))
        self.assertIn('"maxTurn"', data["zero-report/config/user.json"])
        self.assertIn("REDACTED", data["zero-report/config/user.json"])
        self.assertIn("http: POST", data["zero-report/logs/zero.log"])
        for n, text in data.items():
            self.assertNotIn(LEAKY_KEY, text, n)
            self.assertNotIn(KEY, text, n)
        # --json names the bundle too
        r = self.zero("doctor", "--bundle", "--json")
        self.assertTrue(os.path.exists(json.loads(r.stdout)["bundle"]))


if __name__ == "__main__":
    main()
