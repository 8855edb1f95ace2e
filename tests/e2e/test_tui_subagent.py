"""Sub-agents in the interactive UI (issue 17): a child's permission prompt
is the parent's user's to answer, in the parent's own modal
(subagent/relay.h). The real binary in tmux against the fake model server."""
import os
import unittest

from harness import main
from test_tui import TMUX, TuiDriver


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiSubagent(TuiDriver):
    def write(self, rel, text):
        path = os.path.join(self.work, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def script(self):
        return [
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "write notes", "prompt": "write it", "agent": "general"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "child.txt", "content": "from the child\n"}}]},
            {"text": "child done"},
            {"text": "parent done"},
        ]

    def test_childs_prompt_is_answered_in_the_parents_modal(self):
        self.serve(self.script())
        self.start("--permission-mode", "ask")
        self.type("delegate")
        self.keys("Enter")
        # the task call itself asks first (it runs a child), then the child's write
        s = self.wait_for("Permission needed", timeout=30)
        if "sub-agent general" not in s:
            self.keys("y")
            s = self.wait_for("sub-agent general", timeout=30)
        self.assertIn("child.txt", s)
        self.keys("y")
        self.wait_for("parent done", timeout=30)
        with open(os.path.join(self.work, "child.txt")) as f:
            self.assertEqual(f.read(), "from the child\n")
        self.quit_and_check_terminal()

    def test_childs_prompt_denied_in_the_parents_modal_writes_nothing(self):
        self.serve(self.script())
        self.start("--permission-mode", "ask")
        self.type("delegate")
        self.keys("Enter")
        s = self.wait_for("Permission needed", timeout=30)
        if "sub-agent general" not in s:
            self.keys("y")
            self.wait_for("sub-agent general", timeout=30)
        self.keys("n")
        self.wait_for("parent done", timeout=30)
        self.assertFalse(os.path.exists(os.path.join(self.work, "child.txt")))
        self.quit_and_check_terminal()

    def test_running_subagent_shows_its_steps_under_the_task_card(self):
        self.write("a.txt", "hello\n")
        self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "look around", "prompt": "read a.txt", "agent": "explore"}}]},
            {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}},
                            {"name": "read_file", "arguments": {"path": "a.txt"}}]},
            # the child's last turn takes a while: its card is on the screen meanwhile
            {"text": "child answer", "delay_before_ms": 5000},
            {"text": "parent done"},
        ])
        self.start()
        self.type("delegate")
        self.keys("Enter")
        s = self.wait_for("↳ read_file a.txt ✓", timeout=30)
        self.assertIn("sub-agent explore started: look around", s)
        self.assertIn("↳ glob *.txt ✓", s)
        s = self.wait_for("parent done", timeout=30)
        # the finished card keeps the child's final state
        self.assertIn("↳ sub-agent explore · success · 2 tool calls", s)
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
