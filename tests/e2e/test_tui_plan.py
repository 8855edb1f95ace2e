"""/plan and /spec in the interactive UI (tmux, fake model server): the agent
drafts a plan read-only, the UI shows it with a choice, and accept, edit and
reject each do what they say -- checked on the screen, in the requests the
model received, and on disk."""
import glob
import json
import os
import stat
import time
import unittest

from harness import main
from test_tui import TMUX, TuiDriver

PLAN_V1 = "# Plan\n\n- Create calc.txt holding 42\n- Verify with cat calc.txt\n"
PLAN_V2 = "# Plan\n\n- Document the change in docs.txt only\n"


def tool_names(body):
    return sorted(t["function"]["name"] for t in body.get("tools", []))


def last_user(body):
    return [m for m in body["messages"] if m.get("role") == "user"][-1]["content"]


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiPlan(TuiDriver):
    def draft_turns(self, plan=PLAN_V1, summary="Drafted the plan."):
        return [{"tool_calls": [{"name": "write_spec", "arguments": {"content": plan}}]},
                {"text": summary}]

    def spec_files(self):
        return glob.glob(os.path.join(self.work, ".zero", "specs", "*.md"))

    def plan_and_wait_for_choice(self, prompt="add a calc file"):
        self.type("/plan " + prompt)
        self.keys("Enter")
        return self.wait_for("Reject — say why")

    def test_accept_builds_the_plan_in_the_mode_the_user_was_in(self):
        model = self.serve(self.draft_turns() + [
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "calc.txt", "content": "42\n"}}]},
            {"text": "Built it."}])
        self.start("--permission-mode", "auto")
        self.wait_for("auto mode ·")
        s = self.plan_and_wait_for_choice()
        self.assertIn("✓ write_spec 4 lines", s)
        # the draft ran read-only with write_spec, and nothing changed yet
        self.wait_for("plan mode ·")  # once the draft's turn has ended
        draft_tools = tool_names(model.bodies()[0])
        self.assertIn("write_spec", draft_tools)
        self.assertNotIn("write_file", draft_tools)
        self.assertNotIn("exec_command", draft_tools)
        self.assertFalse(os.path.exists(os.path.join(self.work, "calc.txt")))
        # the plan is on the screen with the three choices
        self.assertIn("┌ The plan", s)
        self.assertIn("Create calc.txt holding 42", s)
        self.assertIn("› Accept — build it now (back to auto mode)", s)
        self.assertIn("Edit — edit it here in the composer, then build it", s)
        self.keys("Enter")  # accept has the focus
        self.wait_for("Built it.")
        s = self.wait_for("Shift+Tab mode")  # idle: the status line shows the mode again
        self.assertIn("Accepted the plan", s)
        self.assertIn("auto mode ·", s)  # the mode the user was in, not plan
        with open(os.path.join(self.work, "calc.txt")) as f:
            self.assertEqual(f.read(), "42\n")
        build = model.bodies()[2]
        self.assertIn("write_file", tool_names(build))
        self.assertNotIn("write_spec", tool_names(build))
        self.assertIn("is approved", last_user(build))
        self.assertIn("Create calc.txt holding 42", last_user(build))
        # the spec file and the session's kind, as zero exec --use-spec leaves them
        files = self.spec_files()
        self.assertEqual(len(files), 1)
        sid = os.path.basename(files[0])[:-3]
        with open(files[0]) as f:
            self.assertEqual(f.read(), PLAN_V1)
        with open(os.path.join(self.sessions_dir(), sid, "metadata.json")) as f:
            self.assertEqual(json.load(f).get("sessionKind"), "spec")
        self.quit_and_check_terminal()

    def test_edit_in_the_editor_builds_the_edited_plan(self):
        editor = os.path.join(self.tmp, "editor.sh")
        with open(editor, "w") as f:
            f.write("#!/bin/sh\nprintf -- '- Also add a line to README\\n' >> \"$1\"\n")
        os.chmod(editor, os.stat(editor).st_mode | stat.S_IXUSR)
        self.env["EDITOR"] = editor
        model = self.serve(self.draft_turns() + [{"text": "Built the edited plan."}])
        self.start()
        s = self.plan_and_wait_for_choice()
        self.assertIn("Edit — open it in %s, then build it" % editor, s)
        self.keys("Down")
        self.keys("Enter")
        s = self.wait_for("Built the edited plan.")
        self.assertIn("┌ The edited plan", s)
        # The status line shows the mode again once the turn has ended (a
        # snapshot taken as the answer appears may still show the turn).
        self.wait_for("Shift+Tab mode")
        self.assertIn("ask mode ·", self.screen())
        with open(self.spec_files()[0]) as f:
            self.assertEqual(f.read(), PLAN_V1 + "- Also add a line to README\n")
        build = last_user(model.bodies()[2])
        self.assertIn("is approved", build)
        self.assertIn("- Also add a line to README", build)
        self.quit_and_check_terminal()

    def test_edit_without_an_editor_edits_in_the_composer(self):
        model = self.serve(self.draft_turns() + [{"text": "Built the inline edit."}])
        self.start()
        self.plan_and_wait_for_choice()
        self.keys("Down")
        self.keys("Enter")
        self.wait_for("Edit the plan in the composer")
        self.type(" plus a test")
        self.keys("Enter")
        s = self.wait_for("Built the inline edit.")
        self.assertIn("┌ The edited plan", s)
        build = last_user(model.bodies()[2])
        self.assertIn("- Verify with cat calc.txt plus a test", build)
        with open(self.spec_files()[0]) as f:
            self.assertIn("cat calc.txt plus a test", f.read())
        self.quit_and_check_terminal()

    def test_reject_with_a_reason_revises_and_without_one_leaves_plan_mode(self):
        model = self.serve(self.draft_turns() + self.draft_turns(PLAN_V2, "Revised the plan."))
        self.start()
        self.plan_and_wait_for_choice()
        self.keys("Down")
        self.keys("Down")
        self.keys("Enter")
        self.wait_for("Say why after /plan reject")
        self.type("touch docs only")
        self.keys("Enter")
        s = self.wait_for("Document the change in docs.txt only")
        self.wait_for("Reject — say why")
        # the reason reached the model, which revised in plan mode
        revise = model.bodies()[2]
        self.assertIn("The user rejected the plan", last_user(revise))
        self.assertIn("touch docs only", last_user(revise))
        self.assertIn("write_spec", tool_names(revise))
        self.assertNotIn("write_file", tool_names(revise))
        with open(self.spec_files()[0]) as f:
            self.assertEqual(f.read(), PLAN_V2)
        # reject again with no reason: back to ask mode, nothing built
        self.keys("Down")
        self.keys("Down")
        self.keys("Enter")
        self.wait_for("Say why after /plan reject")
        self.keys("Enter")
        self.wait_for("Rejected the plan; nothing was built. Back in ask mode")
        self.wait_for("ask mode ·")  # the status line, once the turn has ended
        self.assertEqual(len(model.bodies()), 4)
        self.quit_and_check_terminal()

    def test_shift_tab_leaves_the_draft_without_building(self):
        model = self.serve(self.draft_turns())
        self.start()
        self.plan_and_wait_for_choice()
        self.keys("Escape")  # the picker closes; the choice waits for /plan
        deadline = time.time() + 10
        while "Reject — say why" in self.screen() and time.time() < deadline:
            time.sleep(0.05)
        self.assertNotIn("Reject — say why", self.screen())
        self.keys("BTab")
        self.wait_for("Left plan mode; the plan was not built")
        self.wait_for("ask mode ·")
        self.assertEqual(len(model.bodies()), 2)
        self.assertFalse(os.path.exists(os.path.join(self.work, "calc.txt")))
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
