"""MCP over Streamable HTTP in `zero exec`: remote servers start in parallel
with stdio ones, --list-tools shows MCP tools, progress notifications become
stream-json "progress" events, and Ctrl-C sends notifications/cancelled over
HTTP (tests/e2e/mcp/fake_http_mcp.py)."""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_HTTP = os.path.join(HERE, "mcp", "fake_http_mcp.py")
FAKE_STDIO = os.path.join(HERE, "mcp", "fake_mcp_server.py")


class HttpMcp(harness.ZeroTest):
    def start_fake(self, *flags):
        self.log = os.path.join(self.tmp, "http-mcp-log.jsonl")
        p = subprocess.Popen([sys.executable, FAKE_HTTP, self.log, *flags],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stdout.close(), p.stderr.close()))
        line = p.stdout.readline()
        if not line.startswith("PORT "):
            self.fail("fake_http_mcp.py did not start: %r %s" % (line, p.stderr.read()))
        self.base = "http://127.0.0.1:%d" % int(line.split()[1])

    def write_config(self, servers):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": servers}}, f)

    def entries(self, event):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [e for e in map(json.loads, filter(str.strip, f)) if e["event"] == event]

    def test_http_servers_start_in_parallel_and_list_tools_shows_them(self):
        # Each initialize answer is held until all three have arrived (10 s at
        # most): one after another, the first would be answered alone.
        self.start_fake("--barrier", "3")
        self.write_config({
            "a": {"type": "http", "url": self.base + "/a"},
            "b": {"type": "http", "url": self.base + "/b"},
            "c": {"type": "http", "url": self.base + "/c"},
            "local": {"command": sys.executable, "args": [FAKE_STDIO, "hang"]},
        })
        r = self.zero("exec", "--list-tools", "-o", "json", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        inits = self.entries("init")
        self.assertEqual(len(inits), 3, inits)
        self.assertTrue(all(e["together"] for e in inits), inits)
        tools = {t["name"]: t for t in json.loads(r.stdout)["tools"]}
        for name in ("mcp_a_steps", "mcp_b_slow", "mcp_c_steps", "mcp_local_hang", "read_file"):
            self.assertIn(name, tools)
        self.assertEqual(tools["mcp_a_steps"]["permission"], "prompt")
        self.assertEqual(tools["mcp_a_steps"]["server"], "a")
        self.assertEqual(tools["mcp_a_steps"]["parameters"]["type"], "object")
        # Text output lists them too.
        r = self.zero("exec", "--list-tools", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  mcp_local_hang [unknown/prompt] - never returns", r.stdout)

    def test_list_tools_reports_a_failing_server_and_goes_on(self):
        self.write_config({"gone": {"command": sys.executable, "args": [FAKE_STDIO, "exit"]}})
        r = self.zero("exec", "--list-tools", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("read_file", r.stdout)
        self.assertIn('MCP server "gone" is unavailable', r.stderr)
        self.assertIn("the API token is missing", r.stderr)

    def test_progress_notifications_become_stream_json_events(self):
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/a"}})
        self.zero("mcp", "grant", "a")
        model = self.serve([{"tool_calls": [{"name": "mcp_a_steps", "arguments": {}}]},
                            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        events = self.lines(r.stdout)
        self.assert_stream_json_valid(events)
        call = [e for e in events if e["type"] == "tool_call"][0]
        prog = [e for e in events if e["type"] == "progress"]
        self.assertEqual([(p["progress"], p["total"], p["message"]) for p in prog],
                         [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")])
        self.assertTrue(all(p["id"] == call["id"] and p["name"] == "mcp_a_steps" for p in prog))
        kinds = [e["type"] for e in events]
        self.assertLess(kinds.index("progress"), kinds.index("tool_result"))
        tool_msgs = [m for m in model.bodies()[1]["messages"] if m.get("role") == "tool"]
        self.assertIn("all 3 steps done", tool_msgs[0]["content"])

    def test_ctrl_c_sends_notifications_cancelled_over_http(self):
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/a"}})
        self.zero("mcp", "grant", "a")
        self.serve([{"tool_calls": [{"name": "mcp_a_slow", "arguments": {}}]}, {"text": "done"}])
        p = self.spawn("exec", "-o", "stream-json", "go")
        deadline = time.time() + 30
        while time.time() < deadline and not self.entries("call"):
            time.sleep(0.05)
        calls = self.entries("call")
        self.assertTrue(calls, "the tool call never reached the server")
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, err)
        cancels = self.entries("cancelled")
        self.assertEqual(len(cancels), 1, cancels)
        self.assertEqual(cancels[0]["requestId"], calls[0]["id"])
        self.assertEqual(cancels[0]["path"], "/a")
        events = self.lines(out)
        self.assertEqual(events[-1]["type"], "run_end")

    def test_timed_out_tool_call_is_cancelled_and_the_session_goes_on(self):
        # timeoutMs applies to tool calls over HTTP too (the POST used to wait
        # for the 60 s default whatever was configured, then the server was
        # dropped for the rest of the run); the server is told with
        # notifications/cancelled, and the next call works.
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/a", "timeoutMs": 1000}})
        self.zero("mcp", "grant", "a")
        model = self.serve([{"tool_calls": [{"name": "mcp_a_slow", "arguments": {}}]},
                            {"tool_calls": [{"name": "mcp_a_steps", "arguments": {}}]},
                            {"text": "done"}])
        started = time.time()
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.time() - started, 20)
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual(results[0]["status"], "error")
        self.assertIn("did not answer tools/call within 1000 ms", results[0]["output"])
        self.assertIn("timeoutMs", results[0]["output"])
        self.assertEqual(results[1]["status"], "ok", results[1])
        self.assertIn("all 3 steps done", results[1]["output"])
        cancels = self.entries("cancelled")
        self.assertEqual([c["reason"] for c in cancels], ["timed out"])
        self.assertEqual(cancels[0]["requestId"], self.entries("call")[0]["id"])

    def test_server_requests_inside_a_post_reply_are_answered_at_once(self):
        # A server may ask (ping, roots/list, elicitation/create …) in the SSE
        # reply to our tools/call and finish only when answered. The answers
        # waited in a queue until that POST ended, so both sides waited until
        # the server gave up.
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/a"}})
        started = time.time()
        r = self.zero("mcp", "call", "a", "asks", "{}", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.time() - started, 8)
        ping, roots = json.loads(r.stdout)
        self.assertEqual(ping, {"jsonrpc": "2.0", "id": "ask-ping-%d" % self.entries("call")[0]["id"],
                                "result": {}})
        self.assertEqual(roots["result"]["roots"][0]["uri"], "file://" + self.work)

    def test_sampling_inside_a_post_reply_is_answered_by_the_run_model(self):
        # sampling/createMessage arrives in the SSE reply to tools/call; the
        # run's provider answers it while that reply is still open.
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/a"}})
        self.zero("mcp", "grant", "a")
        model = self.serve([{"tool_calls": [{"name": "mcp_a_samples", "arguments": {}}]},
                            {"text": "an HTTP summary"},
                            {"text": "done"}])
        r = self.zero("exec", "--skip-permissions-unsafe", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = model.bodies()
        self.assertEqual(bodies[1]["messages"], [{"role": "user", "content": "summarize over HTTP"}])
        answer = self.entries("answer")[0]["message"]
        self.assertEqual(answer["result"]["content"], {"type": "text", "text": "an HTTP summary"})
        tool_msg = [m for m in bodies[2]["messages"] if m.get("role") == "tool"][0]
        self.assertIn("an HTTP summary", tool_msg["content"])

    def test_list_changed_on_the_event_stream_refreshes_the_tools(self):
        # notifications/tools/list_changed on the GET stream was queued but
        # never taken in: the new tool never reached the model.
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/live"}})
        self.zero("mcp", "grant", "a")
        model = self.serve([{"tool_calls": [{"name": "mcp_a_grow", "arguments": {}}]},
                            {"tool_calls": [{"name": "mcp_a_grown", "arguments": {}}]},
                            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.entries("stream"), "zero never opened the event stream")
        names = [[t["function"]["name"] for t in b["tools"]] for b in model.bodies()]
        self.assertNotIn("mcp_a_grown", names[0])
        self.assertIn("mcp_a_grown", names[1])
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual(results[1]["output"], "grown ran")

    def test_event_stream_closed_by_the_server_is_reopened_with_last_event_id(self):
        # The server closes its GET stream after one event (id ev-1); zero
        # used to leave it closed, so list_changed sent later was never seen.
        self.start_fake()
        self.env["ZERO_MCP_STREAM_RETRY_MS"] = "50"
        self.write_config({"a": {"type": "http", "url": self.base + "/resume"}})
        self.zero("mcp", "grant", "a")
        model = self.serve([{"tool_calls": [{"name": "mcp_a_nap", "arguments": {}}]},
                            {"tool_calls": [{"name": "mcp_a_grow", "arguments": {}}]},
                            {"tool_calls": [{"name": "mcp_a_grown", "arguments": {}}]},
                            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        streams = self.entries("stream")
        self.assertGreaterEqual(len(streams), 2, "the closed event stream was not reopened")
        self.assertIsNone(streams[0]["lastEventId"])
        self.assertEqual(streams[1]["lastEventId"], "ev-1")
        names = [[t["function"]["name"] for t in b["tools"]] for b in model.bodies()]
        self.assertIn("mcp_a_grown", names[2])
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual(results[2]["output"], "grown ran")

    def test_reopening_a_dead_event_stream_is_bounded(self):
        # A server whose stream always closes at once, empty: zero tries a
        # few times with growing pauses, then gives up; the run goes on.
        self.start_fake()
        self.env["ZERO_MCP_STREAM_RETRY_MS"] = "20"
        self.write_config({"a": {"type": "http", "url": self.base + "/dead"}})
        self.zero("mcp", "grant", "a")
        self.serve([{"tool_calls": [{"name": "mcp_a_nap", "arguments": {}}]},
                    {"tool_calls": [{"name": "mcp_a_nap", "arguments": {}}]},
                    {"text": "done"}])
        started = time.monotonic()
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(time.monotonic() - started, 2.5)
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual([e["output"] for e in results], ["rested", "rested"])
        # 1 + 5 attempts (pauses 20, 40, 80, 160, 320 ms: done well within the run)
        self.assertEqual(len(self.entries("stream")), 6)

    def test_reply_closed_before_the_answer_is_resumed_with_last_event_id(self):
        # MCP 2025-11-25: a server may end a request's SSE reply early (after
        # events with ids) and send the answer on a GET with Last-Event-ID.
        # zero waited for the timeout, then dropped the server.
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/poll"}})
        r = self.zero("mcp", "call", "a", "polled", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("polled done", r.stdout)
        resumed = [e for e in self.entries("stream") if e["lastEventId"]]
        self.assertEqual([e["lastEventId"] for e in resumed], ["p-2"])

    def test_forgotten_session_is_started_again(self):
        # The spec: a 404 to a request carrying Mcp-Session-Id means the
        # session is gone and the client MUST start a new one. zero used to
        # give up on the server for the rest of the run.
        self.start_fake()
        self.write_config({"a": {"type": "http", "url": self.base + "/expire"}})
        self.zero("mcp", "grant", "a")
        self.serve([{"tool_calls": [{"name": "mcp_a_forget", "arguments": {}}]},
                    {"tool_calls": [{"name": "mcp_a_steps", "arguments": {}}]},
                    {"tool_calls": [{"name": "mcp_a_steps", "arguments": {}}]},
                    {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual([e["status"] for e in results], ["ok", "ok", "ok"], results)
        self.assertIn("all 3 steps done", results[1]["output"])
        self.assertEqual(len(self.entries("init")), 2)
        self.assertEqual([e["method"] for e in self.entries("expired")], ["tools/call"])

    def test_startup_timeout_bounds_an_http_initialize(self):
        # startupTimeoutMs bounds start-up over HTTP too: the initialize POST
        # used to wait for the 60 s request timeout.
        self.start_fake()
        self.write_config({"m": {"type": "http", "url": self.base + "/mute",
                                 "startupTimeoutMs": 800}})
        started = time.time()
        r = self.zero("mcp", "tools", "m", timeout=60)
        self.assertLess(time.time() - started, 15)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn('did not answer initialize within 800 ms; raise "startupTimeoutMs"', r.stderr)
        self.assertEqual(self.entries("cancelled"), [])  # initialize is never cancelled


if __name__ == "__main__":
    harness.main()
