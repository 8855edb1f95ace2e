"""Resume shows what happened (tmux, fake model server): `zero --resume`
renders the whole earlier conversation — every message, every answer and
each tool call as its card with its output collapsed — not only the last
exchange."""
import unittest

from harness import main
from test_tui import TMUX, TuiDriver


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiResume(TuiDriver):
    def test_resume_renders_the_whole_transcript_with_tool_cards(self):
        self.serve([
            {"tool_calls": [{"name": "exec_command",
                             "arguments": {"cmd": "seq 1 9 | sed s/^/tern-/"}}]},
            {"text": "First answer: kestrel."},
            {"text": "Second answer: osprey."},
            {"text": "Third answer: plover."},
            {"text": "Continued."}])
        r = self.zero("exec", "--permission-mode", "auto", "count the terns")
        self.assertEqual(r.returncode, 0, r.stderr)
        sid = self.session_ids()[0]
        for prompt in ("and then", "once more"):
            r = self.zero("exec", "--resume", sid, prompt)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.start("--resume", sid, height=50)
        s = self.wait_for("kestrel")
        # the first exchange too, with its tool card and a collapsed output
        self.assertIn("› count the terns", s)
        self.assertIn("✓ exec_command seq 1 9 | sed s/^/tern-/\n", s)
        self.assertIn("│ tern-1", s)
        self.assertIn("more lines (Ctrl+O shows all)", s)
        self.assertIn("› and then", s)
        self.assertIn("osprey", s)
        self.assertIn("› once more", s)
        self.assertIn("plover", s)
        # and the conversation goes on from there
        self.type("go on")
        self.keys("Enter")
        self.wait_for("Continued.")
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
