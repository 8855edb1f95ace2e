"""The manual and the shell completions are made from the command and flag
tables, so they cannot drift: every visible command has a man page, every flag
its --help lists is in that page and in the bash completion; and `make
install` into a DESTDIR installs only what zero needs to run, which `make
uninstall` removes again."""
import os
import re
import subprocess
import tempfile

from harness import ZERO_BIN, ZeroTest, main

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FLAG_LINE = re.compile(r"^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)")


def visible_commands(help_text):
    """The command names `zero --help` lists ("  zero NAME …" lines)."""
    names = []
    for line in help_text.splitlines():
        m = re.match(r"^  zero ([a-z][a-z-]*)[| \n]", line + "\n")
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def listed_flags(help_text):
    """The long flags a --help defines (one per flag line)."""
    return [m.group(1) for m in map(FLAG_LINE.match, help_text.splitlines()) if m]


class Manual(ZeroTest):
    def setUp(self):
        super().setUp()
        self.man = os.path.join(self.work, "man")
        r = self.zero("__manpages", self.man)
        self.assertEqual(r.returncode, 0, r.stderr)

    def page(self, name):
        path = os.path.join(self.man, "man1", name + ".1")
        self.assertTrue(os.path.isfile(path), "no man page %s" % path)
        with open(path, encoding="utf-8") as f:
            return f.read()

    def test_every_command_and_flag_is_in_the_manual_and_the_completion(self):
        commands = [c for c in visible_commands(self.zero("--help").stdout) if c != "help"]
        self.assertIn("exec", commands)
        self.assertIn("sessions", commands)
        bash = self.zero("completions", "bash").stdout
        top = self.page("zero")
        for flag in listed_flags(self.zero("-h").stdout):
            with self.subTest(page="zero", flag=flag):
                self.assertIn("\\-\\-" + flag.replace("-", "\\-"), top)
                self.assertIn("--" + flag, bash)
        for cmd in commands:
            text = self.page("zero-" + cmd)
            self.assertIn("\\fBzero\\-%s\\fR(1)" % cmd.replace("-", "\\-"), top)
            help_text = self.zero(cmd, "--help").stdout
            for flag in listed_flags(help_text):
                with self.subTest(command=cmd, flag=flag):
                    self.assertIn("\\-\\-" + flag.replace("-", "\\-"), text)
                    self.assertIn("--" + flag, bash)

    def test_pages_are_valid_roff(self):
        """man renders each page without a warning (groff's -ww checks)."""
        if not shutil_which("man"):
            self.skipTest("man is not installed (make deps-dev installs man-db)")
        for name in sorted(os.listdir(os.path.join(self.man, "man1"))):
            path = os.path.join(self.man, "man1", name)
            r = subprocess.run(["man", "--warnings=all", "-l", "-Tutf8", path],
                               capture_output=True, text=True, timeout=60,
                               env=dict(self.env, MANWIDTH="80"))
            with self.subTest(page=name):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stderr.strip(), "", r.stderr)

    def test_install_holds_only_what_zero_needs_and_uninstall_removes_it(self):
        build = os.path.dirname(os.path.abspath(ZERO_BIN))
        if not os.path.exists(os.path.join(build, "share", "stamp")):
            self.skipTest("this build does not generate the manual (an instrumented build)")
        dest = tempfile.mkdtemp(dir=self.work)
        r = subprocess.run(["cmake", "--install", build, "--prefix", "/opt/z"],
                           env=dict(self.env, DESTDIR=dest), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        installed = sorted(os.path.relpath(os.path.join(d, f), dest + "/opt/z")
                           for d, _, fs in os.walk(dest) for f in fs)
        allowed = ("bin/zero", "libexec/zero/", "share/man/man1/zero", "share/man/man5/zero-config.5",
                   "share/doc/zero/", "share/bash-completion/completions/zero",
                   "share/zsh/site-functions/_zero", "share/fish/vendor_completions.d/zero.fish")
        for path in installed:
            with self.subTest(path=path):
                self.assertTrue(path.startswith(allowed), "unexpected installed file " + path)
        for needed in ("bin/zero", "share/man/man1/zero.1", "share/man/man1/zero-exec.1",
                       "share/man/man5/zero-config.5", "share/bash-completion/completions/zero",
                       "share/zsh/site-functions/_zero", "share/fish/vendor_completions.d/zero.fish"):
            self.assertIn(needed, installed)
        r = subprocess.run(["make", "-s", "-C", REPO, "uninstall", "BUILD=" + build,
                            "DESTDIR=" + dest, "PREFIX=/opt/z"],
                           env=self.env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        left = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs]
        self.assertEqual(left, [])


def shutil_which(name):
    from shutil import which
    return which(name)


if __name__ == "__main__":
    main()
