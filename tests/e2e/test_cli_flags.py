"""The one option parser and the command table, seen from outside: every
command answers a mistyped flag with a usage error (exit 2) naming the flag it
meant, `zero help CMD` is `zero CMD --help`, and `zero completions bash`
loads in bash and completes command names and flags."""
import os
import re
import shutil
import subprocess

from harness import ZERO_BIN, ZeroTest, main

# (words, the mistyped flag's intended spelling): one per command and face.
TYPOS = [
    (["exec", "--modle", "m", "hi"], "--model"),
    (["--modle", "m"], "--model"),  # the interactive UI's flags
    (["sessions", "list", "--jsno"], "--json"),
    (["search", "flaky", "--limt", "3"], "--limit"),
    (["find", "flaky", "--jsn"], "--json"),
    (["context", "--sesion", "x"], "--session"),
    (["models", "list", "--provder", "openai"], "--provider"),
    (["providers", "list", "--jsn"], "--json"),
    (["providers", "add", "local", "--presett", "ollama"], "--preset"),
    (["setup", "--provder", "ollama"], "--provider"),
    (["doctor", "--conectivity"], "--connectivity"),
    (["usage", "--sesion", "x"], "--session"),
    (["mcp", "list", "--jsn"], "--json"),
    (["mcp", "add", "a", "--urll", "http://127.0.0.1:9/mcp"], "--url"),
    (["mcp", "remove", "a", "--projet"], "--project"),
    (["serve", "--mpc"], "--mcp"),
    (["sandbox", "policy", "--effectiv"], "--effective"),
    (["sandbox", "exec", "--netwrk", "--", "true"], "--network"),
    (["tools", "list", "--jsn"], "--json"),
    (["version", "--verbos"], "--verbose"),
    (["agents", "list", "--jsn"], "--json"),
    (["hooks", "list", "--jsn"], "--json"),
    (["config", "--jsn"], "--json"),
    (["acp", "--permision-mode", "ask"], "--permission-mode"),
    (["-p", "hi", "--modle", "m"], "--model"),  # zero -p is zero exec
]


class CliFlags(ZeroTest):
    def test_a_mistyped_flag_is_a_usage_error_that_names_the_flag(self):
        for words, meant in TYPOS:
            with self.subTest(words=words):
                r = self.zero(*words)
                self.assertEqual(r.returncode, 2, (r.stdout, r.stderr))
                self.assertIn("did you mean %s?" % meant, r.stderr)
                self.assertEqual(r.stdout, "")
                # one line for the mistake, one for the short usage: not the whole help
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 2, r.stderr)
                # "zero CMD[ SUB]: the mistake" (exec keeps Go zero's "[zero] …")
                name = {"find": "search", "setup": "providers"}.get(words[0], words[0])
                if not name.startswith("-") and name != "exec":
                    self.assertRegex(lines[0], r"^zero %s( [a-z]+)?: " % re.escape(name))
                self.assertTrue(lines[1].startswith("Usage: zero"), r.stderr)
                self.assertIn("--help lists every flag", lines[1])
        # nothing was written by the refused commands
        self.assertFalse(os.path.exists(os.path.join(self.env["XDG_CONFIG_HOME"], "zero",
                                                     "config.json")))
        self.assertEqual(self.session_ids(), [])

    def test_a_flag_with_nothing_near_gets_no_guess(self):
        r = self.zero("exec", "--frobnicate", "hi")
        self.assertEqual(r.returncode, 2)
        self.assertIn('unknown exec flag "--frobnicate" (see zero exec --help)', r.stderr)
        self.assertNotIn("did you mean", r.stderr)

    def test_equals_form_works_for_every_value_flag(self):
        r = self.zero("models", "list", "--provider=anthropic", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("claude", r.stdout)
        r = self.zero("search", "nothing-here", "--limit=2")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_mistyped_command_suggests_the_command(self):
        r = self.zero("sesions")
        self.assertEqual(r.returncode, 2)
        self.assertIn('unknown command "sesions"; did you mean sessions?', r.stderr)

    def test_mistyped_subcommand_suggests_the_subcommand(self):
        """Every command with subcommands answers through zcli_dispatch: the
        word, the nearest row, then the command's usage; exit 2, no stdout."""
        for cmd, word, unknown, tail in (
                ("sessions", "lst", "unknown sessions subcommand", "short"),
                ("worktrees", "prun", "unknown subcommand", "short"),
                ("tools", "rn", "unknown subcommand", "short"),
                ("config", "gett", "unknown config subcommand", "short"),
                ("providers", "detct", "unknown subcommand", "usage")):
            r = self.zero(cmd, word)
            want = {"lst": "list", "prun": "prune", "rn": "run", "gett": "get",
                    "detct": "detect"}[word]
            first = 'zero %s: %s "%s"; did you mean %s?\n' % (cmd, unknown, word, want)
            self.assertEqual((r.returncode, r.stdout), (2, ""), (cmd, r.stderr))
            self.assertTrue(r.stderr.startswith(first), (cmd, r.stderr))
            rest = r.stderr[len(first):]
            if tail == "short":
                self.assertTrue(rest.startswith("Usage: zero %s " % cmd), rest)
                self.assertEqual(rest.count("\n"), 1, rest)
            else:
                self.assertTrue(rest.startswith("\nUsage: zero %s list" % cmd), rest)
        # The word `help` is help there too, and no word runs the listing.
        for cmd in ("sessions", "worktrees", "config", "providers"):
            r = self.zero(cmd, "help")
            self.assertEqual(r.returncode, 0, (cmd, r.stderr))
            self.assertTrue(r.stdout.startswith("Usage: zero %s" % cmd), r.stdout)
        r = self.zero("providers", "--json")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "[]"), r.stderr)

    def test_help_names_a_command(self):
        a = self.zero("help", "exec")
        b = self.zero("exec", "--help")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertIn("--output-format", a.stdout)
        r = self.zero("help", "frobnicate")
        self.assertEqual(r.returncode, 2)
        for words in (["help", "--help"], ["--help", "help"], ["help", "help"]):
            r = self.zero(*words)
            self.assertEqual(r.returncode, 0, words)
            self.assertIn("zero exec", r.stdout)

    def test_help_and_completion_list_the_same_commands(self):
        usage = self.zero("--help").stdout
        script = self.zero("completions", "bash").stdout
        for cmd in ("exec", "sessions", "search", "mcp", "sandbox", "completions", "doctor"):
            self.assertIn("zero " + cmd, usage)
            self.assertIn(cmd, script)
        self.assertNotIn("__sandbox-inner", usage)
        self.assertNotIn("__sandbox-inner", script)

    def complete(self, *typed):
        """The bash completions of the last word of `zero typed…`."""
        words = " ".join("'%s'" % w for w in ("zero",) + typed)
        prog = ('source <("$ZERO" completions bash) && COMP_WORDS=(%s) && '
                'COMP_CWORD=%d; _zero; printf "%%s\\n" "${COMPREPLY[@]}"'
                % (words, len(typed)))
        env = dict(self.env, ZERO=ZERO_BIN)
        r = subprocess.run(["bash", "-c", prog], env=env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [l for l in r.stdout.splitlines() if l]

    def test_bash_completion_completes_commands_and_flags(self):
        self.assertEqual(self.complete("sess"), ["sessions"])
        self.assertEqual(sorted(self.complete("co")), ["completion", "completions", "config", "context"])
        self.assertEqual(self.complete("exec", "--max"), ["--max-turns"])
        self.assertEqual(self.complete("exec", "--output-f"), ["--output-format"])
        # a value flag's value is not taken for the command
        self.assertEqual(self.complete("-m", "gpt-4.1", "exe"), ["exec"])
        self.assertEqual(self.complete("exec", "-m", "x", "--reas"), ["--reasoning-effort"])
        # subcommands until one is given, then the command's flags
        self.assertEqual(self.complete("sessions", "lin"), ["lineage"])
        self.assertEqual(self.complete("sessions", "show", "--js"), ["--json"])
        self.assertEqual(self.complete("sessions", "show", "l"), [])
        self.assertEqual(self.complete("find", "--li"), ["--limit"])
        self.assertEqual(self.complete("--th"), ["--theme"])

    def test_completion_scripts_for_zsh_and_fish(self):
        for shell, marker in (("zsh", "compdef _zero zero"), ("fish", "complete -c zero")):
            r = self.zero("completions", shell)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(marker, r.stdout)
            self.assertIn("--max-turns", r.stdout)
            if shutil.which(shell):
                check = ["zsh", "-n"] if shell == "zsh" else ["fish", "--no-execute"]
                c = subprocess.run(check, input=r.stdout, capture_output=True, text=True,
                                   timeout=30)
                self.assertEqual(c.returncode, 0, c.stderr)
        if shutil.which("zsh"):
            # compadd stands in for zsh's completion system: it prints what it is given
            prog = ('compdef() {}; compadd() { shift; print -l -- "$@" }; '
                    'source <("$ZERO" completions zsh); '
                    'words=(zero exec -m x --max); CURRENT=5; _zero')
            r = subprocess.run(["zsh", "-c", prog], env=dict(self.env, ZERO=ZERO_BIN),
                               capture_output=True, text=True, timeout=30)
            self.assertIn("--max-turns", r.stdout.split(), r.stderr)
            self.assertNotIn("exec", r.stdout.split())
        if shutil.which("fish"):
            path = os.path.join(self.tmp, "zero.fish")
            with open(path, "w") as f:
                f.write(self.zero("completions", "fish").stdout)
            r = subprocess.run(["fish", "-c", 'source %s; complete -C "zero sess"; '
                                'complete -C "zero exec -m x --reas"' % path],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.stdout.split(), ["sessions", "--reasoning-effort"], r.stderr)
        r = self.zero("completion", "bash")  # Go zero's spelling is completions; both work
        self.assertEqual(r.returncode, 0)
        for args in ([], ["tcsh"], ["bash", "zsh"]):
            r = self.zero("completions", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    main()
