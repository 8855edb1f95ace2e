"""The permission modes in the interactive UI (tmux, fake model server):
accept-edits (edits run unasked, commands still ask), Shift+Tab through
every mode, preferences.permissionMode, and apply_patch allowed for the
session by the scope of its files."""
import json
import os
import time
import unittest

from harness import main
from test_tui import TMUX, TuiDriver


def patch(*files):
    body = "".join("*** Add File: %s\n+%s\n" % (f, f) for f in files)
    return {"input": "*** Begin Patch\n" + body + "*** End Patch\n"}


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiModes(TuiDriver):
    def test_accept_edits_writes_unasked_and_still_asks_for_commands(self):
        self.user_config({"preferences": {"permissionMode": "accept-edits"}})
        marker = os.path.join(self.work, "ran.txt")
        model = self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "notes.txt", "content": "edited\n"}}]},
            {"tool_calls": [{"name": "exec_command",
                             "arguments": {"cmd": "touch %s" % marker}}]},
            {"text": "Edited, and the command was refused."}])
        self.start()
        self.wait_for("accept-edits mode ·")
        self.type("edit then run")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        # the edit ran without a prompt; the command is the one asking
        self.assertIn("✓ write_file notes.txt", s)
        self.assertIn("exec_command wants to run touch", s)
        with open(os.path.join(self.work, "notes.txt")) as f:
            self.assertEqual(f.read(), "edited\n")
        self.keys("n")
        self.wait_for("Edited, and the command was refused.")
        self.assertFalse(os.path.exists(marker))
        self.assertIn("Accept-edits mode", model.bodies()[0]["messages"][0]["content"])
        # Shift+Tab walks every mode and comes back
        for mode in ("auto", "plan", "ask", "accept-edits"):
            self.keys("BTab")
            self.wait_for("%s mode ·" % mode)
        self.quit_and_check_terminal()

    def test_a_project_config_cannot_choose_the_mode(self):
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "config.json"), "w") as f:
            json.dump({"preferences": {"permissionMode": "auto"}}, f)
        self.user_config({"preferences": {"permissionMode": "unsafe"}})
        self.serve([])
        self.start()
        s = " ".join(self.wait_for("ask mode ·").split())
        self.assertIn("preferences.permissionMode must be ask, accept-edits, auto or plan", s)
        self.quit_and_check_terminal()

    def test_apply_patch_allowed_for_the_session_by_the_scope_of_its_files(self):
        os.makedirs(os.path.join(self.work, "src"))
        self.serve([
            {"tool_calls": [{"name": "apply_patch", "arguments": patch("src/a.txt", "src/b.txt")}]},
            {"text": "First patch done."},
            {"tool_calls": [{"name": "apply_patch", "arguments": patch("src/c.txt")}]},
            {"text": "Second patch done."},
            {"tool_calls": [{"name": "apply_patch", "arguments": patch("top.txt")}]},
            {"text": "Third patch answered."}])
        self.start()
        self.type("patch src")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        src = os.path.realpath(os.path.join(self.work, "src"))
        self.assertIn("Allow for this session: apply_patch on %s (a)" % src, s.replace("\n", ""))
        self.keys("a")
        self.wait_for("First patch done.")
        self.type("patch src again")
        self.keys("Enter")
        # no key is pressed: a prompt here would wait forever
        self.wait_for("Second patch done.")
        self.assertTrue(os.path.exists(os.path.join(self.work, "src", "c.txt")))
        # outside src/ it asks again
        self.type("patch the top")
        self.keys("Enter")
        self.wait_for("apply_patch wants to write add top.txt")
        self.keys("n")
        self.wait_for("Third patch answered.")
        self.assertFalse(os.path.exists(os.path.join(self.work, "top.txt")))
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
