"""zero exec against the Anthropic Messages API's thinking rules, as the fake
model server enforces them per model (fake_anthropic.py): the adaptive
request shape for Opus 4.7+ / Sonnet 5+ / Fable, the budget shape for the
older models, thinking blocks echoed with their signatures in a tool loop,
the effort levels a model takes and the clear refusal of the others; and the
fake itself refusing what the real API refuses (so these tests can fail)."""
import json
import os
import urllib.error
import urllib.request

from harness import ZeroTest, main


class AnthropicThinking(ZeroTest):
    def serve_model(self, model, turns, config=None):
        m = self.serve(turns)
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.env.update(ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % m.port,
                        ANTHROPIC_API_KEY="sk-ant-test-0123456789", ANTHROPIC_MODEL=model)
        if config is not None:
            d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(config, f)
        return m

    def posts(self, m):
        return [r for r in m.requests() if r["method"] == "POST"]

    def raw_post(self, m, body):
        """POSTs body to the fake as a client would: (status, JSON answer)."""
        req = urllib.request.Request("http://127.0.0.1:%d/v1/messages" % m.port,
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode())

    # ------------------------------------------------------- request shapes

    def test_adaptive_model_gets_adaptive_shape_byte_exact(self):
        m = self.serve_model("claude-opus-4-8", [{"reasoning": "Plan.", "text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "-r", "xhigh", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        body = self.posts(m)[0]["body"]
        self.assertEqual(body["thinking"], {"type": "adaptive", "display": "summarized"})
        self.assertEqual(body["output_config"], {"effort": "xhigh"})
        self.assertNotIn("budget_tokens", json.dumps(body))
        # display summarized: the thinking text streams as reasoning.
        evs = self.lines(r.stdout)
        self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "reasoning"), "Plan.")

    def test_budget_model_keeps_budget_shape(self):
        m = self.serve_model("claude-sonnet-4-5", [{"text": "ok"}])
        r = self.zero("exec", "-r", "medium", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        body = self.posts(m)[0]["body"]
        self.assertEqual(body["thinking"], {"type": "enabled", "budget_tokens": 10000})
        self.assertNotIn("output_config", body)
        self.assertGreater(body["max_tokens"], 10000)

    def test_model_that_thinks_unasked_works_without_effort(self):
        """Fable 5.1 thinks with no effort set: zero asks for the summarized
        text (no output_config, the model's own default effort), shows it,
        and echoes the signed block in the tool loop."""
        m = self.serve_model("claude-fable-5-1", [
            {"reasoning": "List it first.", "signature": "SIG-fable",
             "tool_calls": [{"name": "list_directory", "id": "toolu_f1", "arguments": {}}]},
            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "look")
        self.assertEqual(r.returncode, 0, r.stderr)
        b0, b1 = [p["body"] for p in self.posts(m)]
        self.assertEqual(b0["thinking"], {"type": "adaptive", "display": "summarized"})
        self.assertNotIn("output_config", b0)
        evs = self.lines(r.stdout)
        self.assertEqual("".join(e["delta"] for e in evs if e["type"] == "reasoning"),
                         "List it first.")
        self.assertEqual(b1["messages"][1]["content"][0],
                         {"type": "thinking", "thinking": "List it first.",
                          "signature": "SIG-fable"})
        self.assertEqual(b1["messages"][1]["content"][1]["type"], "tool_use")

    def test_adaptive_model_without_effort_sends_no_thinking(self):
        m = self.serve_model("claude-opus-4-7", [{"text": "ok"}])
        r = self.zero("exec", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        body = self.posts(m)[0]["body"]
        self.assertNotIn("thinking", body)
        self.assertNotIn("output_config", body)

    # ------------------------------------------------ the tool loop round trip

    def test_signed_thinking_round_trip_in_tool_loop(self):
        """Two tool calls on Opus 4.8 at effort high: each assistant turn goes
        back with its own thinking block first, text and signature exactly as
        sent; the fake refuses the request otherwise."""
        m = self.serve_model("claude-opus-4-8", [
            {"reasoning": "First look.", "signature": "SIG-one",
             "tool_calls": [{"name": "list_directory", "id": "toolu_a", "arguments": {}}]},
            {"reasoning": "Now the file.", "signature": "SIG-two", "text": "Reading.",
             "tool_calls": [{"name": "read_file", "id": "toolu_b",
                             "arguments": {"path": "a.txt"}}]},
            {"text": "It says hi."}])
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("hi\n")
        r = self.zero("exec", "-r", "high", "read a.txt")
        self.assertEqual(r.returncode, 0, r.stderr)
        posts = self.posts(m)
        self.assertEqual(len(posts), 3)
        msgs = posts[2]["body"]["messages"]
        self.assertEqual(msgs[1]["content"][0], {"type": "thinking", "thinking": "First look.",
                                                 "signature": "SIG-one"})
        self.assertEqual(msgs[3]["content"][0], {"type": "thinking", "thinking": "Now the file.",
                                                 "signature": "SIG-two"})
        self.assertEqual([b["type"] for b in msgs[3]["content"]],
                         ["thinking", "text", "tool_use"])
        self.assertTrue(r.stdout.strip().endswith("It says hi."), r.stdout)

    # ------------------------------------------------------------ effort levels

    def test_effort_levels_accepted_and_refused_per_model(self):
        m = self.serve_model("claude-opus-4-7", [{"text": "ok"}, {"text": "ok"}])
        r = self.zero("exec", "-r", "max", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.posts(m)[0]["body"]["output_config"], {"effort": "max"})
        # minimal is not an Anthropic effort: refused before any request,
        # one line naming the model's levels.
        r = self.zero("exec", "-r", "minimal", "q")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.strip().count("\n"), 0, r.stderr)
        self.assertIn('claude-opus-4-7 does not take reasoning effort "minimal"', r.stderr)
        self.assertIn("its levels are low, medium, high, xhigh, max", r.stderr)
        # xhigh came with Opus 4.7: Sonnet 4.6 refuses it.
        r = self.zero("exec", "-m", "claude-sonnet-4-6", "-r", "xhigh", "q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("its levels are low, medium, high, max", r.stderr)
        # A budget model takes minimal (zero's smallest budget) but not max.
        r = self.zero("exec", "-m", "claude-sonnet-4-5", "-r", "max", "q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("its levels are minimal, low, medium, high", r.stderr)
        # A name no vendor uses: the flag itself is refused, naming all.
        r = self.zero("exec", "-r", "ultra", "q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("none, minimal, low, medium, high, xhigh, max", r.stderr)
        self.assertEqual(len(self.posts(m)), 1)

    def test_config_effort_levels_and_model_override(self):
        """reasoningEffort xhigh in the config is accepted; a models entry
        declares a new model adaptive with its own levels."""
        m = self.serve_model("claude-opus-6", [{"text": "ok"}], config={
            "providers": [{"name": "anthropic", "provider_kind": "anthropic",
                           "reasoningEffort": "xhigh"}],
            "models": {"claude-opus-6": {"thinking": "adaptive",
                                         "reasoningEfforts": ["low", "xhigh"]}}})
        r = self.zero("exec", "q")
        self.assertEqual(r.returncode, 0, r.stderr)
        body = self.posts(m)[0]["body"]
        self.assertEqual(body["thinking"], {"type": "adaptive", "display": "summarized"})
        self.assertEqual(body["output_config"], {"effort": "xhigh"})
        with open(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json"), "w") as f:
            json.dump({"models": {"claude-opus-6": {"reasoningEfforts": ["low", "ultra"]}}}, f)
        r = self.zero("exec", "q")
        self.assertEqual(r.returncode, 2)
        self.assertIn('models.claude-opus-6.reasoningEfforts', r.stderr)
        self.assertIn('"ultra"', r.stderr)

    # ------------------------------------------- the fake refuses as the API

    def test_fake_refuses_what_the_real_api_refuses(self):
        m = self.serve_model("claude-opus-4-7", [{"text": "x"}] * 6)
        user = [{"role": "user", "content": "hi"}]
        st, body = self.raw_post(m, {"model": "claude-opus-4-7", "max_tokens": 30000,
                                     "messages": user, "stream": True,
                                     "thinking": {"type": "enabled", "budget_tokens": 4096}})
        self.assertEqual(st, 400)
        self.assertEqual(body["type"], "error")
        self.assertEqual(body["error"], {
            "type": "invalid_request_error",
            "message": '"thinking.type.enabled" is not supported for this model. Use '
                       '"thinking.type.adaptive" and "output_config.effort" to control '
                       'thinking behavior.'})
        st, body = self.raw_post(m, {"model": "claude-sonnet-4-5", "max_tokens": 4096,
                                     "messages": user, "stream": True,
                                     "thinking": {"type": "enabled", "budget_tokens": 4096}})
        self.assertEqual(st, 400)
        self.assertIn("`max_tokens` must be greater than `thinking.budget_tokens`",
                      body["error"]["message"])
        st, body = self.raw_post(m, {"model": "claude-sonnet-4-6", "max_tokens": 4096,
                                     "messages": user, "stream": True,
                                     "thinking": {"type": "adaptive"},
                                     "output_config": {"effort": "xhigh"}})
        self.assertEqual(st, 400)
        self.assertIn("output_config.effort", body["error"]["message"])
        # A thinking block whose text was changed: the signature no longer holds.
        st, body = self.raw_post(m, {
            "model": "claude-opus-4-7", "max_tokens": 4096, "stream": True,
            "thinking": {"type": "adaptive"},
            "messages": user + [
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "edited", "signature": "SIG-never"},
                    {"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}]})
        self.assertEqual(st, 400)
        self.assertEqual(body["error"]["message"],
                         "messages.1.content.0: Invalid `signature` in `thinking` block")

    def test_fake_refuses_a_tool_loop_that_dropped_its_thinking(self):
        m = self.serve_model("claude-opus-4-8", [
            {"reasoning": "Think.", "signature": "SIG-drop",
             "tool_calls": [{"name": "list_directory", "id": "toolu_d", "arguments": {}}]},
            {"text": "x"}])
        first = {"model": "claude-opus-4-8", "max_tokens": 4096, "stream": True,
                 "thinking": {"type": "adaptive", "display": "summarized"},
                 "messages": [{"role": "user", "content": "hi"}]}
        st, _ = self.raw_post(m, first)
        self.assertEqual(st, 200)
        second = dict(first, messages=first["messages"] + [
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_d", "name": "list_directory", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_d", "content": "a.txt"}]}])
        st, body = self.raw_post(m, second)
        self.assertEqual(st, 400)
        self.assertIn("Expected `thinking` or `redacted_thinking`, but found `tool_use`",
                      body["error"]["message"])


if __name__ == "__main__":
    main()
