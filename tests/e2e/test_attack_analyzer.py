"""Attack: a wrapper's options hide a destructive command from the shell
analyzer (issue 14, hole 5). `zero exec` in auto mode gets from the fake
model an exec_command such as `stdbuf --output L rm -rf victim`; the victim
directory must still exist on the host afterwards and the permission events
must say the command needs approval (exec has no one to ask, so it is
denied). A control line through the same wrappers that is harmless runs, so
the survival of the victim is not an accident of a run that executes
nothing. Runs as root and again as uid 65534 (setpriv), like
test_sandbox_attacks.py.
"""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ZeroTest  # noqa: E402
import unpriv  # noqa: E402

UNPRIV = os.environ.get("ZERO_E2E_UNPRIV") == "1"
PY = "/usr/bin/python3"

# Each line runs `rm -rf victim` (or its equivalent) behind wrappers whose
# option values the analyzer once took for the command name, or hides the
# command name some other way.
ATTACKS = [
    "stdbuf --output L rm -rf victim",
    "stdbuf --output=L rm -rf victim",
    "stdbuf --out L rm -rf victim",
    "nice --adjustment 5 rm -rf victim",
    "timeout --signal KILL 5 rm -rf victim",
    "timeout -k 1 5s rm -rf victim",
    "env --unset V rm -rf victim",
    "ionice --class 3 rm -rf victim",
    "chrt --idle 0 rm -rf victim",
    "xargs --max-args 1 rm -rf victim </dev/null",
    "setsid --wait rm -rf victim",
    "flock --timeout 5 lockfile rm -rf victim",
    "flock lockfile -c 'rm -rf victim'",
    "setpriv --no-new-privs rm -rf victim",
    "time -f %e rm -rf victim",
    "command -p rm -rf victim",
    "stdbuf --bogus L rm -rf victim",
    "echo victim | xargs rm",
    "echo 'rm -rf victim' | xargs -I{} sh -c '{}'",
    "/bin/r? -rf victim",
    "sh <<< 'rm -rf victim'",
    "PAGER='rm -rf victim' git --no-pager log; GIT_PAGER='rm -rf victim' git log",
    "trap 'rm -rf victim' EXIT",
    # an assignment after a reserved word or bash's `time` keyword hid the
    # command behind it (found by fuzz_shell_analyzer)
    "if true; then A=1 rm -rf victim; fi",
    "! A=1 rm -rf victim",
    "{ A=1 rm -rf victim; }",
    "time -p A=1 rm -rf victim",
]


class WrappedDestructiveCommands(ZeroTest):
    def setUp(self):
        super().setUp()
        # as uid 65534 the inherited PATH (root's) may hold unreadable dirs
        if UNPRIV:
            self.env["PATH"] = "/usr/local/bin:/usr/bin:/bin"

    def run_line(self, line):
        victim = os.path.join(self.work, "victim")
        os.makedirs(os.path.join(victim, "inner"), exist_ok=True)
        with open(os.path.join(victim, "inner", "keep.txt"), "w") as f:
            f.write("keep")
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": line}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "clean up")
        return r, self.lines(r.stdout), victim

    def test_wrapped_rm_needs_approval_and_the_victim_survives(self):
        for line in ATTACKS:
            with self.subTest(line=line):
                r, evs, victim = self.run_line(line)
                self.assertTrue(os.path.exists(os.path.join(victim, "inner", "keep.txt")),
                                "%r deleted the victim" % line)
                decs = [e for e in evs if e["type"] == "permission_decision"]
                self.assertTrue(decs, r.stdout + r.stderr)
                self.assertEqual(decs[0]["action"], "deny", decs[0])
                self.assertIn(decs[0]["code"], ("destructive", "too_complex"), decs[0])
                self.assertTrue([e for e in evs if e["type"] == "permission_request"])
                if self.model:
                    self.model.stop()
                    self.model = None

    @unittest.skipUnless(shutil.which("bwrap"), "bubblewrap not installed")
    def test_the_same_wrappers_run_a_harmless_command(self):
        # control: without the rm, the wrapped line is allowed and really runs
        r, evs, _ = self.run_line("stdbuf --output L nice --adjustment 5 timeout --signal KILL 5 "
                                  "env --unset V touch made")
        decs = [e for e in evs if e["type"] == "permission_decision"]
        self.assertEqual(decs[0]["action"], "allow", decs[0])
        self.assertTrue(os.path.exists(os.path.join(self.work, "made")), r.stdout + r.stderr)


if __name__ == "__main__":
    unpriv.main(__file__)
