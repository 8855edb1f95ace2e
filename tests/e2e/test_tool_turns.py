"""The new tools inside real agent turns against the fake model: a patch
applied, a long command continued as a session through write_stdin, parallel
read-only calls answered in call order, and a secret redacted before the
model (and the session log) sees it."""
import json
import os
import shutil

from harness import ZeroTest, main


class ToolTurns(ZeroTest):
    def tool_messages(self, body):
        return [x for x in body["messages"] if x["role"] == "tool"]

    def test_patch_then_session_through_write_stdin(self):
        with open(os.path.join(self.work, "app.py"), "w") as f:
            f.write("def main():\n    return 1\n")
        patch = ("*** Begin Patch\n*** Update File: app.py\n def main():\n"
                 "-    return 1\n+    return 2\n*** End Patch\n")
        m = self.serve([
            {"tool_calls": [{"name": "apply_patch", "arguments": {"input": patch}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "echo started; read line; echo got $line", "tty": True,
                "yield_time_ms": 500}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "hello\n", "yield_time_ms": 3000}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "app.py")) as f:
            self.assertEqual(f.read(), "def main():\n    return 2\n")
        bodies = m.bodies()
        self.assertIn("M app.py", self.tool_messages(bodies[1])[-1]["content"])
        running = self.tool_messages(bodies[2])[-1]["content"]
        self.assertIn("started", running)
        self.assertIn("as session 1000", running)
        done = self.tool_messages(bodies[3])[-1]["content"]
        self.assertIn("got hello", done)
        self.assertIn("exit code: 0", done)
        names = {t["function"]["name"] for t in bodies[0]["tools"]}
        self.assertTrue({"apply_patch", "grep", "glob", "write_stdin", "web_fetch",
                         "view_image"} <= names)

    def test_argument_names_other_agents_use_are_accepted(self):
        """Models trained on other agents' tools (and Go zero's) send
        file_path, patch, command, cwd: each reaches the tool."""
        os.makedirs(os.path.join(self.work, "sub"))
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("alpha\n")
        patch = "*** Begin Patch\n*** Add File: b.txt\n+beta\n*** End Patch\n"
        m = self.serve([
            {"tool_calls": [
                {"name": "read_file", "arguments": {"file_path": "a.txt"}},
                {"name": "apply_patch", "arguments": {"patch": patch}},
                {"name": "exec_command", "arguments": {"command": "pwd", "cwd": "sub"}},
            ]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        tools = self.tool_messages(m.bodies()[1])
        self.assertEqual(len(tools), 3)
        self.assertIn("1 | alpha", tools[0]["content"])
        self.assertIn("A b.txt", tools[1]["content"])
        self.assertIn(os.path.join(os.path.realpath(self.work), "sub"), tools[2]["content"])
        self.assertIn("exit code: 0", tools[2]["content"])
        with open(os.path.join(self.work, "b.txt")) as f:
            self.assertEqual(f.read(), "beta\n")

    def test_reads_of_a_resumed_session_count_for_write_file(self):
        """The model read a file in an earlier run of the session: after
        --resume, write_file may replace it, unless it changed since."""
        for name in ("r.txt", "s.txt"):
            with open(os.path.join(self.work, name), "w") as f:
                f.write("orig\n")
        m = self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "r.txt"}},
                            {"name": "read_file", "arguments": {"path": "s.txt"}}]},
            {"text": "read them"},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "r.txt", "content": "new\n", "overwrite": True}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "s.txt", "content": "mine\n", "overwrite": True}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "--permission-mode", "auto", "read")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "s.txt"), "w") as f:
            f.write("edited by the user meanwhile\n")
        r = self.zero("exec", "--permission-mode", "auto", "--resume-latest", "now write")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertIn("Overwrote r.txt", self.tool_messages(bodies[3])[-1]["content"])
        self.assertIn("changed on disk since you read it",
                      self.tool_messages(bodies[4])[-1]["content"])
        with open(os.path.join(self.work, "r.txt")) as f:
            self.assertEqual(f.read(), "new\n")
        with open(os.path.join(self.work, "s.txt")) as f:
            self.assertEqual(f.read(), "edited by the user meanwhile\n")

    def test_freeform_apply_patch_from_the_responses_api(self):
        """A custom (freeform) tool call, Codex's shape for apply_patch: the
        raw input is the patch. It used to be dropped silently."""
        patch = "*** Begin Patch\n*** Add File: free.txt\n+freeform\n*** End Patch\n"
        m = self.serve([
            {"tool_calls": [{"name": "apply_patch", "custom": True, "input": patch}]},
            {"text": "Done."},
        ])
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfg, exist_ok=True)
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"activeProvider": "fake", "providers": [{
                "name": "fake", "provider_kind": "openai-compatible", "wireApi": "responses",
                "baseURL": m.base_url, "apiKey": "sk-test", "model": "fake-model"}]}, f)
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        r = self.zero("exec", "--permission-mode", "auto", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = self.lines(r.stdout)
        calls = [e for e in events if e["type"] == "tool_call"]
        self.assertEqual([c["name"] for c in calls], ["apply_patch"])
        results = [e for e in events if e["type"] == "tool_result"]
        self.assertEqual(results[0]["status"], "ok", results)
        self.assertEqual(events[-2]["text"], "Done.")
        with open(os.path.join(self.work, "free.txt")) as f:
            self.assertEqual(f.read(), "freeform\n")
        self.assertTrue(all(r["path"].endswith("/responses") for r in m.requests()
                            if r["method"] == "POST"))

    def test_python_repl_on_a_terminal_in_auto_mode(self):
        """exec_command with tty: true is how a model drives a REPL; the
        permission engine used to deny it as interactive ("commands get an
        empty stdin"), though write_stdin types into it."""
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "python3 -q", "tty": True, "yield_time_ms": 1500}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "print(6*7)\nexit()\n",
                "yield_time_ms": 5000}}]},
            {"text": "Done."},
        ])
        mode = "auto" if shutil.which("bwrap") else "unsafe"
        r = self.zero("exec", "--permission-mode", mode, "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        started = self.tool_messages(bodies[1])[-1]["content"]
        self.assertIn("as session 1000", started)
        self.assertIn("42", self.tool_messages(bodies[2])[-1]["content"])
        if not shutil.which("bwrap"):
            return  # without a sandbox every command needs approval anyway
        # without a terminal it is still refused, saying how to do it
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "python3"}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "--permission-mode", "auto", "-o", "stream-json", "go")
        refused = self.tool_messages(m.bodies()[1])[-1]["content"]
        self.assertIn("tty: true", refused)

    def test_ctrl_c_interrupts_a_sandboxed_repl(self):
        """^C typed into a command's terminal interrupts the command. Under
        bwrap (--new-session) the terminal used to stay the controlling
        terminal of bwrap's outer session, so ^C killed the whole sandbox and
        the REPL with it; now the inner stage takes the terminal inside."""
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "python3 -q", "tty": True, "yield_time_ms": 1500}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "while True: pass\n", "yield_time_ms": 500}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "\u0003", "yield_time_ms": 1500}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "print(6*7)\nexit()\n",
                "yield_time_ms": 5000}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "--permission-mode", "auto", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertIn("KeyboardInterrupt", self.tool_messages(bodies[3])[-1]["content"])
        after = self.tool_messages(bodies[4])[-1]["content"]
        self.assertIn("42", after)  # the same REPL, still alive after ^C

    def test_parallel_reads_in_order_and_redaction(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("alpha\n")
        with open(os.path.join(self.work, "creds.env"), "w") as f:
            f.write("STRIPE_SECRET=sk_live_abcdefghijklmnop1234\n")
        m = self.serve([
            {"tool_calls": [
                {"name": "read_file", "arguments": {"path": "a.txt"}},
                {"name": "grep", "arguments": {"pattern": "STRIPE", "output_mode": "content"}},
                {"name": "glob", "arguments": {"pattern": "*.txt"}},
            ]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "-o", "stream-json", "look")
        self.assertEqual(r.returncode, 0, r.stderr)
        tools = self.tool_messages(m.bodies()[1])
        self.assertEqual(len(tools), 3)
        self.assertIn("alpha", tools[0]["content"])
        self.assertIn("creds.env:1:STRIPE_SECRET=[REDACTED:", tools[1]["content"])
        self.assertEqual(tools[2]["content"], "a.txt")
        self.assertNotIn("sk_live_abc", r.stdout)
        for sid in self.session_ids():
            self.assertNotIn("sk_live_abc", json.dumps(self.session_events(sid)))


if __name__ == "__main__":
    main()
