"""The interactive UI end to end: the real binary in a real terminal (tmux),
against the fake model server. Keys go in with send-keys, the screen comes
back with capture-pane."""
import os
import json
import shlex
import signal
import shutil
import subprocess
import sys
import time
import unittest

from harness import ZERO_BIN, ZeroTest, main

TMUX = shutil.which("tmux")
FAKE_MCP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "fake_mcp_server.py")


class TuiDriver(ZeroTest):
    """zero in a tmux pane: start it, send keys, read the screen (no tests
    here, so other files can drive the UI with it)."""

    def setUp(self):
        super().setUp()
        self.sock = os.path.join(self.tmp, "tmux.sock")
        self.started = False

    def tearDown(self):
        if self.started:
            subprocess.run([TMUX, "-S", self.sock, "kill-server"], capture_output=True)
        super().tearDown()

    def tmux(self, *args):
        return subprocess.run([TMUX, "-S", self.sock] + list(args), capture_output=True,
                              text=True, env=self.env)

    def start(self, *zero_args, width=90, height=30, wait=True, job_control=False):
        """Runs zero in a tmux pane inside a shell that records `stty -a`
        before and after, and zero's exit code."""
        script = os.path.join(self.tmp, "run.sh")
        with open(script, "w") as f:
            for k, v in self.env.items():
                f.write("export %s=%s\n" % (k, shlex.quote(v)))
            f.write("cd %s\n" % shlex.quote(self.work))
            if job_control:
                # zero runs as its own job; when it stops, record the terminal
                # settings and bring it back with fg
                f.write("set -m\n")
            f.write("stty -a > %s/stty-before\n" % shlex.quote(self.tmp))
            f.write("%s %s\n" % (shlex.quote(ZERO_BIN), " ".join(shlex.quote(a) for a in zero_args)))
            if job_control:
                f.write("stty -a > %s/stty-suspended\n" % shlex.quote(self.tmp))
                f.write("fg %1\n")
            f.write("echo $? > %s/exit-code\n" % shlex.quote(self.tmp))
            f.write("stty -a > %s/stty-after\n" % shlex.quote(self.tmp))
            f.write("exec sleep 600\n")
        env = dict(self.env, TERM="xterm-256color")
        shell = "bash " if job_control else "sh "
        r = subprocess.run([TMUX, "-S", self.sock, "-f", "/dev/null", "new-session", "-d",
                            "-x", str(width), "-y", str(height), "-s", "t", shell + script],
                           env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.started = True
        self.tmux("set", "-s", "escape-time", "0")
        if wait:
            self.wait_for("Ask anything")

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t", "-S", "-200").stdout

    # 30 s: the suite also runs under ASan on 2 busy cores; a passing wait
    # returns as soon as the text is there, so the bound costs nothing.
    def wait_for(self, text, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.05)
        self.fail("%r did not appear on the screen:\n%s" % (text, self.screen()))

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def quit_and_check_terminal(self):
        self.wait_for("Shift+Tab mode")  # idle: the turn has ended
        self.keys("C-c")
        time.sleep(0.2)
        self.keys("C-c")
        deadline = time.time() + 10
        path = os.path.join(self.tmp, "stty-after")
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.05)
        time.sleep(0.2)
        if not os.path.exists(os.path.join(self.tmp, "exit-code")):
            self.fail("zero did not exit on Ctrl+C twice:\n" + self.screen())
        with open(os.path.join(self.tmp, "exit-code")) as f:
            self.assertEqual(f.read().strip(), "0")
        with open(os.path.join(self.tmp, "stty-before")) as f:
            before = f.read()
        with open(path) as f:
            after = f.read()
        self.assertEqual(before, after, "the terminal settings were not restored")


@unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh installs it)")
class Tui(TuiDriver):
    def test_not_a_tty_points_to_exec(self):
        r = self.zero(input="")
        self.assertEqual(r.returncode, 2)
        self.assertIn("zero exec", r.stderr)
        self.assertIn("terminal", r.stderr)

    def test_prompt_streams_answer_and_exit_restores_terminal(self):
        self.serve([{"text": "Here is **the answer**, streamed in pieces.\n\n- one\n- two",
                         "text_piece": 4, "delay_ms": 10}])
        self.start()
        self.type("hello there")
        self.keys("Enter")
        s = self.wait_for("• two")
        self.assertIn("› hello there", s)
        self.assertIn("Here is the answer, streamed in pieces.", s)
        self.quit_and_check_terminal()
        self.assertIn("Continue it with: zero --resume", self.screen())
        # the session was recorded like zero exec records it
        sid = self.session_ids()[0]
        kinds = [e["type"] for e in self.session_events(sid)]
        self.assertIn("message", kinds)

    def test_approve_a_file_write(self):
        self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "notes.txt", "content": "alpha\nbeta\n"}}]},
            {"text": "Done writing."}])
        self.start()
        self.type("write notes")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        self.assertIn("write_file wants to write notes.txt", s)
        self.assertIn("› 1. Deny", s)  # the safe choice has the focus
        self.keys("y")
        s = self.wait_for("Done writing.")
        self.assertIn("✓ write_file notes.txt", s)
        with open(os.path.join(self.work, "notes.txt")) as f:
            self.assertEqual(f.read(), "alpha\nbeta\n")
        self.quit_and_check_terminal()

    def test_always_allow_saves_the_command_prefix_and_stops_asking(self):
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo first"}}]},
            {"text": "Ran it."},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo second"}}]},
            {"text": "Ran it again."}])
        self.start()
        self.type("say first")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        self.assertIn("› 1. Deny", s)  # the focus stays on the safe choice
        # the prompt names exactly what "always" remembers
        self.assertIn("Always allow (saved): commands starting with `echo first` (p)", s)
        self.keys("p")
        self.wait_for("Ran it.")
        path = os.path.join(self.home, ".config", "zero", "sandbox-grants.json")
        with open(path) as f:
            saved = json.load(f)["grants"]
        self.assertEqual([(g["tool"], g["kind"], g["value"], g["action"]) for g in saved],
                         [("exec_command", "prefix", "echo first", "allow")])
        # /permissions lists it
        self.type("/permissions")
        self.keys("Enter")
        self.wait_for("always  exec_command     prefix echo first")
        # a command outside the prefix still asks
        self.type("say second")
        self.keys("Enter")
        s = self.wait_for("wants to run echo second")
        self.keys("Escape")
        self.wait_for("Ran it again.")
        self.quit_and_check_terminal()
        # saved: a later run (zero exec, which cannot ask) is allowed the prefix
        model = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo first again"}}]},
            {"text": "Allowed by the saved grant."}])
        r = self.zero("exec", "--permission-mode", "ask", "-o", "stream-json", "run it")
        self.assertEqual(r.returncode, 0, r.stderr)
        decisions = [e for e in self.lines(r.stdout) if e.get("type") == "permission_decision"]
        self.assertEqual(decisions[0]["action"], "allow", decisions)
        self.assertIn("first again", model.bodies()[-1]["messages"][-1]["content"])

    def test_always_allow_of_an_mcp_tool_saves_an_mcp_grant(self):
        # MCP tools were offered "once" only; "always" now writes
        # mcp-permissions.json, as `zero mcp grant SERVER TOOL` does.
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp",
                            "fake_mcp_server.py")
        cfg = os.path.join(self.home, ".config", "zero")
        os.makedirs(cfg, exist_ok=True)
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {"g": {"command": "python3",
                                                 "args": [fake, "grows"]}}}}, f)
        self.serve([
            {"tool_calls": [{"name": "mcp_g_grow", "arguments": {}}]},
            {"text": "Grew once."},
            {"tool_calls": [{"name": "mcp_g_grow", "arguments": {}}]},
            {"text": "Grew again."}])
        self.start()
        self.type("grow it")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        self.assertIn("Always allow (saved): every mcp_g_grow call (p)", s)
        self.keys("p")
        self.wait_for("Grew once.")
        with open(os.path.join(cfg, "mcp-permissions.json")) as f:
            self.assertEqual(json.load(f), {"servers": {"g": {"tools": ["grow"]}}})
        sandbox_grants = os.path.join(cfg, "sandbox-grants.json")
        if os.path.exists(sandbox_grants):
            with open(sandbox_grants) as f:
                self.assertNotIn("mcp_g_grow", f.read())
        # the same run does not ask again (a prompt would hold the turn)
        self.type("grow again")
        self.keys("Enter")
        s = self.wait_for("Grew again.")
        self.assertNotIn("Permission needed", s)
        self.quit_and_check_terminal()

    def test_fork_continues_in_a_copy_and_leaves_the_original(self):
        self.serve([{"text": "Original answer."}, {"text": "Answer in the fork."}])
        self.start()
        self.type("first question")
        self.keys("Enter")
        self.wait_for("Original answer.")
        self.type("/fork")
        self.keys("Enter")
        s = self.wait_for("You are in the fork now")
        self.type("second question")
        self.keys("Enter")
        self.wait_for("Answer in the fork.")
        self.quit_and_check_terminal()
        ids = self.session_ids()
        self.assertEqual(len(ids), 2)
        by_kind = {}
        for sid in ids:
            with open(os.path.join(self.sessions_dir(), sid, "metadata.json")) as f:
                by_kind[json.load(f).get("sessionKind") or "main"] = sid
        self.assertIn("fork", by_kind)
        def users(sid):
            return [e["payload"]["content"] for e in self.session_events(sid)
                    if e["type"] == "message" and e["payload"].get("role") == "user"]
        # the original has only the first exchange; the fork has both
        self.assertEqual(users(by_kind["main"]), ["first question"])
        self.assertEqual(users(by_kind["fork"]), ["first question", "second question"])
        self.assertIn(by_kind["fork"], s)
        # the fork's request carried the history
        msgs = self.model.bodies()[-1]["messages"]
        self.assertTrue(any(m.get("content") == "Original answer." for m in msgs))

    def test_rewind_shows_the_files_restores_them_and_cuts_the_conversation(self):
        with open(os.path.join(self.work, "keep.txt"), "w") as f:
            f.write("version one\n")
        self.serve([
            {"text": "Just chatting."},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "keep.txt"}}]},
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "keep.txt", "content": "version two\n",
                                           "overwrite": True}},
                            {"name": "write_file",
                             "arguments": {"path": "new.txt", "content": "fresh\n"}}]},
            {"text": "Changed it."},
            {"text": "Answer after the rewind."}])
        self.start("--permission-mode", "auto")
        self.type("hello")
        self.keys("Enter")
        self.wait_for("Just chatting.")
        self.type("change keep.txt")
        self.keys("Enter")
        self.wait_for("Changed it.")
        with open(os.path.join(self.work, "keep.txt")) as f:
            self.assertEqual(f.read(), "version two\n")
        self.type("/rewind")
        self.keys("Enter")
        s = self.wait_for("Rewind to before")
        self.assertIn(" 2. change keep.txt", s)   # newest first, focused
        self.assertIn(" 1. hello", s)
        self.keys("Enter")
        s = self.wait_for("Rewind?")
        self.assertIn("↺ restore " + os.path.join(self.work, "keep.txt"), s)
        self.assertIn("✗ delete  " + os.path.join(self.work, "new.txt"), s)
        with open(os.path.join(self.work, "keep.txt")) as f:
            self.assertEqual(f.read(), "version two\n")  # the plan changed nothing
        self.keys("Enter")
        s = self.wait_for("Rewound:")
        with open(os.path.join(self.work, "keep.txt")) as f:
            self.assertEqual(f.read(), "version one\n")
        self.assertFalse(os.path.exists(os.path.join(self.work, "new.txt")))
        # the message is back in the composer; send it edited
        self.keys("C-u")
        self.type("say something else")
        self.keys("Enter")
        self.wait_for("Answer after the rewind.")
        self.quit_and_check_terminal()
        sid = self.session_ids()[0]
        users = [e["payload"]["content"] for e in self.session_events(sid)
                 if e["type"] == "message" and e["payload"].get("role") == "user"]
        self.assertEqual(users, ["hello", "say something else"])
        msgs = self.model.bodies()[-1]["messages"]
        self.assertFalse(any("change keep.txt" in (m.get("content") or "") for m in msgs))

    def test_compact_summarizes_now_and_reports_what_it_reclaimed(self):
        self.serve([{"text": "First answer " + "padding " * 200},
                    {"text": "Second answer."},
                    {"text": "SUMMARY: the user asked two questions."},
                    {"text": "After compaction."}])
        self.start()
        self.type("question one")
        self.keys("Enter")
        self.wait_for("padding padding")
        self.type("question two")
        self.keys("Enter")
        self.wait_for("Second answer.")
        self.type("/compact")
        self.keys("Enter")
        s = self.wait_for("Compacted:")
        self.assertRegex(s, r"Compacted: ~\d+ → ~\d+ tokens")
        self.type("question three")
        self.keys("Enter")
        self.wait_for("After compaction.")
        self.quit_and_check_terminal()
        msgs = self.model.bodies()[-1]["messages"]
        text = json.dumps(msgs)
        self.assertIn("SUMMARY: the user asked two questions.", text)
        self.assertNotIn("padding padding", text)
        self.assertIn("question two", text)   # the last exchange is kept
        sid = self.session_ids()[0]
        comp = [e for e in self.session_events(sid) if e["type"] == "session_compaction"]
        self.assertEqual(len(comp), 1)
        self.assertEqual(comp[0]["payload"]["reason"], "manual")

    def test_image_is_attached_to_the_next_message(self):
        png = (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (3).to_bytes(4, "big") +
               (2).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00" + b"\x00" * 20)
        with open(os.path.join(self.work, "shot.png"), "wb") as f:
            f.write(png)
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("not an image\n")
        self.serve([{"text": "I see a tiny image."}])
        self.start()
        self.type("/image notes.txt")
        self.keys("Enter")
        self.wait_for("notes.txt is not a PNG, JPEG, GIF or WebP image")
        self.type("/image shot.png")
        self.keys("Enter")
        s = self.wait_for("Attached shot.png (png, 3×2")
        self.assertIn("▣ image shot.png", s)  # shown above the composer until sent
        self.type("what is this?")
        self.keys("Enter")
        self.wait_for("I see a tiny image.")
        user = self.model.bodies()[-1]["messages"][-1]
        self.assertEqual(user["role"], "user")
        parts = user["content"]
        self.assertEqual(parts[0], {"type": "text", "text": "what is this?"})
        self.assertTrue(parts[1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo"))
        self.assertNotIn("▣ image shot.png", self.screen().split("I see a tiny image.")[-1])
        self.quit_and_check_terminal()
        # recorded with the message, so a resume sends it again
        sid = self.session_ids()[0]
        um = [e for e in self.session_events(sid) if e["type"] == "message"][0]
        self.assertEqual(um["payload"]["images"][0]["media_type"], "image/png")

    def test_image_refused_for_a_model_without_image_input(self):
        self.serve([{"text": "unused"}], model="deepseek-chat")
        with open(os.path.join(self.work, "a.png"), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + b"\x00" * 30)
        self.start()
        self.type("/image a.png")
        self.keys("Enter")
        s = self.wait_for("does not accept images")
        self.assertIn("The model deepseek-chat does not accept images", s)
        self.assertNotIn("▣ image", s)
        self.quit_and_check_terminal()

    def test_model_picker_lists_the_registry_and_switches(self):
        self.serve([{"text": "Hi from the new model."}], model="gpt-4.1")
        self.start()
        self.type("/model")
        self.keys("Enter")
        s = self.wait_for("Switch model")
        self.assertIn("● gpt-4.1", s)      # the current model, first
        self.assertIn("ctx", s)            # registry facts: context window …
        self.assertIn("per 1M", s)         # … and prices
        # the compatible endpoint's own list (GET /v1/models) comes first
        self.assertIn("fake-model                     (not in the registry)", s)
        self.type("4.1-mini")              # filter
        s = self.wait_for("›   gpt-4.1-mini")
        self.keys("Enter")
        self.wait_for("Model is now gpt-4.1-mini")
        self.type("hello")
        self.keys("Enter")
        self.wait_for("Hi from the new model.")
        self.assertEqual(self.model.bodies()[-1]["model"], "gpt-4.1-mini")
        self.quit_and_check_terminal()

    def test_provider_picker_switches_between_configured_profiles(self):
        model = self.serve([{"text": "Answer from beta."}])
        for k in ("OPENAI_BASE_URL", "OPENAI_MODEL"):
            self.env.pop(k, None)
        cfg_dir = os.path.join(self.home, ".config", "zero")
        os.makedirs(cfg_dir, exist_ok=True)
        with open(os.path.join(cfg_dir, "config.json"), "w") as f:
            json.dump({"activeProvider": "alpha", "providers": [
                {"name": "alpha", "provider_kind": "openai-compatible", "baseURL": model.base_url,
                 "apiKeyEnv": "OPENAI_API_KEY", "model": "alpha-model"},
                {"name": "beta", "provider_kind": "openai-compatible", "baseURL": model.base_url,
                 "apiKeyEnv": "OPENAI_API_KEY", "model": "beta-model"}]}, f)
        self.start()
        self.type("/provider")
        self.keys("Enter")
        s = self.wait_for("Switch provider")
        self.assertIn("● alpha", s)
        self.assertIn("beta-model", s)
        self.type("beta")
        self.keys("Enter")
        self.wait_for("Provider is now beta")
        self.type("hi")
        self.keys("Enter")
        self.wait_for("Answer from beta.")
        self.assertEqual(model.bodies()[-1]["model"], "beta-model")
        self.quit_and_check_terminal()

    def test_diff_shows_what_the_tools_changed_this_session(self):
        with open(os.path.join(self.work, "app.txt"), "w") as f:
            f.write("one\ntwo\nthree\n")
        with open(os.path.join(self.work, "untouched.txt"), "w") as f:
            f.write("same\n")
        self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "app.txt"}}]},
            {"tool_calls": [{"name": "edit_file", "arguments": {
                "path": "app.txt", "old_string": "two", "new_string": "TWO"}},
                            {"name": "write_file", "arguments": {"path": "made.txt",
                                                                 "content": "new file\n"}}]},
            {"text": "Edited."}])
        self.start("--permission-mode", "auto")
        self.type("/diff")
        self.keys("Enter")
        self.wait_for("No file changes by the tools in this session.")
        self.type("edit it")
        self.keys("Enter")
        self.wait_for("Edited.")
        self.keys("C-l")
        self.type("/diff")
        self.keys("Enter")
        s = self.wait_for("created made.txt")
        self.assertIn("modified app.txt +1 -1", s)
        self.assertIn("- two", s)
        self.assertIn("+ TWO", s)
        self.assertIn("created made.txt +1 -0", s)
        self.assertNotIn("untouched.txt", s)
        # not a git repository: no git usage text spilled on the screen
        self.assertNotIn("usage: git", s)
        self.quit_and_check_terminal()


    def test_diff_in_a_git_repository_shows_what_commands_changed_too(self):
        """In a git repository /diff adds git's own view (`git diff --stat
        HEAD`, run without a shell, in the workspace), which sees a change
        no tool made."""
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("one\n")
        for args in (["init", "-q"], ["add", "notes.txt"], ["commit", "-qm", "first"]):
            subprocess.run(git + args, cwd=self.work, check=True, capture_output=True)
        with open(os.path.join(self.work, "notes.txt"), "a") as f:
            f.write("two\n")  # as a shell command would
        self.serve([])
        self.start()
        self.type("/diff")
        self.keys("Enter")
        s = self.wait_for("Uncommitted changes")
        self.assertIn("notes.txt | 1 +", self.wait_for("notes.txt |"))
        self.assertIn("No file changes by the tools in this session.", s)
    def test_context_and_usage_report_the_window_tokens_and_cost(self):
        self.serve([{"text": "Short answer."}], model="gpt-4.1")
        self.start()
        self.type("hello")
        self.keys("Enter")
        self.wait_for("Short answer.")
        self.type("/context")
        self.keys("Enter")
        s = self.wait_for("Conversation: 2 messages")
        self.assertIn("Context window of gpt-4.1: 1.0M tokens; compaction starts at 70%.", s)
        self.assertRegex(s, r"Last request: \d+ tokens \(\d+\.\d% of the window\)")
        self.type("/usage")
        self.keys("Enter")
        s = self.wait_for("Estimated cost at gpt-4.1 prices")
        self.assertRegex(s, r"Tokens this session: [1-9]\d* in \(\d+ from cache\) · \d+ out")
        self.quit_and_check_terminal()

    def test_shift_tab_mode_is_what_the_engine_and_mcp_decide_with(self):
        # The permission mode is held in one place (the controller's): the
        # status line shows it, /permissions says it, and each turn's engine
        # decides with it -- built-in tools and MCP tools alike (regression:
        # the MCP manager kept the mode zero started with, so a granted MCP
        # tool still ran after Shift+Tab into read-only plan mode).
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {"fk": {"command": sys.executable,
                                                  "args": [FAKE_MCP, "grows"]}}}}, f)
        self.assertEqual(self.zero("mcp", "grant", "fk").returncode, 0)
        model = self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "auto.txt", "content": "written\n"}}]},
            {"text": "Wrote it without asking."},
            {"tool_calls": [{"name": "mcp_fk_grow", "arguments": {}}]},
            {"text": "Plan turn over."}])
        self.start()
        self.wait_for("ask mode ·")
        # ask -> accept-edits -> auto: a workspace write runs without a prompt
        self.keys("BTab")
        self.wait_for("accept-edits mode ·")
        self.keys("BTab")
        self.wait_for("auto mode ·")
        self.type("write the file")
        self.keys("Enter")
        s = self.wait_for("Wrote it without asking.")
        self.assertNotIn("Permission needed", s)
        with open(os.path.join(self.work, "auto.txt")) as f:
            self.assertEqual(f.read(), "written\n")
        # auto -> plan: the granted MCP tool is refused, it does not run
        self.keys("BTab")
        self.wait_for("plan mode ·")
        self.type("/permissions")
        self.keys("Enter")
        self.wait_for("Permission mode: plan")
        self.type("grow it")
        self.keys("Enter")
        s = self.wait_for("Plan turn over.")
        self.assertNotIn("Permission needed", s)
        tool_msgs = [m for m in model.bodies()[3]["messages"] if m.get("role") == "tool"]
        self.assertIn("plan mode is read-only", tool_msgs[-1]["content"])
        self.assertNotIn("grow ran", tool_msgs[-1]["content"])
        self.quit_and_check_terminal()

    def test_shift_tab_side_panel_and_file_mentions(self):
        os.makedirs(os.path.join(self.work, "src"))
        with open(os.path.join(self.work, "src", "main.c"), "w") as f:
            f.write("int answer = 42;\n")
        model = self.serve([{"text": "It sets answer to 42."}], model="gpt-4.1")
        self.start()
        # Shift+Tab cycles the mode (regression: it crashed when idle)
        self.keys("BTab")
        self.wait_for("accept-edits mode ·")
        self.keys("BTab")
        self.wait_for("auto mode ·")
        self.keys("BTab")
        self.wait_for("plan mode ·")
        self.keys("BTab")
        self.wait_for("ask mode ·")
        # Ctrl+B: the side panel with the context window of the model
        self.keys("C-b")
        s = self.wait_for("Ctrl+B hides")
        self.assertIn("model    gpt-4.1", s)
        self.assertIn("/ 1.0M (0%)", s)
        self.keys("C-b")
        # @path completes from the workspace and the file reaches the model
        self.type("what does @src/ma")
        s = self.wait_for("src/main.c")
        self.keys("Tab")
        self.wait_for("what does @src/main.c")
        self.type("do?")  # completion added the space
        self.keys("Enter")
        self.wait_for("It sets answer to 42.")
        sent = model.bodies()[-1]["messages"][-1]["content"]
        self.assertIn("what does @src/main.c do?", sent)
        self.assertIn("int answer = 42;", sent)
        self.quit_and_check_terminal()

    def test_deny_with_a_note_reaches_the_model(self):
        model = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
            {"text": "Understood."}])
        self.start()
        self.type("write x")
        self.keys("Enter")
        self.wait_for("Permission needed")
        self.keys("d")
        self.type("not that file")
        self.keys("Enter")
        self.wait_for("Understood.")
        self.assertFalse(os.path.exists(os.path.join(self.work, "x.txt")))
        last = model.bodies()[-1]["messages"][-1]
        self.assertEqual(last["role"], "tool")
        self.assertIn("not that file", last["content"])
        self.quit_and_check_terminal()

    def test_escape_cancels_a_turn_and_the_next_one_works(self):
        self.serve([
            {"text": "word " * 400, "text_piece": 5, "delay_ms": 30},
            {"text": "Second answer."},
            {"text": "thing " * 400, "text_piece": 6, "delay_ms": 30},
            {"text": "Third answer."}])
        self.start()
        self.type("long one")
        self.keys("Enter")
        self.wait_for("word word")
        self.keys("Escape")
        self.wait_for("Cancelled")
        self.type("again")
        self.keys("Enter")
        self.wait_for("Second answer.")
        # Ctrl+C cancels a running turn too, and does not exit
        self.type("long two")
        self.keys("Enter")
        self.wait_for("thing thing")
        self.keys("C-c")
        s = self.wait_for("Shift+Tab mode")
        self.assertEqual(s.count("Cancelled"), 2)
        self.type("once more")
        self.keys("Enter")
        self.wait_for("Third answer.")
        self.quit_and_check_terminal()

    def test_message_typed_while_busy_is_queued(self):
        self.serve([
            {"text": "first " * 40, "text_piece": 6, "delay_ms": 25},
            {"text": "Answer to the queued one."}])
        self.start()
        self.type("one")
        self.keys("Enter")
        self.wait_for("first first")
        self.type("queued message")
        self.keys("Enter")
        self.wait_for("queued: queued message")
        self.wait_for("Answer to the queued one.", timeout=30)
        self.quit_and_check_terminal()

    def test_resume_lists_and_reopens_a_session(self):
        self.serve([{"text": "Remember: the code word is heron."}, {"text": "Back again."}])
        r = self.zero("exec", "--session-title", "bird session", "tell me a code word")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.start()
        self.type("/resume")
        self.keys("Enter")
        s = self.wait_for("bird session")
        self.assertIn("Resume a session", s)  # the picker
        self.type("bird")                     # search
        self.keys("Enter")
        s = self.wait_for("Resumed session")
        self.assertIn("code word is heron", s)
        self.type("and now?")
        self.keys("Enter")
        self.wait_for("Back again.")
        self.quit_and_check_terminal()
        # the follow-up went into the same session, with the history replayed
        self.assertEqual(len(self.session_ids()), 1)
        msgs = self.model.bodies()[-1]["messages"]
        self.assertTrue(any("heron" in (m.get("content") or "") for m in msgs))

    def test_btw_runs_aside_and_leaves_the_session_untouched(self):
        self.serve([{"text": "Main answer."}, {"text": "Side answer."},
                    {"text": "Main again."}])
        self.start()
        self.type("main question")
        self.keys("Enter")
        self.wait_for("Main answer.")
        self.wait_for("Shift+Tab mode")  # the turn has ended: /btw needs an idle agent
        sid = self.session_ids()[0]
        recorded = len(self.session_events(sid))
        self.type("/btw what is a side question?")
        self.keys("Enter")
        s = self.wait_for("Side answer.")
        self.assertIn("↳ btw: what is a side question?", s)
        self.wait_for("Ctrl+C returns to the main one")
        self.keys("C-c")
        self.wait_for("Back to the main conversation")
        self.type("main follow-up")
        self.keys("Enter")
        self.wait_for("Main again.")
        bodies = self.model.bodies()
        # the side request saw the main history; the main one never saw the side question
        self.assertTrue(any("main question" in (m.get("content") or "") for m in bodies[1]["messages"]))
        self.assertFalse(any("side question" in (m.get("content") or "") for m in bodies[2]["messages"]))
        events = self.session_events(sid)
        self.assertFalse(any("side question" in json.dumps(e) for e in events))
        self.assertGreater(len(events), recorded)  # the follow-up was recorded
        self.quit_and_check_terminal()

    def test_sigterm_restores_the_terminal(self):
        self.check_signal_restores_the_terminal(signal.SIGTERM)

    def test_sighup_restores_the_terminal(self):
        """A closed terminal window (SIGHUP) takes SIGTERM's path: 130, the
        terminal's settings as they were."""
        self.check_signal_restores_the_terminal(signal.SIGHUP)

    def check_signal_restores_the_terminal(self, sig):
        self.serve([{"text": "slow " * 200, "text_piece": 5, "delay_ms": 40}])
        self.start()
        self.type("go")
        self.keys("Enter")
        self.wait_for("slow slow")
        pid = self.tmux("list-panes", "-t", "t", "-F", "#{pane_pid}").stdout.strip()
        # zero is the shell's child
        child = subprocess.run(["pgrep", "-P", pid, "-x", "zero"], capture_output=True, text=True)
        self.assertTrue(child.stdout.strip(), "zero process not found")
        os.kill(int(child.stdout.split()[0]), sig)
        path = os.path.join(self.tmp, "stty-after")
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.05)
        time.sleep(0.2)
        with open(os.path.join(self.tmp, "exit-code")) as f:
            self.assertEqual(f.read().strip(), "130")
        with open(os.path.join(self.tmp, "stty-before")) as f:
            before = f.read()
        with open(path) as f:
            self.assertEqual(before, f.read())

    def test_resume_flag_reopens_the_latest_session(self):
        self.serve([{"text": "First answer with a marker: kestrel."}, {"text": "Continued."}])
        r = self.zero("exec", "first")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.start("--resume")
        self.wait_for("kestrel")
        self.type("more")
        self.keys("Enter")
        self.wait_for("Continued.")
        self.quit_and_check_terminal()
        self.assertEqual(len(self.session_ids()), 1)

    def test_first_run_wizard_configures_tests_and_saves_a_provider(self):
        model = self.serve([{"text": "OK"}, {"text": "Configured and answering."}])
        url = model.base_url
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.start(wait=False)
        self.wait_for("Choose [1]")
        self.type("3")
        self.keys("Enter")
        self.wait_for("Base URL")
        self.type(url)
        self.keys("Enter")
        self.wait_for("API key")
        self.type("sk-wizard-key-123456")
        self.keys("Enter")
        s = self.wait_for("Model (a number or a name) [fake-model]")
        # the endpoint's models are listed to pick from, with the key sent
        self.assertIn(" 1. fake-model", s)
        get = [r for r in model.requests() if r.get("method") == "GET"][0]
        self.assertEqual(get["path"], "/v1/models")
        self.assertEqual(get["headers"].get("Authorization"), "Bearer sk-wizard-key-123456")
        self.type("1")
        self.keys("Enter")
        self.wait_for("Saved profile")
        self.wait_for("Ask anything")
        self.type("hi")
        self.keys("Enter")
        self.wait_for("Configured and answering.")
        self.quit_and_check_terminal()
        path = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with open(path) as f:
            cfg = json.load(f)
        self.assertEqual(cfg["activeProvider"], "custom")
        self.assertEqual(cfg["providers"][0]["baseURL"], url)
        self.assertEqual(cfg["providers"][0]["model"], "fake-model")
        self.assertEqual(model.bodies()[0]["messages"][-1]["content"], "Reply with the single word OK.")

    def test_ctrl_z_restores_the_terminal_and_fg_resumes(self):
        self.serve([{"text": "Still alive after fg."}])
        self.start(job_control=True)
        self.keys("C-z")
        path = os.path.join(self.tmp, "stty-suspended")
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.05)
        self.assertTrue(os.path.exists(path), "zero did not stop on Ctrl+Z:\n" + self.screen())
        time.sleep(0.2)
        with open(os.path.join(self.tmp, "stty-before")) as f, open(path) as g:
            self.assertEqual(f.read(), g.read(), "the terminal was not restored while suspended")
        time.sleep(0.5)  # fg brings zero back
        self.type("ping")
        self.keys("Enter")
        self.wait_for("Still alive after fg.")
        self.quit_and_check_terminal()

    def test_slash_suggestions_complete_with_tab(self):
        self.serve([])
        self.start()
        self.type("/too")
        s = self.wait_for("tools the model can use")
        self.keys("Tab")
        self.keys("Enter")
        self.wait_for("Tools in ask mode")
        self.quit_and_check_terminal()


    def restart(self, *zero_args, **kw):
        """Ends the tmux session and starts zero again with the same home."""
        self.tmux("kill-server")
        deadline = time.time() + 10
        while time.time() < deadline and self.tmux("has-session").returncode == 0:
            time.sleep(0.05)
        time.sleep(0.2)
        for name in ("exit-code", "stty-before", "stty-after"):
            path = os.path.join(self.tmp, name)
            if os.path.exists(path):
                os.remove(path)
        self.start(*zero_args, **kw)

    def test_provider_error_shows_its_message(self):
        # regression: the error line was "✗ Error:" with the message lost
        self.serve([])
        self.start()
        self.type("hello")
        self.keys("Enter")
        s = self.wait_for("✗ Error: ")
        s = self.wait_for("no scripted turn left")
        self.assertIn("HTTP 500", s)
        self.quit_and_check_terminal()

    def test_history_is_saved_on_the_first_run(self):
        # regression: with no $XDG_DATA_HOME/zero yet the history directory
        # was not created and the first run's history was lost
        self.serve([{"text": "First answer."}])
        self.assertFalse(os.path.exists(os.path.join(self.env["XDG_DATA_HOME"], "zero")))
        self.start()
        self.type("remember this line")
        self.keys("Enter")
        self.wait_for("First answer.")
        self.type("/usage")
        self.keys("Enter")
        self.wait_for("Tokens this session")
        self.quit_and_check_terminal()
        hist = os.path.join(self.env["XDG_DATA_HOME"], "zero", "history")
        files = os.listdir(hist)
        self.assertEqual(len(files), 1)
        self.assertEqual(os.stat(os.path.join(hist, files[0])).st_mode & 0o777, 0o600)
        self.restart()
        self.keys("Up")
        self.wait_for("› /usage")
        self.keys("Up")  # past the /command (regression: its suggestion took Up)
        self.wait_for("› remember this line")
        self.keys("C-u")
        self.quit_and_check_terminal()

    def test_slash_alone_lists_the_commands(self):
        self.serve([])
        self.start()
        self.type("/")
        s = self.wait_for("keys and commands")
        self.assertIn("/model", s)
        self.assertIn("more", s)
        self.keys("Up")  # to the last command
        self.wait_for("› /quit")
        self.keys("C-u")
        self.quit_and_check_terminal()

    def test_large_paste_collapses_and_reaches_the_model_with_newlines(self):
        model = self.serve([{"text": "Got the paste."}])
        self.start()
        text = "\n".join("pasted line %d" % i for i in range(15)) + "\n"
        path = os.path.join(self.tmp, "paste.txt")
        with open(path, "w") as f:
            f.write(text)
        self.tmux("load-buffer", path)
        # tmux sends the line breaks as CR, like most terminals (regression:
        # only LF was counted, so this stayed inline)
        self.tmux("paste-buffer", "-p", "-t", "t")
        s = self.wait_for("[Pasted text #1, 15 lines]")
        self.assertNotIn("pasted line 14", s)
        self.type(" what is this?")
        self.keys("Enter")
        self.wait_for("Got the paste.")
        sent = model.bodies()[-1]["messages"][-1]["content"]
        self.assertIn("pasted line 0\npasted line 1\n", sent)
        self.assertIn("pasted line 14", sent)
        self.assertNotIn("\r", sent)
        self.quit_and_check_terminal()

    def test_add_dir_makes_another_directory_writable(self):
        # regression: /add-dir said so, but the permission engine and the
        # sandbox kept the old roots and refused the write
        extra = os.path.join(self.tmp, "extra")
        os.makedirs(extra)
        self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": os.path.join(extra, "f.txt"), "content": "hi\n"}}]},
            {"text": "Wrote it."},
            {"tool_calls": [{"name": "exec_command",
                             "arguments": {"cmd": "echo sh > " + os.path.join(extra, "g.txt")}}]},
            {"text": "Ran it."}])
        self.start("--permission-mode", "auto")
        self.type("/add-dir ../extra")
        self.keys("Enter")
        self.wait_for("Tools may now also write in " + extra)
        self.type("write there")
        self.keys("Enter")
        self.wait_for("Wrote it.")
        self.type("run there")
        self.keys("Enter")
        self.wait_for("Ran it.")
        with open(os.path.join(extra, "f.txt")) as f:
            self.assertEqual(f.read(), "hi\n")
        with open(os.path.join(extra, "g.txt")) as f:
            self.assertEqual(f.read(), "sh\n")
        self.type("/add-dir nowhere")
        self.keys("Enter")
        self.wait_for("✗ /add-dir: nowhere is not an existing directory")
        self.quit_and_check_terminal()

    def test_add_dir_tells_mcp_servers_the_new_root(self):
        # roots/list kept answering the roots zero started with
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp",
                            "fake_mcp_server.py")
        cfg = os.path.join(self.home, ".config", "zero")
        os.makedirs(cfg, exist_ok=True)
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {"r": {"command": "python3",
                                                 "args": [fake, "roots"]}}}}, f)
        with open(os.path.join(cfg, "mcp-permissions.json"), "w") as f:
            json.dump({"servers": {"r": {"all": True}}}, f)
        extra = os.path.join(self.tmp, "extra")
        os.makedirs(extra)
        model = self.serve([{"tool_calls": [{"name": "mcp_r_roots", "arguments": {}}]},
                            {"text": "Listed the roots."}])
        self.start()
        self.type("/add-dir ../extra")
        self.keys("Enter")
        self.wait_for("Tools may now also write in " + extra)
        time.sleep(0.3)  # the server asks roots/list again on the notification
        self.type("list roots")
        self.keys("Enter")
        self.wait_for("Listed the roots.")
        self.quit_and_check_terminal()
        tool_msgs = [m for m in model.bodies()[1]["messages"] if m.get("role") == "tool"]
        uris = [r["uri"] for r in json.loads(tool_msgs[0]["content"])["roots"]]
        self.assertEqual(uris, ["file://" + os.path.realpath(self.work),
                                "file://" + os.path.realpath(extra)])

    def test_permission_prompt_in_a_narrow_terminal_leaves_no_rows_behind(self):
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo one && ls"}}]},
            {"text": "Ok."}])
        self.start(width=30, height=40)
        self.type("run")
        self.keys("Enter")
        s = self.wait_for("Esc deny")
        self.assertIn("allowed once", s)
        self.keys("C-c")
        s = self.wait_for("Ok.")
        time.sleep(0.3)
        s = self.screen()
        self.assertNotIn("why asking", s)
        self.assertNotIn("Esc deny", s)
        self.keys("C-c")
        time.sleep(0.2)
        self.keys("C-c")
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(os.path.join(self.tmp, "stty-after")):
            time.sleep(0.05)
        time.sleep(0.2)
        with open(os.path.join(self.tmp, "exit-code")) as f:
            self.assertEqual(f.read().strip(), "0")
        with open(os.path.join(self.tmp, "stty-before")) as f, \
                open(os.path.join(self.tmp, "stty-after")) as g:
            self.assertEqual(f.read(), g.read())

    def test_quitting_the_first_run_wizard_says_nothing_was_saved(self):
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.start(wait=False)
        self.wait_for("Choose [1]")
        self.type("q")
        self.keys("Enter")
        self.wait_for("Nothing saved. Run zero again")
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(os.path.join(self.tmp, "exit-code")):
            time.sleep(0.05)
        with open(os.path.join(self.tmp, "exit-code")) as f:
            self.assertEqual(f.read().strip(), "0")
        self.assertFalse(os.path.exists(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json")))

    def test_resume_picker_cuts_wide_titles_by_columns(self):
        self.serve([{"text": "a"}, {"text": "b"}])
        title = "日本語のセッションのタイトルです長い長い長いタイトル"
        r = self.zero("exec", "--session-title", title, "x")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.zero("exec", "--session-title", "short", "y")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.start(width=100)
        self.type("/resume")
        self.keys("Enter")
        s = self.wait_for("Resume a session")
        self.assertNotIn("\ufffd", s)
        jp = [l for l in s.splitlines() if "日本語" in l][0]
        short = [l for l in s.splitlines() if "short" in l and "zero_" in l][0]
        # the date column starts at the same screen column in both rows
        def col(line):
            before = line[:line.index(" 20")]
            return sum(2 if ord(ch) > 0x2e80 else 1 for ch in before)
        self.assertEqual(col(jp), col(short))
        self.keys("Escape")
        deadline = time.time() + 10
        while time.time() < deadline and "Resume a session" in self.screen():
            time.sleep(0.05)
        self.quit_and_check_terminal()

    def test_image_path_as_a_terminal_pastes_a_dropped_file(self):
        # a file dropped on the terminal arrives quoted or with escaped spaces
        png = (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (3).to_bytes(4, "big") +
               (2).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00" + b"\x00" * 20)
        with open(os.path.join(self.work, "my shot.png"), "wb") as f:
            f.write(png)
        self.serve([{"text": "unused"}], model="gpt-4.1")
        self.start()
        for given in ("'%s'" % os.path.join(self.work, "my shot.png"), "my\\ shot.png",
                      "file://" + os.path.join(self.work, "my shot.png")):
            self.type("/image " + given)
            self.keys("Enter")
        self.type("/image clear")
        self.keys("Enter")
        s = self.wait_for("Removed 3 attached images.")
        self.assertNotIn("Cannot attach", s)
        self.quit_and_check_terminal()

    def test_quit_while_streaming_keeps_what_streamed_on_the_screen(self):
        # regression: the unfinished answer was erased with the live region
        self.serve([{"text": "streamed " * 300, "text_piece": 9, "delay_ms": 30}])
        self.start()
        self.type("go")
        self.keys("Enter")
        self.wait_for("streamed streamed")
        self.type("/quit")
        self.keys("Enter")
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(os.path.join(self.tmp, "stty-after")):
            time.sleep(0.05)
        time.sleep(0.2)
        with open(os.path.join(self.tmp, "exit-code")) as f:
            self.assertEqual(f.read().strip(), "0")
        s = self.screen()
        self.assertIn("streamed streamed", s)
        self.assertIn("Cancelled", s)
        self.assertIn("Continue it with: zero --resume", s)
        sid = self.session_ids()[0]
        texts = [e["payload"].get("content") or "" for e in self.session_events(sid)
                 if e["type"] == "message" and e["payload"].get("role") == "assistant"]
        self.assertTrue(texts and texts[-1].startswith("streamed streamed"), texts)

    def test_resumed_session_keeps_its_token_counts(self):
        # regression: /usage and the status line started from 0 after --resume
        self.serve([{"text": "First answer."}, {"text": "Second answer."}], model="gpt-4.1")
        r = self.zero("exec", "first")
        self.assertEqual(r.returncode, 0, r.stderr)
        sid = self.session_ids()[0]
        usage = [e["payload"] for e in self.session_events(sid) if e["type"] == "provider_usage"]
        self.assertTrue(usage)
        prompt = sum(u["promptTokens"] for u in usage)
        self.start("--resume")
        s = self.wait_for("First answer.")
        self.assertNotIn("context 0 ", s)
        self.type("/usage")
        self.keys("Enter")
        s = self.wait_for("Tokens this session:")
        self.assertIn("Tokens this session: %d in" % prompt, s)
        self.type("/new")
        self.keys("Enter")
        self.wait_for("New session")
        self.type("/usage")
        self.keys("Enter")
        s = self.wait_for("Tokens this session: 0 in")
        self.quit_and_check_terminal()

    def test_crash_restores_the_terminal_and_erases_the_live_region(self):
        self.serve([])
        self.start()
        self.type("half-typed message")
        self.wait_for("› half-typed message")
        pid = self.tmux("list-panes", "-t", "t", "-F", "#{pane_pid}").stdout.strip()
        child = subprocess.run(["pgrep", "-P", pid, "-x", "zero"], capture_output=True, text=True)
        os.kill(int(child.stdout.split()[0]), signal.SIGSEGV)
        path = os.path.join(self.tmp, "stty-after")
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.05)
        time.sleep(0.2)
        with open(os.path.join(self.tmp, "exit-code")) as f:
            self.assertEqual(f.read().strip(), str(128 + signal.SIGSEGV))
        with open(os.path.join(self.tmp, "stty-before")) as f, open(path) as g:
            self.assertEqual(f.read(), g.read())
        # regression: the composer and status line stayed, mixed with what
        # the shell printed next
        s = self.screen()
        self.assertNotIn("Shift+Tab mode", s)
        self.assertNotIn("half-typed message", s)

    def test_an_empty_answer_is_said_not_silent(self):
        # regression: a turn with no text and no tool call left nothing at all
        self.serve([{"text": ""}, {"text": "Now with words."}])
        self.start()
        self.type("hello")
        self.keys("Enter")
        self.wait_for("The model sent an empty answer")
        self.type("again")
        self.keys("Enter")
        s = self.wait_for("Now with words.")
        self.assertEqual(s.count("empty answer"), 1)
        self.quit_and_check_terminal()

if __name__ == "__main__":
    main()
