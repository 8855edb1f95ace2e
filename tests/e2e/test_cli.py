"""Command-line behaviour that needs no model: help, version, bad input,
sessions listing."""
import json
import os
import subprocess

import harness
from harness import ZeroTest, main


class Cli(ZeroTest):
    def test_version_names_commit_and_libraries(self):
        r = self.zero("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout.splitlines()[0], r"^zero \d+\.\d+\.\d+")
        self.assertIn("commit:", r.stdout)
        self.assertIn("libcurl/", r.stdout)
        self.assertIn("jansson/", r.stdout)
        r = self.zero("version", "--verbose")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"libcurl runtime: libcurl/\d")

    def test_gnutls_loaded_with_libcurl_is_not_started(self):
        """libcurl.so.4 brings GnuTLS (for librtmp), whose constructor starts
        it at load (~0.85 MiB resident per process) unless zero's exported
        _gnutls_global_init_skip says not to; a started GnuTLS logs its start
        under GNUTLS_DEBUG_LEVEL. zero uses OpenSSL through libcurl."""
        env = dict(self.env, GNUTLS_DEBUG_LEVEL="2")
        r = subprocess.run([harness.ZERO_BIN, "version", "--verbose"], cwd=self.work, env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"libcurl runtime: libcurl/\d")
        self.assertNotIn("gnutls[", r.stderr)

    def test_every_command_answers_help(self):
        for args in (["--help"], ["exec", "--help"], ["sessions", "--help"],
                     ["sessions", "list", "--help"], ["version", "--help"]):
            r = self.zero(*args)
            self.assertEqual(r.returncode, 0, args)
            self.assertIn("zero", r.stdout)
            self.assertIn("xample", r.stdout, args)

    def test_help_lists_every_command_main_dispatches(self):
        """Every command src/main.c dispatches (its table, src/cli/commands.c;
        internal __ ones and flag spellings aside) is listed in zero --help
        and answers --help."""
        import re
        with open(os.path.join(os.environ["ZERO_SOURCE_DIR"], "src", "cli", "commands.c")) as f:
            cmds = set(re.findall(r'^\s*\{"([a-z][a-z-]*)",', f.read(), re.M))
        cmds -= {"help"}
        self.assertTrue({"exec", "models", "providers", "doctor", "usage"} <= cmds, cmds)
        usage = self.zero("--help").stdout
        for c in sorted(cmds):
            self.assertRegex(usage, r"zero [^\n]*\b%s\b" % re.escape(c), c)
            r = self.zero(c, "--help")
            self.assertEqual(r.returncode, 0, (c, r.stderr))
            self.assertIn("zero", r.stdout + r.stderr, c)

    def test_unknown_flag_is_a_usage_error(self):
        r = self.zero("exec", "--no-such-flag", "hi")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--no-such-flag", r.stderr)
        self.assertIn("Usage:", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_unknown_command(self):
        r = self.zero("frobnicate")
        self.assertEqual(r.returncode, 2)
        self.assertIn("frobnicate", r.stderr)

    def test_missing_prompt(self):
        r = self.zero("exec", input="")
        self.assertEqual(r.returncode, 2)
        self.assertIn("Prompt required", r.stderr)

    def test_missing_api_key_names_the_variable(self):
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 3)
        self.assertIn("OPENAI_API_KEY", r.stderr)

    def test_malformed_config_names_file_line_and_column(self):
        cfgdir = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfgdir)
        path = os.path.join(cfgdir, "config.json")
        with open(path, "w") as f:
            f.write('{\n  "maxTurns": 5,\n  "providers": [ oops ]\n}\n')
        self.env["OPENAI_API_KEY"] = "sk-x"
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(path + ":3:", r.stderr)

    def test_malformed_project_config_in_stream_json(self):
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "config.json"), "w") as f:
            f.write("{,}")
        self.env["OPENAI_API_KEY"] = "sk-x"
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 2)
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        self.assertEqual(evs[0]["code"], "usage_error")
        self.assertIn(".zero/config.json:1:", evs[0]["message"])

    def test_list_tools_json(self):
        r = self.zero("exec", "--list-tools", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        obj = json.loads(r.stdout)
        self.assertEqual(obj["type"], "tools")
        by_name = {t["name"]: t for t in obj["tools"]}
        for name in ("read_file", "list_directory", "write_file", "edit_file",
                     "exec_command", "update_plan"):
            self.assertIn(name, by_name)
            self.assertFalse(by_name[name]["parameters"].get("additionalProperties", True))
        self.assertEqual(by_name["exec_command"]["side_effect"], "shell")

    def test_list_tools_text(self):
        r = self.zero("exec", "--list-tools")
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("Tools visible to model:"))

    def test_sessions_list_empty_and_after_a_run(self):
        r = self.zero("sessions", "list")
        self.assertEqual(r.returncode, 0)
        self.assertIn("No Zero sessions found.", r.stdout)
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "json", "first task")
        sid = json.loads(r.stdout)["sessionId"]
        r = self.zero("sessions", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        arr = json.loads(r.stdout)
        self.assertEqual(arr[0]["sessionId"], sid)
        r = self.zero("sessions")
        self.assertIn(sid, r.stdout)

    def test_sessions_bad_flag(self):
        r = self.zero("sessions", "list", "--bogus")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    main()
