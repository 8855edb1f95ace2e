"""/style in the interactive UI (issue 22): output styles — the built-ins and
a workspace's own (.zero/output-styles/NAME.md) — switched with /style NAME
or its picker; the style's text reaches the system prompt of the next
request and leaves it when switched back. Real terminal (tmux), fake model
server."""
import json
import os
import unittest

from harness import main
from test_tui import TMUX, TuiDriver


def system_text(body):
    return "".join(m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
                   for m in body["messages"] if m["role"] == "system")


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiStyle(TuiDriver):
    def ask(self, text, answer):
        """Sends text and waits for the model's answer and the end of the
        turn (the answers are words no prompt holds, so the typed prompt
        cannot satisfy the wait before the request was made)."""
        self.type(text)
        self.keys("Enter")
        self.wait_for(answer)
        self.wait_for("Shift+Tab mode")

    def test_style_switches_what_the_system_prompt_says(self):
        d = os.path.join(self.work, ".zero", "output-styles")
        os.makedirs(d)
        with open(os.path.join(d, "pirate.md"), "w") as f:
            f.write("---\ndescription: answers like a pirate\n---\n\nSpeak as PIRATE-VOICE.\n")
        m = self.serve([{"text": "ANSWER-A"}, {"text": "ANSWER-B"}, {"text": "ANSWER-C"},
                        {"text": "ANSWER-D"}])
        self.start()
        self.ask("first", "ANSWER-A")
        self.assertNotIn("# Output style", system_text(m.bodies()[0]))
        self.type("/style explanatory")
        self.keys("Enter")
        self.wait_for("Output style: explanatory.")
        self.ask("second", "ANSWER-B")
        sys2 = system_text(m.bodies()[1])
        self.assertIn("# Output style: explanatory", sys2)
        self.assertIn("Insight:", sys2)
        # the picker lists the built-ins and the workspace's style
        self.type("/style")
        self.keys("Enter")
        s = self.wait_for("answers like a pirate")
        self.assertIn("explanatory", s)
        self.assertIn("learning", s)
        self.assertIn("pirate (project)", s)
        self.type("pira")
        self.keys("Enter")
        self.wait_for("Output style: pirate.")
        self.ask("third", "ANSWER-C")
        sys3 = system_text(m.bodies()[2])
        self.assertIn("Speak as PIRATE-VOICE.", sys3)
        self.assertNotIn("Insight:", sys3)
        self.type("/style default")
        self.keys("Enter")
        self.wait_for("Output style: default.")
        self.ask("fourth", "ANSWER-D")
        self.assertNotIn("# Output style", system_text(m.bodies()[3]))
        self.quit_and_check_terminal()

    def test_unknown_style_says_which_exist_and_changes_nothing(self):
        self.serve([])
        self.start()
        self.type("/style pirate")
        self.keys("Enter")
        s = self.wait_for("Unknown output style pirate")
        self.assertIn("default, explanatory, learning", s)
        self.assertIn(".zero/output-styles/", s)
        self.quit_and_check_terminal()


if __name__ == "__main__":
    main()
