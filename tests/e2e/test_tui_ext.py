"""Extensions in the interactive UI (issue 16), in a real terminal (tmux)
against the fake model server: a custom /command with arguments appears in
the / menu and runs as a prompt; the session hooks (sessionStart,
userPromptSubmit, sessionEnd) fire as in zero exec, and a userPromptSubmit
hook's block stops the turn."""
import json
import os
import time
import unittest

from harness import main
from test_tui import TMUX, TuiDriver

RECORDER = "cat >> hook-events.jsonl; echo >> hook-events.jsonl"


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiExt(TuiDriver):
    def config(self):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        return d

    def record(self, *events, block=False):
        hooks = [{"id": "rec-" + e, "event": e, "command": "/bin/sh", "args": ["-c", RECORDER]}
                 for e in events]
        if block:
            hooks.append({"id": "veto", "event": "userPromptSubmit", "command": "/bin/sh",
                          "args": ["-c", "grep -q FORBIDDEN && echo '{\"decision\":\"block\","
                                   "\"reason\":\"no forbidden words\"}' || true"]})
        with open(os.path.join(self.config(), "hooks.json"), "w") as f:
            json.dump({"hooks": hooks}, f)

    def recorded(self):
        path = os.path.join(self.work, "hook-events.jsonl")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(l) for l in f if l.strip()]

    def test_custom_command_with_arguments_runs_from_the_menu(self):
        cmds = os.path.join(self.config(), "commands", "git")
        os.makedirs(cmds)
        with open(os.path.join(cmds, "pr.md"), "w") as f:
            f.write("---\ndescription: open a pull request\nargument-hint: BRANCH\n---\n"
                    "Open a PR from $1 titled $ARGUMENTS.\n")
        m = self.serve([{"text": "PR opened."}])
        self.start()
        self.type("/git:")
        s = self.wait_for("open a pull request")  # the / menu lists it with its description
        self.assertIn("/git:pr", s)
        self.keys("C-u")
        self.type("/git:pr feature-x fix the bug")
        self.keys("Enter")
        self.wait_for("PR opened.")
        sent = [x for x in m.bodies()[0]["messages"] if x["role"] == "user"][-1]["content"]
        text = sent if isinstance(sent, str) else "".join(p.get("text", "") for p in sent)
        self.assertIn("Open a PR from feature-x titled feature-x fix the bug.", text)
        self.quit_and_check_terminal()

    def test_session_hooks_fire_and_a_prompt_hook_can_block(self):
        self.record("sessionStart", "userPromptSubmit", "sessionEnd", block=True)
        m = self.serve([{"text": "First answer."}])
        self.start()
        self.type("say hi")
        self.keys("Enter")
        self.wait_for("First answer.")
        self.type("a FORBIDDEN prompt")
        self.keys("Enter")
        self.wait_for("blocked by a userPromptSubmit hook: no forbidden words")
        self.assertEqual(len(m.bodies()), 1)  # the blocked prompt never reached the model
        self.quit_and_check_terminal()
        deadline = time.time() + 10
        while time.time() < deadline and "sessionEnd" not in [e["event"] for e in self.recorded()]:
            time.sleep(0.1)
        evs = self.recorded()
        self.assertEqual([e["event"] for e in evs],
                         ["sessionStart", "userPromptSubmit", "userPromptSubmit", "sessionEnd"])
        self.assertEqual(evs[1]["prompt"], "say hi")
        self.assertEqual(evs[2]["prompt"], "a FORBIDDEN prompt")
        sid = self.session_ids()[0]
        self.assertTrue(all(e["sessionId"] == sid for e in evs), evs)


if __name__ == "__main__":
    main()
