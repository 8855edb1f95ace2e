"""zero exec end to end on every wire protocol: Chat Completions, the
Responses API, Anthropic Messages and Gemini, each spoken byte-exact by the
fake model server. The same scenarios (text, one tool call, parallel tool
calls, reasoning, usage with cache hits, in-stream errors) and the same
faults (429 with Retry-After, 503, 529, overloaded_error, cuts and silent or
keep-alive-only streams before any output, 401) run against each one."""
import json
import os

from harness import ZeroTest, main

PROTOCOLS = ("chat", "responses", "anthropic", "gemini")


class Protocols(ZeroTest):
    def fresh(self):
        """A clean home, workspace and server for the next protocol."""
        self.tearDown()
        self.setUp()

    def serve_as(self, proto, turns, model=None):
        m = self.serve(turns)
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        root = "http://127.0.0.1:%d" % m.port
        self.key = "sk-secret-%s-0123456789abcdef" % proto
        if proto in ("chat", "responses"):
            self.env.update(OPENAI_BASE_URL=root + "/v1", OPENAI_API_KEY=self.key,
                            OPENAI_MODEL=model or "test-model")
            if proto == "responses":
                cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
                os.makedirs(cfg, exist_ok=True)
                with open(os.path.join(cfg, "config.json"), "w") as f:
                    json.dump({"providers": [{"name": "openai", "provider_kind": "openai",
                                              "wireApi": "responses"}]}, f)
        elif proto == "anthropic":
            self.env.update(ANTHROPIC_BASE_URL=root, ANTHROPIC_API_KEY=self.key,
                            ANTHROPIC_MODEL=model or "claude-test")
        else:
            self.env.update(GEMINI_BASE_URL=root, GEMINI_API_KEY=self.key,
                            GEMINI_MODEL=model or "gemini-test")
        return m

    def posts(self, m):
        return [r for r in m.requests() if r["method"] == "POST"]

    def check_session_intact(self):
        ids = self.session_ids()
        self.assertEqual(len(ids), 1)
        evs = self.session_events(ids[0])
        self.assertEqual(evs[0]["type"], "message")
        self.assertEqual(evs[0]["payload"]["role"], "user")
        self.assertEqual([e["sequence"] for e in evs], list(range(1, len(evs) + 1)))
        return evs

    def assert_no_key(self, r):
        self.assertNotIn(self.key, r.stdout + r.stderr)
        for sid in self.session_ids():
            with open(os.path.join(self.sessions_dir(), sid, "events.jsonl")) as f:
                self.assertNotIn(self.key, f.read())

    # ---------------------------------------------------------------- scenarios

    def test_text_answer_and_usage_with_cache_hits(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                m = self.serve_as(proto, [{"text": "Hello from %s." % proto, "usage": {
                    "prompt_tokens": 2000, "completion_tokens": 5, "cached_tokens": 1500}}])
                r = self.zero("exec", "say hello")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout, "Hello from %s.\n" % proto)
                req = self.posts(m)[0]
                path = req["path"]
                expect = {"chat": "/v1/chat/completions", "responses": "/v1/responses",
                          "anthropic": "/v1/messages",
                          "gemini": "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"}
                self.assertEqual(path, expect[proto])
                h = {k.lower(): v for k, v in req["headers"].items()}
                if proto == "anthropic":
                    self.assertEqual(h["x-api-key"], self.key)
                    self.assertEqual(h["anthropic-version"], "2023-06-01")
                elif proto == "gemini":
                    self.assertEqual(h["x-goog-api-key"], self.key)
                else:
                    self.assertEqual(h["authorization"], "Bearer " + self.key)
                evs = self.check_session_intact()
                usage = [e["payload"] for e in evs if e["type"] == "provider_usage"]
                self.assertEqual(len(usage), 1)
                self.assertEqual(usage[0]["promptTokens"], 2000)
                self.assertEqual(usage[0]["cachedInputTokens"], 1500)
                self.assert_no_key(r)

    def test_tool_call_round_trip(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                with open(os.path.join(self.work, "notes.txt"), "w") as f:
                    f.write("hello notes\n")
                m = self.serve_as(proto, [
                    {"tool_calls": [{"name": "read_file", "id": "call_r1",
                                     "arguments": {"path": "notes.txt"}}]},
                    {"text": "The file says hello."}])
                r = self.zero("exec", "-o", "stream-json", "read notes.txt")
                self.assertEqual(r.returncode, 0, r.stderr)
                evs = self.lines(r.stdout)
                calls = [e for e in evs if e["type"] == "tool_call"]
                self.assertEqual(len(calls), 1)
                self.assertEqual(calls[0]["name"], "read_file")
                self.assertEqual(calls[0]["args"], {"path": "notes.txt"})
                res = [e for e in evs if e["type"] == "tool_result"][0]
                self.assertIn("hello notes", res["output"])
                second = json.dumps(self.posts(m)[1]["body"])
                self.assertIn("hello notes", second)
                body = self.posts(m)[1]["body"]
                if proto == "anthropic":
                    last = body["messages"][-1]
                    self.assertEqual(last["role"], "user")
                    self.assertEqual(last["content"][0]["type"], "tool_result")
                    self.assertEqual(last["content"][0]["tool_use_id"], "call_r1")
                elif proto == "gemini":
                    last = body["contents"][-1]
                    self.assertEqual(last["parts"][0]["functionResponse"]["name"], "read_file")
                    prev = body["contents"][-2]["parts"][0]
                    self.assertIn("thoughtSignature", prev)  # kept with the call
                elif proto == "responses":
                    kinds = [i["type"] for i in body["input"]]
                    self.assertEqual(kinds[-2:], ["function_call", "function_call_output"])
                    self.assertEqual(body["input"][-1]["call_id"], "call_r1")
                self.check_session_intact()

    def test_parallel_tool_calls(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                for n in ("a.txt", "b.txt"):
                    with open(os.path.join(self.work, n), "w") as f:
                        f.write("file %s\n" % n)
                self.serve_as(proto, [
                    {"text": "Reading both.", "tool_calls": [
                        {"name": "read_file", "id": "c1", "arguments": {"path": "a.txt"}},
                        {"name": "read_file", "id": "c2", "arguments": {"path": "b.txt"}}]},
                    {"text": "Both read."}])
                r = self.zero("exec", "-o", "stream-json", "read both")
                self.assertEqual(r.returncode, 0, r.stderr)
                evs = self.lines(r.stdout)
                self.assertEqual([e["args"]["path"] for e in evs if e["type"] == "tool_call"],
                                 ["a.txt", "b.txt"])
                self.assertEqual(len([e for e in evs if e["type"] == "tool_result"]), 2)

    def test_reasoning_streams_as_reasoning(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                m = self.serve_as(proto, [
                    {"reasoning": "Two plus two is four.", "text": "4",
                     "tool_calls": [{"name": "list_directory", "arguments": {}}]},
                    {"text": "done"}])
                r = self.zero("exec", "-o", "stream-json", "2+2?")
                self.assertEqual(r.returncode, 0, r.stderr)
                evs = self.lines(r.stdout)
                self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "reasoning"),
                                 "Two plus two is four.")
                if proto == "anthropic":
                    # The signed thinking block is replayed before the tool_use.
                    content = self.posts(m)[1]["body"]["messages"][1]["content"]
                    self.assertEqual(content[0]["type"], "text")

    def test_anthropic_thinking_replayed_with_signature(self):
        cfg = {"providers": [{"name": "anthropic", "provider_kind": "anthropic",
                              "reasoningEffort": "low"}]}
        m = self.serve_as("anthropic", [
            {"reasoning": "Look first.", "signature": "SIG-abc",
             "tool_calls": [{"name": "list_directory", "arguments": {}}]},
            {"text": "done"}])
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)
        r = self.zero("exec", "look")
        self.assertEqual(r.returncode, 0, r.stderr)
        b0 = self.posts(m)[0]["body"]
        self.assertEqual(b0["thinking"], {"type": "enabled", "budget_tokens": 4096})
        self.assertGreater(b0["max_tokens"], 4096)
        content = self.posts(m)[1]["body"]["messages"][1]["content"]
        self.assertEqual(content[0], {"type": "thinking", "thinking": "Look first.",
                                      "signature": "SIG-abc"})
        self.assertEqual(content[1]["type"], "tool_use")

    def test_resume_sends_thinking_and_thought_signatures_back(self):
        """A run stopped after a tool call (--max-turns 1), then --resume: the
        resumed request carries the signed thinking block (Anthropic) and the
        call's thoughtSignature (Gemini) read back from the session."""
        for proto in ("anthropic", "gemini"):
            with self.subTest(proto=proto):
                self.fresh()
                m = self.serve_as(proto, [
                    {"reasoning": "Look first.", "signature": "SIG-resume",
                     "tool_calls": [{"name": "list_directory", "arguments": {},
                                     "signature": "THOUGHT-resume"}]},
                    {"text": "done"}])
                if proto == "anthropic":
                    d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
                    os.makedirs(d, exist_ok=True)
                    with open(os.path.join(d, "config.json"), "w") as f:
                        json.dump({"providers": [{"name": "anthropic",
                                                  "provider_kind": "anthropic",
                                                  "reasoningEffort": "low"}]}, f)
                r = self.zero("exec", "--max-turns", "1", "look")
                self.assertNotEqual(r.returncode, 0)  # incomplete: turns used up
                sid = self.session_ids()[0]
                evs = self.session_events(sid)
                if proto == "anthropic":
                    msg = [e for e in evs if e["type"] == "message"
                           and e["payload"]["role"] == "assistant"][0]
                    self.assertEqual(msg["payload"]["thinking"],
                                     [{"thinking": "Look first.", "signature": "SIG-resume"}])
                else:
                    call = [e for e in evs if e["type"] == "tool_call"][0]
                    self.assertEqual(call["payload"]["thoughtSignature"], "THOUGHT-resume")
                r = self.zero("exec", "--resume", sid, "go on")
                self.assertEqual(r.returncode, 0, r.stderr)
                body = self.posts(m)[1]["body"]
                if proto == "anthropic":
                    content = body["messages"][1]["content"]
                    self.assertEqual(content[0], {"type": "thinking", "thinking": "Look first.",
                                                  "signature": "SIG-resume"})
                    self.assertEqual(content[1]["type"], "tool_use")
                else:
                    parts = [p for c in body["contents"] for p in c["parts"]
                             if "functionCall" in p]
                    self.assertEqual(parts[0]["thoughtSignature"], "THOUGHT-resume")

    def test_reasoning_effort_flag_checked_against_the_registry(self):
        m = self.serve_as("anthropic", [{"text": "ok"}], model="claude-sonnet-4")
        r = self.zero("exec", "-r", "high", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        body = self.posts(m)[0]["body"]
        self.assertEqual(body["thinking"], {"type": "enabled", "budget_tokens": 24000})
        self.fresh()
        m = self.serve_as("chat", [{"text": "ok"}], model="o3")
        r = self.zero("exec", "--reasoning-effort=low", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.posts(m)[0]["body"]["reasoning_effort"], "low")
        r = self.zero("exec", "-r", "minimal", "q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("its levels are low, medium, high", r.stderr)
        r = self.zero("exec", "-m", "gpt-4o", "-r", "high", "q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("gpt-4o has no reasoning-effort control", r.stderr)
        r = self.zero("exec", "-r", "max", "q")  # a vendor level o3 does not take
        self.assertEqual(r.returncode, 2)
        self.assertIn('o3 does not take reasoning effort "max"', r.stderr)
        r = self.zero("exec", "-r", "ultra", "q")  # no vendor's level
        self.assertEqual(r.returncode, 2)
        self.assertIn("Expected none, minimal, low, medium, high, xhigh, max", r.stderr)
        self.assertEqual(len(self.posts(m)), 1)  # refused before any request

    def test_think_tags_become_reasoning(self):
        self.serve_as("chat", [{"text": "<think>hmm, let me see</think>\n\nThe answer.",
                                "text_piece": 3}], model="deepseek-r1:7b")
        r = self.zero("exec", "-o", "stream-json", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.lines(r.stdout)
        self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "reasoning"),
                         "hmm, let me see")
        self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "text"), "The answer.")

    # ---------------------------------------------------------------- faults

    def run_fault(self, proto, turns, expect_posts, expect_retries, extra_env=None):
        m = self.serve_as(proto, turns)
        if extra_env:
            self.env.update(extra_env)
        r = self.zero("exec", "hi", timeout=60)
        self.assertEqual(len(self.posts(m)), expect_posts, r.stderr)
        self.assertEqual(r.stderr.count("retrying (attempt"), expect_retries, r.stderr)
        self.check_session_intact()
        self.assert_no_key(r)
        return r

    def test_fault_429_with_retry_after_then_success(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"status": 429, "retry_after": "0"}, {"text": "ok"}],
                                   2, 1)
                self.assertEqual(r.returncode, 0)
                self.assertIn("HTTP 429", r.stderr)
                self.assertEqual(r.stdout, "ok\n")

    def test_fault_503_and_529_then_success(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"status": 503}, {"status": 529}, {"text": "ok"}], 3, 2)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("HTTP 529", r.stderr)

    def test_fault_overloaded_in_stream_before_output_is_retried(self):
        for proto in ("anthropic", "responses", "gemini"):
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"stream_error": "Overloaded"}, {"text": "ok"}], 2, 1)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("Overloaded", r.stderr)

    def test_fault_error_after_output_is_final(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"text": "Partial answer", "stream_error": "Overloaded"},
                                           {"text": "never"}], 1, 0)
                self.assertEqual(r.returncode, 3)
                self.assertIn("Overloaded", r.stderr)

    def test_fault_cut_before_output_is_retried(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"text": "never seen", "cut_after_bytes": 30},
                                           {"text": "ok"}], 2, 1)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout, "ok\n")

    def test_fault_silent_stream_times_out_and_is_retried(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"text": "never", "hang_after_bytes": 0},
                                           {"text": "ok"}], 2, 1,
                                   {"ZERO_STREAM_IDLE_TIMEOUT": "400ms",
                                    "FAKE_SERVER_HANG_MAX_S": "5"})
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("idle timeout", r.stderr)

    def test_fault_keepalives_only_is_a_timeout(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"text": "never", "keepalive_forever_after_bytes": 0,
                                            "keepalive_every_ms": 50}, {"text": "ok"}], 2, 1,
                                   {"ZERO_STREAM_IDLE_TIMEOUT": "500ms",
                                    "FAKE_SERVER_HANG_MAX_S": "5"})
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("keep-alives", r.stderr)

    def test_fault_retries_give_up_after_four(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"status": 503}] * 6, 5, 4)
                self.assertEqual(r.returncode, 3)
                self.assertIn("gave up after 5 attempts", r.stderr)
                self.assertIn("HTTP 503", r.stderr)

    def test_fault_401_names_provider_status_and_message(self):
        for proto in PROTOCOLS:
            with self.subTest(proto=proto):
                self.fresh()
                r = self.run_fault(proto, [{"status": 401, "error": {
                    "type": "authentication_error", "message": "invalid x-api-key",
                    "code": 401, "status": "UNAUTHENTICATED"}}], 1, 0)
                self.assertEqual(r.returncode, 3)
                self.assertIn("HTTP 401", r.stderr)
                self.assertIn("invalid x-api-key", r.stderr)
                self.assertNotIn('{"', r.stderr)  # no raw body dump


if __name__ == "__main__":
    main()
