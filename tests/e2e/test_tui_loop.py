"""/loop in the interactive UI (issue 21, part B), in a real terminal (tmux)
against the fake model server: a prompt repeated every interval runs twice
and `/loop stop` ends it; a custom /command on a loop waits for a running
turn instead of overlapping it; a loop without an interval takes its pace
from the model's `next loop:` line; bad input is refused with a reason.

The shortest interval /loop takes is 10 s, so these tests wait for real
runs (10 to 25 s each); every wait is a poll with a generous deadline."""
import os
import time
import unittest

from harness import main
from test_tui import TMUX, TuiDriver


def user_texts(body):
    out = []
    for m in body["messages"]:
        if m["role"] != "user":
            continue
        c = m["content"]
        out.append(c if isinstance(c, str) else "".join(p.get("text", "") for p in c))
    return out


def status_line(screen):
    """The last non-empty line: the status line under the composer."""
    lines = [l for l in screen.splitlines() if l.strip()]
    return lines[-1] if lines else ""


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiLoop(TuiDriver):
    def wait_requests(self, model, n, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if len(model.bodies()) >= n:
                return model.bodies()
            time.sleep(0.1)
        self.fail("%d requests expected, %d came:\n%s" % (n, len(model.bodies()), self.screen()))

    def wait_status(self, text, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if text in status_line(s):
                return s
            time.sleep(0.1)
        self.fail("%r did not appear in the status line:\n%s" % (text, self.screen()))

    def test_a_prompt_runs_every_interval_until_loop_stop(self):
        m = self.serve([{"text": "tick one"}, {"text": "tick two"}, {"text": "tick three"}])
        self.start()
        self.type("/loop 10s check the build")
        self.keys("Enter")
        self.wait_for("tick one", timeout=30)
        t1 = time.time()
        # the loop's state is in the status line (the countdown itself is
        # checked with a long pace below: a slow machine may not show this
        # one before the next run is due)
        self.wait_status("↻ loop 10s ·")
        self.wait_for("tick two", timeout=60)
        # the second run came an interval after the first (not at once)
        self.assertGreaterEqual(time.time() - t1, 7.0)
        bodies = self.wait_requests(m, 2)
        self.assertEqual(user_texts(bodies[0])[-1], "check the build")
        self.assertEqual(user_texts(bodies[1])[-2:], ["check the build", "check the build"])
        self.assertIn("Loop run 2: check the build", self.screen())
        self.type("/loop stop")
        self.keys("Enter")
        s = self.wait_for("Loop stopped after 2 runs")
        self.assertNotIn("↻ loop", status_line(s))
        # past another interval (and then some), no third run came
        deadline = time.time() + 15
        while time.time() < deadline:
            self.assertEqual(len(m.bodies()), 2, self.screen())
            time.sleep(0.5)
        self.assertNotIn("tick three", self.screen())
        self.quit_and_check_terminal()

    def test_a_custom_command_waits_for_a_running_turn(self):
        cmds = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "commands")
        os.makedirs(cmds)
        with open(os.path.join(cmds, "babysit-prs.md"), "w") as f:
            f.write("---\ndescription: look after the open pull requests\n---\n"
                    "Check every open pull request and nudge the stale ones.\n")
        # the user's own turn takes ~25 s: the loop's second run comes due
        # (20 s after the first started) during it and must wait for its end
        m = self.serve([{"text": "babysat once"},
                        {"text": "slow answer", "delay_before_ms": 25000},
                        {"text": "babysat twice"}])
        self.start()
        self.type("/loop 20s /babysit-prs")
        self.keys("Enter")
        self.wait_for("babysat once", timeout=30)
        self.wait_status("↻ loop 20s · next in")
        self.type("a slow question")
        self.keys("Enter")
        self.wait_requests(m, 2)
        self.wait_status("due after this turn", timeout=40)
        self.wait_for("babysat twice", timeout=60)
        bodies = self.wait_requests(m, 3)
        self.assertEqual(len(bodies), 3)
        prompt = "Check every open pull request and nudge the stale ones."
        self.assertIn(prompt, user_texts(bodies[0])[-1])
        self.assertEqual(user_texts(bodies[1])[-1], "a slow question")
        # the second run started after the slow turn ended: its request
        # carries that turn's answer
        last = bodies[2]["messages"]
        self.assertIn(prompt, user_texts(bodies[2])[-1])
        answers = [x.get("content") for x in last if x["role"] == "assistant"]
        self.assertIn("slow answer", answers)
        self.type("/loop stop")
        self.keys("Enter")
        self.wait_for("Loop stopped after 2 runs")
        self.quit_and_check_terminal()

    def test_without_an_interval_the_model_sets_the_pace(self):
        m = self.serve([{"text": "all green\n\nnext loop: 25m"}])
        self.start()
        self.type("/loop watch the deploy")
        self.keys("Enter")
        s = self.wait_for("next run in 25m (the model's choice)", timeout=30)
        self.assertIn("↻ loop model-paced · next in 2", status_line(s))
        sent = user_texts(m.bodies()[0])[-1]
        # the note that asks for the pace goes to the model, not the screen
        self.assertTrue(sent.startswith("watch the deploy\n\n"), sent)
        self.assertIn("next loop: DURATION", sent)
        self.assertNotIn("next loop: DURATION", s)
        self.type("/loop")
        self.keys("Enter")
        self.wait_for("Loop: watch the deploy at the model's pace, 1 run so far; next in 2")
        self.quit_and_check_terminal()

    def test_bad_input_is_refused_with_a_reason(self):
        self.serve([])
        self.start()
        for line, said in [("/loop 5x ping", '/loop interval "5x": each number needs a unit'),
                           ("/loop 5s ping", "/loop interval 5s: give 10s to 24h."),
                           ("/loop 10s", "say what to run"),
                           ("/loop 10m /no-such-command", "unknown command /no-such-command"),
                           ("/loop 10m /loop stop", "/loop cannot repeat /loop"),
                           ("/loop stop", "No loop runs.")]:
            self.type(line)
            self.keys("Enter")
            self.wait_for(said)
        self.assertNotIn("↻ loop", status_line(self.screen()))
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
