"""The first run (issue 22 A6): the wizard offers every preset (the hosted
ones beside OpenAI, a local runtime, a custom endpoint), never shows a
pasted key, tests the choice and saves it; and `zero --help` lists the
interactive UI's own flags. Real terminal (tmux), fake model server."""
import json
import os
import unittest

from harness import main
from test_tui import TMUX, TuiDriver

KEY = "sk-or-v1-wizardsecretkey0123456789abcdef"


class Help(TuiDriver):
    def test_help_lists_the_ui_flags(self):
        r = self.zero("--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Flags of the interactive UI", r.stdout)
        for flag in ("--resume", "--permission-mode MODE", "--theme NAME", "--worktree",
                     "--add-dir DIR", "--model NAME"):
            self.assertIn(flag, r.stdout)


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class Wizard(TuiDriver):
    def test_presets_are_offered_and_a_pasted_key_is_masked(self):
        model = self.serve([{"text": "OK"}, {"text": "Configured through a preset."}])
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.start(wait=False, height=40)
        s = self.wait_for("Choose [1]")
        for label in ("OpenAI", "A local server", "Another OpenAI-compatible endpoint",
                      "Anthropic", "Google Gemini", "OpenRouter", "DeepSeek", "Groq"):
            self.assertIn(label, s)
        line = [l for l in s.splitlines() if "OpenRouter" in l][0]
        number = line.split(".")[0].strip()
        self.type(number)
        self.keys("Enter")
        s = self.wait_for("Base URL [https://openrouter.ai/api/v1]")
        self.keys("C-u")
        self.type(model.base_url)
        self.keys("Enter")
        s = self.wait_for("API key")
        self.assertIn("[OPENROUTER_API_KEY]", s)  # the preset's variable is the default
        self.type(KEY)
        self.keys("Enter")
        s = self.wait_for("(%d characters)" % len(KEY))
        self.assertIn("cdef", s)  # its last four, to recognise it
        self.wait_for("Model (a number or a name)")
        self.type("1")
        self.keys("Enter")
        self.wait_for("Saved profile")
        s = self.wait_for("Ask anything")
        self.assertNotIn(KEY, self.screen(), "the pasted key is on the screen")
        self.assertNotIn(KEY[:20], self.screen())
        self.type("hi")
        self.keys("Enter")
        self.wait_for("Configured through a preset.")
        self.quit_and_check_terminal()
        with open(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json")) as f:
            cfg = json.load(f)
        self.assertEqual(cfg["activeProvider"], "openrouter")
        prof = cfg["providers"][0]
        self.assertEqual(prof["apiKey"], KEY)
        self.assertEqual(prof["baseURL"], model.base_url)
        get = [r for r in model.requests() if r.get("method") == "GET"][0]
        self.assertEqual(get["headers"].get("Authorization"), "Bearer " + KEY)

    def test_a_wrong_number_asks_again(self):
        self.serve([])
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.start(wait=False, height=40)
        self.wait_for("Choose [1]")
        self.type("99")
        self.keys("Enter")
        self.wait_for("Please answer a number from 1 to")
        self.type("q")
        self.keys("Enter")
        self.wait_for("Nothing saved")


if __name__ == "__main__":
    main()
