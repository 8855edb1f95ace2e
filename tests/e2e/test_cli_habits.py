"""The habits of other agents on zero's command line (docs/cli.md "Habits"):
`zero "prompt"` opens the UI with that first prompt, `zero -p` / `--print` is
zero exec, piped standard input is appended to the prompt as a fenced block
(bounded, counted), `-` reads the prompt itself from standard input, and a
prompt larger than the model's window is refused before anything is sent."""
import json
import os
import subprocess
import time
import unittest

from harness import ZERO_BIN, ZeroTest, main
import test_tui


def user_text(model, i=0):
    msgs = model.bodies()[i]["messages"]
    return [m for m in msgs if m["role"] == "user"][-1]["content"]


class Habits(ZeroTest):
    def test_print_flag_is_exec(self):
        for flag in ("-p", "--print"):
            with self.subTest(flag=flag):
                m = self.serve([{"text": "Hi there."}])
                r = self.zero(flag, "say hi", "-o", "json")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(json.loads(r.stdout)["text"], "Hi there.")
                self.assertEqual(user_text(m), "say hi")
        # flags before it, and exec's flags after it, as with zero exec
        m = self.serve([{"text": "Done."}])
        r = self.zero("--model", "test-model", "-p", "list files", "--max-turns", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "Done.")
        self.assertEqual(user_text(m), "list files")
        # an exec usage error is exec's
        r = self.zero("-p", "x", "--max-turns", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--max-turns", r.stderr)

    def test_piped_stdin_is_appended_as_a_fenced_block(self):
        m = self.serve([{"text": "Summary."}])
        log = "line A\n```\ninner fence\n```\nline B\n"
        r = self.zero("exec", "summarize this", input=log)
        self.assertEqual(r.returncode, 0, r.stderr)
        # the fence is longer than any inside, so the block cannot end early
        self.assertEqual(user_text(m), "summarize this\n\n````\n" + log + "````")
        self.assertIn("appended 5 lines (34 B) of standard input to the prompt", r.stderr)
        # and the session records what was sent
        sid = self.session_ids()[0]
        msgs = [e for e in self.session_events(sid) if e["type"] == "message"]
        self.assertIn("inner fence", json.dumps(msgs[0]))

    def test_piped_stdin_is_bounded_and_the_cut_is_said(self):
        m = self.serve([{"text": "Summary."}])
        big = ("x" * 99 + "\n") * 3000  # 300 000 bytes, past the 256 KiB cap
        r = self.zero("exec", "-o", "stream-json", "tail this", input=big)
        self.assertEqual(r.returncode, 0, r.stderr)
        sent = user_text(m)
        self.assertTrue(sent.startswith("tail this\n\n```\n"), sent[:40])
        body = sent[len("tail this\n\n```\n"):-len("```")]
        self.assertEqual(len(body), 256 * 1024 + 1)  # the cap, plus the fence's newline
        warn = [e for e in self.lines(r.stdout) if e["type"] == "warning"
                and e.get("code") == "stdin_truncated"]
        self.assertEqual(len(warn), 1, r.stdout[:2000])
        self.assertIn("2621 lines (256.0 KiB)", warn[0]["message"])
        self.assertIn("left unread", warn[0]["message"])

    def test_dash_reads_the_prompt_from_stdin(self):
        m = self.serve([{"text": "Ok."}])
        r = self.zero("exec", "-", input="the whole prompt\nin two lines\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(user_text(m), "the whole prompt\nin two lines")
        self.assertIn("read 2 lines (30 B) of standard input as the prompt", r.stderr)
        # words and "-" together: the words, then the input, unfenced
        m = self.serve([{"text": "Ok."}])
        r = self.zero("-p", "Review:", "-", input="diff --git a b\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(user_text(m), "Review:\n\ndiff --git a b")

    def test_no_stdin_when_it_is_a_terminal_or_empty(self):
        m = self.serve([{"text": "Ok."}])
        r = self.zero("exec", "just this", input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(user_text(m), "just this")
        self.assertNotIn("standard input", r.stderr)

    def test_a_prompt_over_the_window_is_refused_before_sending(self):
        # the registry's window: gpt-4o has 128 000 tokens
        m = self.serve([{"text": "never"}], model="gpt-4o")
        path = os.path.join(self.work, "huge.txt")
        with open(path, "w") as f:
            f.write("word " * 110000)  # 549 999 bytes once trimmed: about 137 500 tokens
        r = self.zero("exec", "--file", path)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("about 137500 tokens (549999 bytes)", r.stderr)
        self.assertIn("gpt-4o's context window of 128000 tokens", r.stderr)
        self.assertIn("nothing was sent", r.stderr)
        self.assertEqual(m.bodies(), [])
        self.assertEqual(self.session_ids(), [])
        # the configured override, and piped input counts too; json names it
        self.env["ZERO_CONTEXT_WINDOW"] = "1000"
        r = self.zero("exec", "-o", "json", "summarize", input="y" * 5000)
        self.assertEqual(r.returncode, 2)
        j = json.loads(r.stdout)
        self.assertEqual(j["error"]["code"], "usage_error")
        self.assertIn("context window of 1000 tokens", j["error"]["message"])
        self.assertEqual(m.bodies(), [])
        # just under the window goes through
        m = self.serve([{"text": "fits"}])
        r = self.zero("exec", "z" * 3990)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_word_that_is_no_command_needs_a_terminal_as_a_prompt(self):
        r = self.zero("explain the build", input="")
        self.assertEqual(r.returncode, 2)
        self.assertIn('"explain the build" is no command', r.stderr)
        self.assertIn('zero -p "explain the build"', r.stderr)
        # a near miss of a command stays a typo
        r = self.zero("sesions", input="")
        self.assertEqual(r.returncode, 2)
        self.assertIn("did you mean sessions?", r.stderr)


class Mistakes(ZeroTest):
    """Mistakes are said, not swallowed (the unknown-flag lines are checked
    for every command in test_cli_flags.py)."""

    def test_unknown_config_key_warns_with_file_line_and_suggestion(self):
        cfgdir = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfgdir)
        path = os.path.join(cfgdir, "config.json")
        with open(path, "w") as f:
            f.write('{\n  "maxTurns": 5,\n  "maxTurn": 3,\n  "preferences": {\n'
                    '    "compactionModle": "main"\n  }\n}\n')
        want = ['%s:3: unknown key "maxTurn" (did you mean "maxTurns"?)' % path,
                '%s:5: unknown key "preferences.compactionModle" (did you mean '
                '"compactionModel"?)' % path]
        self.serve([{"text": "Ok."}])
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        for w in want:
            self.assertIn(w, r.stderr)
        # stream-json carries them as warnings
        self.serve([{"text": "Ok."}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        warns = [e["message"] for e in self.lines(r.stdout) if e["type"] == "warning"]
        self.assertEqual([w for w in warns if "unknown key" in w], want)
        r = self.zero("config")
        for w in want:
            self.assertIn(w, r.stderr)

    def test_resume_with_an_unknown_id_is_an_error(self):
        m = self.serve([{"text": "First."}, {"text": "never"}])
        self.assertEqual(self.zero("exec", "first task").returncode, 0)
        for words in (["--resume", "now add a test for it"], ["--resume", "nope-id", "go on"],
                      ["go on", "--resume=nope-id"]):
            with self.subTest(words=words):
                r = self.zero("exec", *words)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("no such session", r.stderr)
                self.assertIn("zero sessions list", r.stderr)
        self.assertEqual(len(m.bodies()), 1)  # nothing reached the latest session
        self.assertEqual(len(self.session_ids()), 1)
        # the ways to mean the latest session still work
        r = self.zero("exec", "--resume-latest", "now add a test for it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(m.bodies()), 2)
        self.assertEqual(len(self.session_ids()), 1)


class CompletionValues(ZeroTest):
    """Shell completion of flag values: fixed lists from the script, the rest
    from the binary being completed (`zero __complete WHAT`)."""

    def complete(self, *typed):
        """bash's completions of the last word of `zero typed…`, with the real
        binary as the command word (the script calls it for dynamic values)."""
        words = " ".join("'%s'" % w for w in (ZERO_BIN,) + typed)
        prog = ('source <("$ZERO" completions bash) && COMP_WORDS=(%s) && '
                'COMP_CWORD=%d; _zero; printf "%%s\\n" "${COMPREPLY[@]}"'
                % (words, len(typed)))
        r = subprocess.run(["bash", "-c", prog], env=dict(self.env, ZERO=ZERO_BIN),
                           cwd=self.work, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [l for l in r.stdout.splitlines() if l]

    def test_session_ids_for_resume_and_fork(self):
        self.serve([{"text": "a"}, {"text": "b"}])
        self.assertEqual(self.zero("exec", "--init-session-id", "alpha-1", "x").returncode, 0)
        self.assertEqual(self.zero("exec", "--init-session-id", "beta-2", "y").returncode, 0)
        r = self.zero("__complete", "sessions")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["beta-2", "alpha-1"])  # most recent first
        self.assertEqual(sorted(self.complete("exec", "--resume", "")), ["alpha-1", "beta-2"])
        self.assertEqual(self.complete("--resume", "al"), ["alpha-1"])
        self.assertEqual(self.complete("exec", "--fork", "b"), ["beta-2"])
        self.assertEqual(self.complete("usage", "--session", "a"), ["alpha-1"])

    def test_permission_modes_and_fixed_lists(self):
        self.assertEqual(self.complete("exec", "--permission-mode", ""),
                         ["ask", "auto", "unsafe", "plan", "accept-edits", "spec-draft"])
        self.assertEqual(self.complete("--permission-mode", "acc"), ["accept-edits"])
        self.assertEqual(self.complete("--permission-mode", "p"), ["plan"])
        self.assertEqual(self.complete("exec", "-o", "st"), ["stream-json"])
        self.assertEqual(self.complete("exec", "--reasoning-effort", "m"),
                         ["minimal", "medium", "max"])
        self.assertEqual(self.complete("exec", "-r", "x"), ["xhigh"])
        self.assertEqual(self.complete("exec", "--auto", "me"), ["member", "medium"])
        self.assertEqual(self.complete("--theme", ""), ["dark", "light"])
        os.makedirs(os.path.join(self.work, "subdir"))
        self.assertEqual(self.complete("exec", "-C", "sub"), ["subdir"])
        # after the value, flags and commands again
        self.assertEqual(self.complete("exec", "-o", "json", "--max"), ["--max-turns"])

    def test_models_and_providers_from_registry_and_config(self):
        cfgdir = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfgdir)
        with open(os.path.join(cfgdir, "config.json"), "w") as f:
            json.dump({"providers": [{"name": "work-gw", "provider_kind": "openai-compatible",
                                      "baseURL": "http://127.0.0.1:9/v1",
                                      "model": "house-model-7"}],
                       "models": {"my-finetune": {"contextWindow": 32768}}}, f)
        self.assertIn("gpt-4o", self.complete("-m", "gpt-4"))
        self.assertEqual(self.complete("exec", "-m", "my-"), ["my-finetune"])
        self.assertEqual(self.complete("exec", "--model", "house"), ["house-model-7"])
        self.assertEqual(self.complete("--provider", "work"), ["work-gw"])
        self.assertIn("ollama", self.complete("setup", "--provider", "oll"))
        self.assertIn("ollama", self.complete("providers", "add", "x", "--preset", ""))
        r = self.zero("__complete", "nothing-such")
        self.assertEqual((r.returncode, r.stdout), (2, ""))
        # hidden: not offered as a command
        self.assertEqual(self.complete("__c"), [])


class FirstPrompt(test_tui.Tui):
    """`zero "prompt"` in a real terminal (tmux)."""

    def test_words_are_the_first_prompt(self):
        self.serve([{"text": "First answer here."}])
        self.start("explain", "the build", wait=False)
        s = self.wait_for("First answer here.")
        self.assertIn("› explain the build", s)
        self.quit_and_check_terminal()
        sid = self.session_ids()[0]
        msgs = [e for e in self.session_events(sid) if e["type"] == "message"]
        self.assertIn("explain the build", json.dumps(msgs[0]))

    def test_resume_with_an_unknown_id_is_an_error(self):
        self.serve([])
        self.start("--resume", "fix the bug", wait=False)
        path = os.path.join(self.tmp, "exit-code")
        s = self.wait_for("zero sessions list")
        self.assertIn('"fix the bug"', s)
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.05)
        with open(path) as f:
            self.assertEqual(f.read().strip(), "2")
        self.assertEqual(self.session_ids(), [])


def load_tests(loader, tests, pattern):
    """Only this file's tests (FirstPrompt inherits test_tui's helpers, not
    its tests)."""
    suite = unittest.TestSuite()
    suite.addTests(loader.loadTestsFromTestCase(Habits))
    suite.addTests(loader.loadTestsFromTestCase(Mistakes))
    suite.addTests(loader.loadTestsFromTestCase(CompletionValues))
    suite.addTest(FirstPrompt("test_words_are_the_first_prompt"))
    suite.addTest(FirstPrompt("test_resume_with_an_unknown_id_is_an_error"))
    return suite


if __name__ == "__main__":
    main()
