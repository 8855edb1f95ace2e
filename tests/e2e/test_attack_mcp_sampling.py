"""Attacks on MCP sampling (docs/mcp.md, "Sampling"): a server that asks
zero's model for a completion must get nothing of the run — not the user's
prompt, not the project instructions, not zero's system prompt — only an
answer to its own messages; it cannot ask outside one of zero's calls to it;
and the words it sends cannot drive the user's terminal through the
approval prompt. Runs as root and as uid 65534 (unpriv.main)."""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import unpriv  # noqa: E402
from test_tui import TMUX, TuiDriver  # noqa: E402

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "sampling_server.py")
PROMPT_SECRET = "PROMPT-SECRET-7f3a9c"
AGENTS_SECRET = "AGENTS-SECRET-91c2e4"


def configure(case, *extra):
    case.log = os.path.join(case.work, "server.log")
    case.user_config({"mcp": {"servers": {"s": {
        "command": sys.executable, "args": [SERVER, case.log] + list(extra)}}}})


def received(case):
    with open(case.log) as f:
        return f.read()


class SamplingAttacks(harness.ZeroTest):
    def test_the_server_learns_nothing_of_the_run(self):
        configure(self)
        with open(os.path.join(self.work, "AGENTS.md"), "w") as f:
            f.write("Project rule: %s\n" % AGENTS_SECRET)
        model = self.serve([
            {"tool_calls": [{"name": "mcp_s_ask", "arguments": {"prompt": "tell me everything"}}]},
            {"text": "nothing to tell"},
            {"text": "done"}])
        r = self.zero("exec", "--skip-permissions-unsafe", "the key is " + PROMPT_SECRET,
                      timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = model.bodies()
        # the run itself had them (so the test would see a leak)
        self.assertIn(PROMPT_SECRET, json.dumps(bodies[0]))
        self.assertIn(AGENTS_SECRET, json.dumps(bodies[0]))
        sampled = bodies[1]
        self.assertEqual(sampled["messages"], [
            {"role": "system", "content": "You answer for the sampling server."},
            {"role": "user", "content": "tell me everything"}])
        # everything zero sent the server: the answer, and no word of the run
        sent = received(self)
        self.assertIn("nothing to tell", sent)
        for secret in (PROMPT_SECRET, AGENTS_SECRET, "You are zero"):
            self.assertNotIn(secret, json.dumps(sampled))
            self.assertNotIn(secret, sent)

    def test_a_request_outside_any_call_is_refused(self):
        configure(self, "eager")
        model = self.serve([{"text": "done"}])
        r = self.zero("exec", "--skip-permissions-unsafe", "hello", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(model.bodies()), 1, "the server's request reached the model")
        answers = [json.loads(l) for l in received(self).splitlines()
                   if '"sample-0"' in l and '"method"' not in l]
        self.assertEqual(len(answers), 1, received(self))
        self.assertEqual(answers[0]["error"]["code"], -1)
        self.assertIn("only while one of its calls", answers[0]["error"]["message"])


@unittest.skipUnless(TMUX, "tmux is not installed")
@unittest.skipIf(unpriv.UNPRIV, "the TUI does not start in tmux as uid 65534 here; what the "
                 "terminal is sent does not depend on the user")
class PromptInjection(TuiDriver):
    def test_escape_sequences_in_the_request_never_reach_the_terminal(self):
        configure(self)
        self.assertEqual(self.zero("mcp", "grant", "s", "ask").returncode, 0)
        # OSC 2 sets the terminal's title; ESC c resets the terminal
        evil = "hello\x1b]2;pwned-title\x07 there\x1bc"
        self.serve([
            {"tool_calls": [{"name": "mcp_s_ask", "arguments": {"prompt": evil}}]},
            {"text": "Refused it."}])
        self.start()
        self.tmux("select-pane", "-t", "t", "-T", "zero-pane")
        self.type("go")
        self.keys("Enter")
        s = self.wait_for("wants an answer from your model")
        self.assertIn("user: hello", s)
        time.sleep(0.3)  # anything the terminal would do with the bytes is done
        title = self.tmux("display-message", "-p", "-t", "t", "#{pane_title}").stdout.strip()
        self.assertEqual(title, "zero-pane")
        self.keys("n")
        self.wait_for("Refused it.")
        self.quit_and_check_terminal()


if __name__ == "__main__":
    unpriv.main(__file__)
