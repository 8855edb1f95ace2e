"""Ctrl+P / Ctrl+N move in every menu of the interactive UI (tmux, fake
model server): the / command list, a picker and the permission prompt, as
the arrows do."""
import os
import time
import unittest

from harness import main
from test_tui import TMUX, TuiDriver


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiMenus(TuiDriver):
    def selected_model(self):
        """The model the picker's focus is on (its row starts with ›)."""
        for line in self.screen().splitlines():
            if line.startswith("› ") and " ctx" in line:
                return line[2:].replace("●", "").split()[0]
        return None

    def wait_selected(self, want, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.selected_model()
            if m and want(m):
                return m
            time.sleep(0.05)
        self.fail("the picker's focus did not move:\n%s" % self.screen())

    def test_ctrl_p_and_ctrl_n_move_in_the_command_list(self):
        self.serve([])
        self.start()
        self.type("/")
        self.wait_for("› /help")
        self.keys("C-p")  # up from the first: the last command
        self.wait_for("› /quit")
        self.keys("C-n")  # and down again: back to the first
        self.wait_for("› /help")
        self.keys("C-n")
        self.wait_for("› /model")
        self.keys("C-u")
        self.quit_and_check_terminal()

    def test_ctrl_n_moves_in_a_picker_and_in_the_permission_prompt(self):
        self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "n.txt", "content": "ctrl-n\n"}}]},
            {"text": "Wrote it."}], model="gpt-4.1")
        self.start()
        self.type("/model")
        self.keys("Enter")
        self.wait_for("Switch model")
        self.type("gpt-4.1")  # gpt-4.1, -mini, -nano
        self.wait_for("Search: gpt-4.1")
        first = self.wait_selected(lambda m: True)
        self.keys("C-n")
        second = self.wait_selected(lambda m: m != first)
        self.keys("C-p")
        self.wait_selected(lambda m: m == first)
        self.keys("C-n")
        self.wait_selected(lambda m: m == second)
        self.keys("Enter")
        self.wait_for("Model is now %s" % second)
        # the prompt: the focus starts on Deny, Ctrl+N moves it to Allow once
        self.type("write it")
        self.keys("Enter")
        self.wait_for("› 1. Deny")
        self.keys("C-n")
        self.wait_for("› 2. Allow once")
        self.keys("C-p")
        self.wait_for("› 1. Deny")
        self.keys("C-n")
        self.wait_for("› 2. Allow once")
        self.keys("Enter")
        self.wait_for("Wrote it.")
        with open(os.path.join(self.work, "n.txt")) as f:
            self.assertEqual(f.read(), "ctrl-n\n")
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
