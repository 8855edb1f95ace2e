"""zero exec end to end: the real binary against the loopback fake model
server speaking the Chat Completions streaming protocol."""
import json
import os
import signal
import time

from harness import ZeroTest, main


class PlainAnswer(ZeroTest):
    def test_text_answer_goes_to_stdout(self):
        m = self.serve([{"text": "Hello from the model.", "usage": {"prompt_tokens": 11, "completion_tokens": 5}}])
        r = self.zero("exec", "say hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "Hello from the model.\n")
        body = m.bodies()[0]
        self.assertEqual(body["model"], "test-model")
        self.assertTrue(body["stream"])
        self.assertEqual(body["stream_options"], {"include_usage": True})
        self.assertEqual(body["messages"][0]["role"], "system")
        self.assertEqual(body["messages"][-1], {"role": "user", "content": "say hello"})
        auth = m.requests()[0]["headers"].get("Authorization") or m.requests()[0]["headers"].get("authorization")
        self.assertEqual(auth, "Bearer sk-test-key-for-fake-server")

    def test_stream_json_schema_v2(self):
        self.serve([{"text": "Hi there", "reasoning": "thinking hard", "chunk_size": 3,
                     "usage": {"prompt_tokens": 7, "completion_tokens": 2}}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        types = [e["type"] for e in evs]
        self.assertEqual(types[0], "run_start")
        self.assertTrue(evs[0]["runId"].startswith("run_"))
        for key in ("sessionId", "cwd", "provider", "model", "apiModel"):
            self.assertIn(key, evs[0])
        self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "text"), "Hi there")
        self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "reasoning"), "thinking hard")
        usage = [e for e in evs if e["type"] == "usage"][0]
        self.assertEqual((usage["promptTokens"], usage["completionTokens"], usage["totalTokens"]), (7, 2, 9))
        final = [e for e in evs if e["type"] == "final"][0]
        self.assertEqual(final["text"], "Hi there")
        self.assertEqual(evs[-1]["status"], "success")
        self.assertEqual(evs[-1]["exitCode"], 0)

    def test_json_output_is_one_object(self):
        self.serve([{"text": "The answer is 42."}])
        r = self.zero("exec", "-o", "json", "question")
        self.assertEqual(r.returncode, 0, r.stderr)
        obj = json.loads(r.stdout)
        self.assertEqual(obj["type"], "result")
        self.assertEqual(obj["status"], "success")
        self.assertEqual(obj["exitCode"], 0)
        self.assertEqual(obj["text"], "The answer is 42.")
        self.assertIn(obj["sessionId"], self.session_ids())

    def test_stream_json_input(self):
        m = self.serve([{"text": "a.txt b.txt"}])
        stdin = ('{"schemaVersion":2,"type":"prompt","content":"list the files"}\n'
                 '{"schemaVersion":2,"type":"message","role":"user","content":"briefly"}\n')
        r = self.zero("exec", "-i", "stream-json", "-o", "json", input=stdin)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["text"], "a.txt b.txt")
        self.assertEqual(m.bodies()[0]["messages"][-1]["content"], "list the files\n\nbriefly")

    def test_stream_json_input_rejects_unknown_field(self):
        self.serve([{"text": "never"}])
        stdin = '{"schemaVersion":2,"type":"prompt","content":"x","extra":1}\n'
        r = self.zero("exec", "-i", "stream-json", "-o", "stream-json", input=stdin)
        self.assertEqual(r.returncode, 2)
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        self.assertEqual(evs[0]["type"], "error")
        self.assertIn("unknown field extra", evs[0]["message"])
        self.assertIn("line 1", evs[0]["message"])
        self.assertEqual(evs[-1]["exitCode"], 2)
        self.assertEqual(self.model.bodies(), [])


class ToolRoundTrip(ZeroTest):
    def test_second_request_carries_tool_result(self):
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("alpha\nbeta\n")
        m = self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"text": "The file has two lines."},
        ])
        r = self.zero("exec", "-o", "stream-json", "what is in notes.txt?")
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        call = [e for e in evs if e["type"] == "tool_call"][0]
        self.assertEqual(call["name"], "read_file")
        self.assertEqual(call["args"], {"path": "notes.txt"})
        self.assertEqual(call["sideEffect"], "read")
        res = [e for e in evs if e["type"] == "tool_result"][0]
        self.assertEqual(res["id"], call["id"])
        self.assertEqual(res["status"], "ok")
        self.assertIn("beta", res["output"])
        bodies = m.bodies()
        self.assertEqual(len(bodies), 2)
        msgs = bodies[1]["messages"]
        asst = [x for x in msgs if x["role"] == "assistant"][-1]
        self.assertEqual(asst["tool_calls"][0]["id"], call["id"])
        self.assertEqual(asst["tool_calls"][0]["function"]["name"], "read_file")
        tool = [x for x in msgs if x["role"] == "tool"][-1]
        self.assertEqual(tool["tool_call_id"], call["id"])
        self.assertIn("alpha", tool["content"])
        names = {t["function"]["name"] for t in bodies[0]["tools"]}
        self.assertTrue({"read_file", "list_directory", "write_file", "edit_file",
                         "exec_command", "update_plan"} <= names)

    def test_write_then_read_a_file(self):
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "src/hello.txt", "content": "hello world\n"}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "src/hello.txt"}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "create hello.txt")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "src", "hello.txt")) as f:
            self.assertEqual(f.read(), "hello world\n")
        tool_msgs = [x for x in m.bodies()[2]["messages"] if x["role"] == "tool"]
        self.assertIn("hello world", tool_msgs[-1]["content"])
        self.assertIn("[tool] write_file", r.stderr)

    def test_malformed_tool_arguments_go_back_to_the_model(self):
        m = self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": "{\"path\": \"x.txt\""}]},
            {"text": "Sorry."},
        ])
        r = self.zero("exec", "-o", "stream-json", "read x")
        self.assertEqual(r.returncode, 0, r.stderr)
        res = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"][0]
        self.assertEqual(res["status"], "error")
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("invalid arguments", tool["content"])

    def test_exec_command_denied_without_sandbox_or_high_autonomy(self):
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "touch pwned"}}]},
            {"text": "ok"},
        ])
        self.env["ZERO_SANDBOX_FORCE_BACKEND"] = "none"  # a machine without any sandbox
        r = self.zero("exec", "-o", "stream-json", "run it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "pwned")))
        evs = self.lines(r.stdout)
        dec = [e for e in evs if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["action"], "deny")
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("--auto high", tool["content"])

    def test_exec_command_runs_with_auto_high_and_caps_huge_output(self):
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "yes abcdefghijklmnopqrstuvwxyz | head -c 50000000; echo tail-marker"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "--auto", "high", "-o", "stream-json", "make noise", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertLess(len(tool["content"]), 400 * 1024)
        self.assertIn("tail-marker", tool["content"])
        res = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"][0]
        self.assertTrue(res["truncated"])

    def test_plan_mode_offers_only_read_only_tools(self):
        m = self.serve([{"text": "plan"}])
        r = self.zero("exec", "--permission-mode", "plan", "plan it")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = {t["function"]["name"] for t in m.bodies()[0]["tools"]}
        self.assertNotIn("write_file", names)
        self.assertNotIn("exec_command", names)
        self.assertIn("read_file", names)


class ProviderFaults(ZeroTest):
    def test_401_exits_3_naming_provider_and_key(self):
        self.serve([{"status": 401, "error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}])
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("openai", r.stderr)
        self.assertIn("OPENAI_API_KEY", r.stderr)

    def test_429_with_retry_after_is_retried(self):
        m = self.serve([{"status": 429, "retry_after": 1}, {"text": "after the wait"}])
        t0 = time.monotonic()
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreaterEqual(time.monotonic() - t0, 0.9)
        self.assertEqual(len(m.bodies()), 2)
        evs = self.lines(r.stdout)
        self.assertTrue(any(e["type"] == "warning" for e in evs))
        self.assertEqual([e for e in evs if e["type"] == "final"][0]["text"], "after the wait")

    def test_stream_cut_in_the_middle(self):
        self.serve([{"text": "This answer will be cut somewhere in the middle of the stream " * 3,
                     "chunk_size": 10, "cut_after_bytes": 1500}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        self.assertTrue(any(e["type"] == "text" for e in evs), "the cut must come after visible text")
        err = [e for e in evs if e["type"] == "error"][0]
        self.assertIn("ended early", err["message"])
        self.assertEqual(len(self.model.bodies()), 1, "no retry after visible output")
        self.assertEqual(evs[-1]["status"], "error")
        sid = evs[0]["sessionId"]
        events = self.session_events(sid)
        self.assertTrue(any(e["type"] == "message" and e["payload"]["role"] == "user" for e in events))
        # The session still lists and resumes.
        self.serve([{"text": "resumed fine"}])
        r2 = self.zero("exec", "--resume", sid, "again")
        self.assertEqual(r2.returncode, 0, r2.stderr)
        self.assertEqual(r2.stdout, "resumed fine\n")

    def test_sigint_mid_stream(self):
        self.serve([{"text": "streaming slowly " * 20, "chunk_size": 8, "hang_after_bytes": 300}])
        p = self.spawn("exec", "-o", "stream-json", "hi")
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 130, err)
        evs = self.lines(out)
        self.assert_stream_json_valid(evs)
        self.assertEqual(evs[-1]["status"], "interrupted")
        self.assertEqual(evs[-1]["exitCode"], 130)
        sid = evs[0]["sessionId"]
        self.serve([{"text": "back again"}])
        r = self.zero("exec", "--resume", "-o", "json", "continue")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["sessionId"], sid)

    def test_max_turns_reached_exits_4(self):
        self.serve([{"tool_calls": [{"name": "list_directory", "arguments": {}}]}] * 3)
        r = self.zero("exec", "--max-turns", "2", "-o", "stream-json", "loop")
        self.assertEqual(r.returncode, 4, r.stderr)
        evs = self.lines(r.stdout)
        self.assertEqual(evs[-1]["status"], "incomplete")
        self.assertEqual(evs[-1]["exitCode"], 4)
        self.assertEqual(len(self.model.bodies()), 2)

    def test_max_turns_from_environment(self):
        self.serve([{"tool_calls": [{"name": "list_directory", "arguments": {}}]}] * 3)
        self.env["ZERO_MAX_TURNS"] = "1"
        r = self.zero("exec", "loop")
        self.assertEqual(r.returncode, 4)
        self.assertIn("Run incomplete", r.stderr)


class Resume(ZeroTest):
    def test_resume_sends_structured_history(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("content A\n")
        self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
            {"text": "It says content A."},
        ])
        r1 = self.zero("exec", "-o", "json", "read a.txt")
        self.assertEqual(r1.returncode, 0, r1.stderr)
        sid = json.loads(r1.stdout)["sessionId"]
        m2 = self.serve([{"text": "Added the test."}])
        r2 = self.zero("exec", "--resume-latest", "now add a test for it")
        self.assertEqual(r2.returncode, 0, r2.stderr)
        msgs = m2.bodies()[0]["messages"]
        roles = [x["role"] for x in msgs]
        self.assertEqual(roles, ["system", "user", "assistant", "tool", "assistant", "user"])
        self.assertEqual(msgs[1]["content"], "read a.txt")
        self.assertEqual(msgs[2]["tool_calls"][0]["function"]["name"], "read_file")
        self.assertEqual(msgs[3]["tool_call_id"], msgs[2]["tool_calls"][0]["id"])
        self.assertIn("content A", msgs[3]["content"])
        self.assertEqual(msgs[4]["content"], "It says content A.")
        self.assertEqual(msgs[5]["content"], "now add a test for it")
        self.assertEqual(self.session_ids(), [sid])

    def test_resume_unknown_id(self):
        self.serve([])
        r = self.zero("exec", "--resume=zero_nope", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("zero sessions list", r.stderr)


if __name__ == "__main__":
    main()
