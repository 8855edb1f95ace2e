"""Live output of running commands in the interactive UI (tmux, fake model
server): a command that runs for seconds shows its newest lines under its
card while it runs, redacted, with the elapsed time; the finished card's
time is the command's own, not the time its permission prompt waited."""
import re
import time
import unittest

from harness import main
from test_tui import TMUX, TuiDriver

# An OpenAI key by its shape, printed by the command (its text never holds
# it whole): redacted before it reaches the screen.
SECRET = "sk-proj-" + "Q7x" * 12
PRINT_SECRET = "printf 'key=sk-proj-%s\\n' $(printf 'Q7x%.0s' $(seq 12))"


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiLive(TuiDriver):
    def wait_running(self, text, timeout=20):
        """The screen once text shows while the command's card still runs."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if text in s and "✓ exec_command" not in s:
                return s
            if "✓ exec_command" in s:
                break
            time.sleep(0.05)
        self.fail("%r did not appear while the command ran:\n%s" % (text, self.screen()))

    def test_running_command_streams_its_last_lines_and_times_only_itself(self):
        cmd = ("%s; for i in 1 2 3 4 5 6 7 8; do echo step-$i; sleep 0.4; done; "
               "echo all-done" % PRINT_SECRET)
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": cmd}}]},
            {"text": "The loop finished."}])
        self.start()
        self.type("run the loop")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        # while the prompt waits, the card says so instead of counting
        self.assertIn("waiting for your answer", s)
        time.sleep(8)  # twice as long as the command runs: it must not count
        self.keys("y")
        # while it runs (no ✓ yet): its newest lines under the card, and the
        # time so far
        s = self.wait_running("│ step-3")
        live = s[s.index("exec_command printf"):]
        self.assertRegex(live, r"exec_command printf .*· \d+\.\ds")
        self.assertNotIn("all-done", live)
        self.assertIn("│ key=[REDACTED", s)
        self.assertNotIn(SECRET, s)
        # bounded: five rows at most, the oldest have scrolled away
        s = self.wait_running("│ step-7")
        live = s[s.rindex("exec_command printf"):]
        self.assertNotIn("│ step-1", live)
        self.assertLessEqual(live.count("│ "), 5)
        s = self.wait_for("The loop finished.", timeout=20)
        m = re.search(r"✓ exec_command printf .*· (\d+\.\d)s · exit 0", s)
        self.assertTrue(m, s)
        # the command runs ~3.2 s (more on a loaded machine); the 8 s at the
        # prompt are not in its time
        self.assertLess(float(m.group(1)), 8.0, s)
        self.assertGreater(float(m.group(1)), 2.5, s)
        self.assertNotIn(SECRET, self.screen())
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
