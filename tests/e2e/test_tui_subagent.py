"""Sub-agents in the interactive UI (issue 17): a child's permission prompt
is the parent's user's to answer, in the parent's own modal
(subagent/relay.h); /ps and /stop list and stop the background tasks and
commands; ask_user (the model's, or a child's relayed) is asked inline.
The real binary in tmux against the fake model server."""
import json
import os
import subprocess
import time
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


# Parallel request streams (the parent and a background child): each turn
# names what only its stream's requests hold (tests/e2e/README.md "match").
PARENT = "PARENT-PROMPT-7Q"
CHILD = "the explore sub-agent"


def ps_lines(needle):
    """Processes whose command line holds needle (checked with ps)."""
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if needle in l and "ps -eo" not in l]


def tool_messages(body):
    return [m for m in body["messages"] if m["role"] == "tool"]


def wait_until(cond, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


class BackgroundCase(TuiDriver):
    """Background children of this test: seen with ps, their ends with a hook."""
    RECORDER = "cat >> hook-events.jsonl; echo >> hook-events.jsonl"

    def record_stops(self):
        """A user hook on subagentStop that appends its payload to a file."""
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"id": "rec", "event": "subagentStop", "command": "/bin/sh",
                                  "args": ["-c", self.RECORDER]}]}, f)

    def stops(self):
        path = os.path.join(self.work, "hook-events.jsonl")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(l) for l in f if l.strip()]

    def children(self):
        """The background child zero runs of this test (its workspace is -C)."""
        return ps_lines("-C " + os.path.realpath(self.work))


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiPsStop(BackgroundCase):

    def start_stop_and_check_once(self, first_call, listed):
        """The parent's first turn makes first_call, which starts one
        background child (as bg-1) whose turn never ends in time; /ps lists
        it (listed: its row after the id), /stop bg-1 ends its whole group at
        once, and its end is reported once (the subagentStop hook): neither
        /ps nor leaving reports it again. Returns the reported stops."""
        self.record_stops()
        self.serve([
            {"match": PARENT, "tool_calls": [first_call]},
            {"match": CHILD, "text": "too late", "delay_before_ms": 60000},
            {"match": PARENT, "text": "STARTED IT"},
        ])
        self.start()
        self.type(PARENT)
        self.keys("Enter")
        self.wait_for("STARTED IT", timeout=30)
        self.assertTrue(wait_until(lambda: self.children()), "the child never started")
        self.type("/ps")
        self.keys("Enter")
        s = self.wait_for("Background tasks:")
        self.assertIn("bg-1", s)
        self.assertIn(listed, s)
        self.type("/stop bg-1")
        self.keys("Enter")
        self.wait_for("Stopped task bg-1")
        # the whole group is gone at once: stop returns after the child is reaped
        self.assertEqual(self.children(), [])
        self.assertTrue(wait_until(lambda: self.stops()), "subagentStop never fired")
        self.type("/ps")
        self.keys("Enter")
        self.wait_for("bg-1   stopped")
        self.quit_and_check_terminal()
        stops = self.stops()
        self.assertEqual(len(stops), 1, stops)
        self.assertEqual(stops[0]["status"], "stopped")
        return stops

    def test_ps_lists_a_background_task_and_stop_kills_its_group(self):
        stops = self.start_stop_and_check_once(
            {"name": "task", "arguments": {"description": "slow look", "prompt": "take your time",
                                           "agent": "explore", "background": True}},
            "running  explore · slow look")
        self.assertEqual(stops[0]["agent"], "explore")

    def test_ps_lists_a_swarm_member_and_stop_kills_it(self):
        # A swarm member is a background child too: /ps lists it with its
        # team, /stop ends its whole group, and its end is reported once.
        self.user_config({"swarm": {"enabled": True}})
        # no .zero yet: the hook's sandbox holds a placeholder there, which
        # zero claims as its folder for the team's mailboxes
        self.assertFalse(os.path.lexists(os.path.join(self.work, ".zero")))
        self.start_stop_and_check_once(
            {"name": "swarm_spawn", "arguments": {
                "team": "crew", "members": [{"name": "scout", "prompt": "take your time",
                                             "agent": "explore", "isolation": "none"}]}},
            "running  explore · scout of swarm team crew")

    def test_stop_during_a_turn_records_the_end_once_when_it_ends(self):
        self.record_stops()
        self.serve([
            {"match": PARENT, "tool_calls": [{"name": "task", "arguments": {
                "description": "slow look", "prompt": "take your time", "agent": "explore",
                "background": True}}]},
            {"match": CHILD, "text": "too late", "delay_before_ms": 60000},
            # the parent's next request waits: the turn is running during /stop
            {"match": PARENT, "tool_calls": [{"name": "task_output", "arguments": {
                "task_id": "bg-1"}}], "delay_before_ms": 4000},
            {"match": PARENT, "text": "PARENT DONE"},
        ])
        self.start()
        self.type(PARENT)
        self.keys("Enter")
        self.assertTrue(wait_until(lambda: self.children()), "the child never started")
        self.type("/stop bg-1")
        self.keys("Enter")
        self.wait_for("Stopped task bg-1")
        self.assertEqual(self.children(), [])
        self.wait_for("PARENT DONE", timeout=30)
        self.quit_and_check_terminal()
        # the model polled it after the stop: it was told, and the end is one event
        body = self.model.bodies()[-1]
        self.assertIn("(stopped)", tool_messages(body)[-1]["content"])
        stops = self.stops()
        self.assertEqual(len(stops), 1, stops)
        self.assertEqual(stops[0]["status"], "stopped")

    def test_ps_lists_a_long_command_and_stop_kills_it(self):
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "sleep 31337", "yield_time_ms": 250}}]},
            {"text": "LEFT IT RUNNING"},
        ])
        self.start("--permission-mode", "auto")
        self.type("run it")
        self.keys("Enter")
        self.wait_for("LEFT IT RUNNING", timeout=30)
        self.assertTrue(wait_until(lambda: ps_lines("sleep 31337")), "the command never ran")
        self.type("/ps")
        self.keys("Enter")
        s = self.wait_for("Commands:")
        self.assertIn("sleep 31337", s)
        self.type("/stop 1000")
        self.keys("Enter")
        self.wait_for("Stopped command 1000")
        self.assertEqual(ps_lines("sleep 31337"), [])
        self.type("/ps")
        self.keys("Enter")
        self.wait_for("Nothing runs in the background.")
        self.quit_and_check_terminal()

    def test_stop_of_nothing_says_so(self):
        self.serve([])
        self.start()
        self.type("/stop bg-9")
        self.keys("Enter")
        self.wait_for('Nothing named "bg-9" runs in the background')
        self.quit_and_check_terminal()


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiAskUser(TuiDriver):
    def test_question_is_shown_inline_and_the_answer_reaches_the_model(self):
        model = self.serve([
            {"tool_calls": [{"name": "ask_user", "arguments": {
                "question": "Which color?", "choices": ["red", "blue"]}}]},
            {"text": "PAINTED"},
        ])
        self.start()
        self.type("paint it")
        self.keys("Enter")
        s = self.wait_for("? Which color?")
        self.assertIn("1. red", s)
        self.assertIn("2. blue", s)
        self.type("2")
        self.keys("Enter")
        self.wait_for("PAINTED", timeout=30)
        self.assertEqual(tool_messages(model.bodies()[-1])[-1]["content"], "blue")
        self.quit_and_check_terminal()

    def test_escape_declines_and_the_model_is_told(self):
        model = self.serve([
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Proceed?"}}]},
            {"text": "ASSUMED"},
        ])
        self.start()
        self.type("go")
        self.keys("Enter")
        self.wait_for("? Proceed?")
        self.keys("Escape")
        self.wait_for("ASSUMED", timeout=30)
        self.assertIn("declined", tool_messages(model.bodies()[-1])[-1]["content"])
        self.quit_and_check_terminal()

    def test_childs_question_reaches_the_parents_user(self):
        os.makedirs(os.path.join(self.work, ".zero", "agents"))
        with open(os.path.join(self.work, ".zero", "agents", "curious.md"), "w") as f:
            f.write("---\nname: curious\ntools: [ask_user]\n---\nAsk when unsure.\n")
        model = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "ask", "prompt": "ask the user", "agent": "curious"}}]},
            {"tool_calls": [{"name": "ask_user", "arguments": {
                "question": "Which colour, child?", "choices": ["red", "blue"]}}]},
            {"text": "child done"},
            {"text": "PARENT DONE"},
        ])
        self.start()
        self.type("delegate")
        self.keys("Enter")
        self.wait_for("? Which colour, child?", timeout=30)
        self.type("green")
        self.keys("Enter")
        self.wait_for("PARENT DONE", timeout=30)
        # the child's next request carries the parent's user's answer
        child_body = model.bodies()[2]
        self.assertEqual(tool_messages(child_body)[-1]["content"], "green")
        self.quit_and_check_terminal()


CURIOUS = "Ask when unsure CURIOUS-9Z."  # only the curious child's requests hold it


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class TuiBackgroundQuestion(BackgroundCase):
    """A background child's ask_user reaches the TUI's user through its
    reader thread (relay.h, off the worker), while no turn runs."""

    def curious(self):
        os.makedirs(os.path.join(self.work, ".zero", "agents"))
        with open(os.path.join(self.work, ".zero", "agents", "curious.md"), "w") as f:
            f.write("---\nname: curious\ntools: [ask_user]\n---\n%s\n" % CURIOUS)

    def start_asking(self, after):
        self.curious()
        model = self.serve([
            {"match": PARENT, "tool_calls": [{"name": "task", "arguments": {
                "description": "ask", "prompt": "ask the user", "agent": "curious",
                "background": True}}]},
            {"match": CURIOUS, "tool_calls": [{"name": "ask_user", "arguments": {
                "question": "Colour for bg?", "choices": ["red", "teal"]}}]},
            {"match": PARENT, "text": "STARTED"},
        ] + after)
        self.start()
        self.type(PARENT)
        self.keys("Enter")
        self.wait_for("STARTED", timeout=30)
        self.wait_for("? Colour for bg?", timeout=30)
        return model

    def test_background_childs_question_is_answered_between_turns(self):
        model = self.start_asking([{"match": CURIOUS, "text": "child done"}])
        self.type("2")
        self.keys("Enter")
        self.wait_for("answer: teal")

        def answered():
            return any(tool_messages(b) and tool_messages(b)[-1]["content"] == "teal"
                       for b in model.bodies())
        self.assertTrue(wait_until(answered), "the child never got the answer")
        self.quit_and_check_terminal()

    def test_stop_withdraws_the_question_of_the_task_it_stops(self):
        model = self.start_asking([{"match": PARENT, "text": "HELLO BACK"}])
        self.type("/stop bg-1")
        self.keys("Enter")
        self.wait_for("Stopped task bg-1")
        self.wait_for("The open question was withdrawn")
        self.assertEqual(self.children(), [])
        # the next message is a prompt again, not an answer
        self.type("hello")
        self.keys("Enter")
        self.wait_for("HELLO BACK", timeout=30)
        self.assertEqual(model.bodies()[-1]["messages"][-1]["content"], "hello")
        self.quit_and_check_terminal()

if __name__ == "__main__":
    main()
