"""The hook events fired outside a tool call's gate (issue 16): afterToolBatch
(once per assistant message, every call with how it ended), beforeCompact /
afterCompact (around a compaction, with its trigger and token counts),
notification (a permission prompt) and subagentStop (a `task` child's end).

Each test registers a recorder hook (it appends its stdin to a file in the
workspace: hooks run sandboxed, the workspace is writable) for the events it
names only, runs zero exec against the fake model server and asserts the
recorded payloads."""
import json
import os
import signal
import subprocess

from harness import ZERO_BIN, ZeroTest, main
from test_compaction import LIMIT, WINDOW, big_file, read_turn

RECORDER = "cat >> hook-events.jsonl; echo >> hook-events.jsonl"


class HookBase(ZeroTest):
    def record(self, *events):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"id": "rec-" + e, "event": e, "command": "/bin/sh",
                                  "args": ["-c", RECORDER]} for e in events]}, f)

    def recorded(self, event=None):
        path = os.path.join(self.work, "hook-events.jsonl")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            evs = [json.loads(l) for l in f if l.strip()]
        return [e for e in evs if event is None or e["event"] == event]

    def assert_common(self, p):
        self.assertEqual(p["cwd"], os.path.realpath(self.work))
        self.assertEqual(p["hook_event_name"], p["event"])
        self.assertTrue(p["sessionId"])


class HookEvents(HookBase):
    def test_after_tool_batch_fires_once_per_message_with_every_call(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("alpha\n")
        self.record("afterToolBatch")
        self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}},
                            {"name": "read_file", "arguments": {"path": "missing.txt"}},
                            {"name": "write_file", "arguments": {"path": "b.txt",
                                                                  "content": "b"}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "b.txt"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        batches = self.recorded("afterToolBatch")
        self.assertEqual(len(batches), 2, batches)
        self.assert_common(batches[0])
        calls = batches[0]["toolCalls"]
        self.assertEqual([c["toolName"] for c in calls], ["read_file", "read_file", "write_file"])
        self.assertEqual([c["ok"] for c in calls], [True, False, True])
        self.assertEqual(calls[0]["toolInput"], {"path": "a.txt"})
        self.assertTrue(all(c["id"] for c in calls))
        self.assertEqual(len(batches[1]["toolCalls"]), 1)
        # the batch's hook ran after every call of it: b.txt existed by then
        hooks = [e for e in self.lines(r.stdout) if e["type"] == "hook"]
        self.assertEqual([h["event"] for h in hooks], ["afterToolBatch"] * 2)

    def test_before_and_after_compact_fire_around_a_compaction(self):
        for i in range(4):
            with open(os.path.join(self.work, "f%d.txt" % i), "w") as f:
                f.write(big_file(i))
        self.env["ZERO_CONTEXT_WINDOW"] = str(WINDOW)
        self.env["ZERO_COMPACTION_MODEL"] = "cheap-model"
        self.record("beforeCompact", "afterCompact")
        self.serve([read_turn(0), read_turn(1), read_turn(2),
                    {"text": "summary one: read f0 to f2"},
                    read_turn(3), {"text": "finished"}], model="main-model")
        r = self.zero("exec", "-o", "stream-json", "read the files")
        self.assertEqual(r.returncode, 0, r.stderr)
        before, after = self.recorded("beforeCompact"), self.recorded("afterCompact")
        self.assertEqual(len(before), 1, self.recorded())
        self.assertEqual(len(after), 1, self.recorded())
        self.assert_common(before[0])
        self.assertEqual(before[0]["trigger"], "auto")
        self.assertEqual(before[0]["reason"], "threshold")
        self.assertGreater(before[0]["tokensEstimate"], LIMIT)
        self.assertEqual(before[0]["contextWindow"], WINDOW)
        self.assertEqual(after[0]["method"], "summary")
        self.assertEqual(after[0]["tokensBefore"], before[0]["tokensEstimate"])
        self.assertLess(after[0]["tokensAfter"], LIMIT)
        # order on the host: before, then after
        self.assertEqual([e["event"] for e in self.recorded()], ["beforeCompact", "afterCompact"])

    def test_notification_fires_on_a_permission_prompt(self):
        self.record("notification")
        self.serve([{"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt",
                                                                          "content": "x"}}]},
                    {"text": "done"}])
        r = self.zero("exec", "--permission-mode", "ask", "write it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "n.txt")))  # headless: denied
        notes = self.recorded("notification")
        self.assertEqual(len(notes), 1, notes)
        self.assert_common(notes[0])
        self.assertEqual(notes[0]["notificationType"], "permission_prompt")
        self.assertEqual(notes[0]["toolName"], "write_file")
        self.assertIn("permission to use write_file", notes[0]["message"])

    def test_no_notification_without_a_prompt(self):
        self.record("notification")
        self.serve([{"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt",
                                                                          "content": "x"}}]},
                    {"text": "done"}])
        r = self.zero("exec", "write it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.work, "n.txt")))
        self.assertEqual(self.recorded(), [])

    def test_subagent_stop_fires_when_a_task_child_ends(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("hello world\n")
        self.record("subagentStop")
        self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "find a", "prompt": "What does a.txt say?", "agent": "explore"}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
            {"text": "CHILD ANSWER: hello world"},
            {"text": "Parent done."},
        ])
        r = self.zero("exec", "-o", "stream-json", "delegate it")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        stops = self.recorded("subagentStop")
        self.assertEqual(len(stops), 1, stops)
        self.assert_common(stops[0])
        self.assertEqual(stops[0]["agent"], "explore")
        self.assertEqual(stops[0]["status"], "success")
        self.assertEqual(stops[0]["exitCode"], 0)
        end = [e for e in self.lines(r.stdout) if e["type"] == "subagent_end"]
        self.assertEqual(stops[0]["subagentSessionId"], end[0]["childSessionId"])
        self.assertNotEqual(stops[0]["subagentSessionId"], stops[0]["sessionId"])

    def test_subagent_stop_fires_for_a_background_task_never_polled(self):
        # The child is still working when the parent gives its final answer:
        # the run's end stops it and reports its end, once, which fires the
        # hook (before, a background child's end went unreported unless the
        # model polled it with task_output).
        parent = "PARENT-PROMPT-BG-5K"
        self.record("subagentStop", "sessionEnd")
        self.serve([
            {"match": parent, "tool_calls": [{"name": "task", "arguments": {
                "description": "slow", "prompt": "p", "agent": "explore",
                "background": True}}]},
            {"match": "the explore sub-agent", "text": "late", "delay_before_ms": 60000},
            {"match": parent, "text": "Parent done."},
        ])
        r = self.zero("exec", "-o", "stream-json", parent)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        stops = self.recorded("subagentStop")
        self.assertEqual(len(stops), 1, self.recorded())
        self.assert_common(stops[0])
        self.assertEqual(stops[0]["agent"], "explore")
        self.assertEqual(stops[0]["status"], "stopped")
        end = [e for e in self.lines(r.stdout) if e["type"] == "subagent_end"]
        self.assertEqual(len(end), 1, end)
        self.assertEqual(stops[0]["subagentSessionId"], end[0]["childSessionId"])
        # the sub-agent's end comes before the session's. The child is an
        # ordinary zero exec with the same hooks: when it got far enough to
        # start before being stopped, its own sessionEnd is recorded too,
        # under its own session id (seen under ASan).
        parent_id = stops[0]["sessionId"]
        self.assertEqual([e["event"] for e in self.recorded() if e["sessionId"] == parent_id],
                         ["subagentStop", "sessionEnd"])
        child = [e for e in self.recorded() if e["sessionId"] != parent_id]
        self.assertTrue(all(e["event"] == "sessionEnd" and
                            e["sessionId"] == stops[0]["subagentSessionId"] for e in child),
                        child)


class HookRunner(HookBase):
    def test_a_run_starts_one_sandbox_for_all_its_hooks(self):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        probe = ("cat >/dev/null; echo \"$PPID $(tr '\\0' ' ' < /proc/$PPID/cmdline)\" "
                 ">> parents.txt")
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"event": e, "command": "/bin/sh", "args": ["-c", probe]}
                                 for e in ("sessionStart", "beforeTool", "afterTool")]}, f)
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "p.txt"}}]},
                    {"text": "done"}])
        with open(os.path.join(self.work, "p.txt"), "w") as f:
            f.write("x\n")
        r = self.zero("exec", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "parents.txt")) as f:
            parents = [l.split(" ", 1) for l in f.read().splitlines()]
        self.assertEqual(len(parents), 3, parents)
        self.assertEqual(len({p[0] for p in parents}), 1, parents)  # one runner
        self.assertIn("__hook-runner", parents[0][1])
        # without it (the fallback), each hook has a sandbox of its own
        os.unlink(os.path.join(self.work, "parents.txt"))
        self.env["ZERO_HOOK_RUNNER"] = "off"
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "p.txt"}}]},
                    {"text": "done"}])
        r = self.zero("exec", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "parents.txt")) as f:
            parents = [l.split(" ", 1) for l in f.read().splitlines()]
        self.assertEqual(len(parents), 3, parents)
        self.assertNotIn("__hook-runner", " ".join(p[1] for p in parents))

    def test_a_hook_reads_its_whole_payload_small_or_larger_than_a_pipe(self):
        # The runner writes a payload that fits the pipe before the hook
        # starts, and a larger one as the hook reads: both arrive whole,
        # with EOF after, and a hook that never reads its stdin still ends.
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"id": "deaf", "event": "beforeTool", "command": "/bin/true",
                                  "args": []},
                                 {"id": "rec", "event": "beforeTool", "command": "/bin/sh",
                                  "args": ["-c", RECORDER]}]}, f)
        big = "".join("line %06d of a payload larger than a pipe\n" % i for i in range(6000))
        self.assertGreater(len(big), 4 * 65536)
        self.serve([{"tool_calls": [{"name": "write_file", "arguments": {
                        "path": "small.txt", "content": "tiny\n"}}]},
                    {"tool_calls": [{"name": "write_file", "arguments": {
                        "path": "big.txt", "content": big}}], "args_fragment": 1 << 20},
                    {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        hooks = [e for e in self.lines(r.stdout) if e["type"] == "hook"]
        self.assertEqual([h["decision"] for h in hooks], ["allow"] * 4, hooks)
        got = [e["toolInput"]["content"] for e in self.recorded("beforeTool")]
        self.assertEqual(got, ["tiny\n", big])
        with open(os.path.join(self.work, "big.txt")) as f:
            self.assertEqual(f.read(), big)

    def test_a_hook_gets_its_payload_byte_for_byte(self):
        # The runner passes the payload through as bytes (no JSON string
        # round trip on the way): one JSON object, then one newline, the
        # awkward characters intact.
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"event": "beforeTool", "command": "/bin/sh",
                                  "args": ["-c", "cat > stdin.bin"]}]}, f)
        content = 'quote " backslash \\ tab \t nl \n é ✓ \u2028 end\n'
        self.serve([{"tool_calls": [{"name": "write_file", "arguments": {
                        "path": "odd.txt", "content": content}}]},
                    {"text": "done"}])
        r = self.zero("exec", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "stdin.bin"), "rb") as f:
            raw = f.read()
        self.assertTrue(raw.startswith(b"{") and raw.endswith(b"}\n"), raw[-40:])
        self.assertEqual(raw.count(b"\n"), 1, raw)  # the JSON is compact: one line
        self.assertEqual(json.loads(raw)["toolInput"]["content"], content)

    def test_a_hook_starts_with_default_signal_dispositions(self):
        # What zero's parent ignored (here SIGINT, SIGQUIT, SIGUSR2, SIGPIPE)
        # and what the runner ignores (SIGPIPE) is not ignored in the hook,
        # and nothing is blocked: the runner resets every disposition when it
        # starts a command (a guard for whoever narrows that set to save the
        # child's sigaction calls).
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        probe = "exec grep -E '^Sig(Ign|Blk)' /proc/self/status > sig.txt"
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"event": "beforeTool", "command": "/bin/sh",
                                  "args": ["-c", probe]}]}, f)
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "p.txt"}}]},
                    {"text": "done"}])
        with open(os.path.join(self.work, "p.txt"), "w") as f:
            f.write("x\n")

        def ignore_some():
            for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGUSR2, signal.SIGPIPE):
                signal.signal(sig, signal.SIG_IGN)

        r = subprocess.run([ZERO_BIN, "exec", "go"], cwd=self.work, env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                           preexec_fn=ignore_some)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "sig.txt")) as f:
            masks = dict(l.split(":") for l in f.read().splitlines())
        # signals 1-31; glibc's posix_spawn leaves its two internal ones (32,
        # 33) ignored in whatever it starts, and the program's libc takes
        # them back
        self.assertEqual(int(masks["SigIgn"], 16) & 0x7FFFFFFF, 0, masks)
        self.assertEqual(int(masks["SigBlk"], 16), 0, masks)

    def test_a_hook_runs_on_every_cpu_zero_may_use(self):
        # The runner starts each command on its own CPU (no idle CPU woken)
        # and the command puts the whole set back before its exec: a hook
        # reading its CPU set first thing (dd, exec'd directly) sees zero's.
        with open("/proc/self/status") as f:
            mine = [l for l in f if l.startswith("Cpus_allowed_list")]
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("one CPU: nothing is pinned")
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"event": "beforeTool", "command": "/bin/dd", "args": [
                "if=/proc/self/status", "of=status.txt", "oflag=append", "conv=notrunc",
                "status=none"]}]}, f)
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "p%d.txt" % i}}]}
                    for i in range(10)] + [{"text": "done"}])
        for i in range(10):
            with open(os.path.join(self.work, "p%d.txt" % i), "w") as f:
                f.write("x\n")
        r = self.zero("exec", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "status.txt")) as f:
            seen = [l for l in f if l.startswith("Cpus_allowed_list")]
        self.assertEqual(seen, mine * 10)

    def test_a_missing_hook_command_fails_closed_in_the_runner(self):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"id": "gone", "event": "beforeTool",
                                  "command": "/nonexistent/guard", "args": []}]}, f)
        m = self.serve([{"tool_calls": [{"name": "write_file", "arguments": {
            "path": "w.txt", "content": "x"}}]}, {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "w.txt")))
        hook = [e for e in self.lines(r.stdout) if e["type"] == "hook"][0]
        self.assertEqual(hook["decision"], "failed_closed")
        self.assertIn("could not start", hook["reason"])
        self.assertIn("/nonexistent/guard", hook["reason"])
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("could not start", tool["content"])


if __name__ == "__main__":
    main()
