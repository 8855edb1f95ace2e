"""MCP sampling and resource subscriptions, end to end: the real zero binary,
the fake model server and a real MCP server over stdio
(tests/e2e/mcp/sampling_server.py) that asks zero's model for a completion
while one of its tools runs, and sends resource updates once subscribed.

Sampling: the request reaches the run's provider with the server's messages
and system prompt, no tools, maxTokens capped, the user's model whatever the
server hints; the answer goes back in the spec's shape; headless without
approval it is refused with a JSON-RPC error that says why; a server asking
too often is refused; every request is a session event.
Subscriptions: `zero mcp watch` subscribes, prints each update and list
change, and unsubscribes; a server without subscriptions is refused."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from test_tui import TMUX, TuiDriver  # noqa: E402

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "sampling_server.py")


class ServerTest(harness.ZeroTest):
    def setUp(self):
        super().setUp()
        # In the workspace: the server runs in the sandbox, where it is writable.
        self.log = os.path.join(self.work, "server.log")

    def configure(self, *extra):
        self.user_config({"mcp": {"servers": {"s": {
            "command": sys.executable, "args": [SERVER, self.log] + list(extra)}}}})

    def received(self):
        with open(self.log) as f:
            return [json.loads(l) for l in f if l.strip()]

    def tool_output(self, body):
        return [m for m in body["messages"] if m.get("role") == "tool"][0]["content"]

    def sampling_events(self):
        sid = self.session_ids()[-1]
        return [e["payload"] for e in self.session_events(sid) if e.get("type") == "mcp_sampling"]



class SamplingTest(ServerTest):
    def test_sampling_is_answered_by_the_run_provider(self):
        self.configure()
        model = self.serve([
            {"tool_calls": [{"name": "mcp_s_ask", "arguments": {"prompt": "what is 2+2?"}}]},
            {"text": "four"},
            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "--skip-permissions-unsafe", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        init = [m for m in self.received() if m.get("method") == "initialize"][0]
        self.assertIn("sampling", init["params"]["capabilities"])
        bodies = model.bodies()
        self.assertEqual(len(bodies), 3)
        sampled = bodies[1]
        # The server's words, no tools, the cap, and the user's own model
        # although the server hinted at another.
        self.assertNotIn("tools", sampled)
        self.assertEqual(sampled["messages"], [
            {"role": "system", "content": "You answer for the sampling server."},
            {"role": "user", "content": "what is 2+2?"}])
        self.assertEqual(sampled.get("max_tokens"), 4096)
        self.assertEqual(sampled["model"], "test-model")
        answers = json.loads(self.tool_output(bodies[2]))
        self.assertEqual(answers, [{"result": {
            "role": "assistant", "content": {"type": "text", "text": "four"},
            "model": "test-model", "stopReason": "endTurn"}}])
        shown = [e for e in self.lines(r.stdout) if e["type"] == "mcp_sampling"]
        self.assertEqual(len(shown), 1)
        self.assertEqual(shown[0]["status"], "answered")
        recorded = self.sampling_events()
        self.assertEqual(len(recorded), 1)
        ev = recorded[0]
        self.assertEqual((ev["server"], ev["status"], ev["text"], ev["maxTokens"],
                          ev["requestedMaxTokens"], ev["modelHints"], ev["model"]),
                         ("s", "answered", "four", 4096, 50000, ["claude-3-sonnet"], "test-model"))
        self.assertTrue(ev["toolCallId"])

    def test_headless_run_refuses_and_says_why(self):
        self.configure()
        self.assertEqual(self.zero("mcp", "grant", "s", "ask").returncode, 0)
        model = self.serve([
            {"tool_calls": [{"name": "mcp_s_ask", "arguments": {"prompt": "secret plans"}}]},
            {"text": "done"}])
        r = self.zero("exec", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = model.bodies()
        self.assertEqual(len(bodies), 2, "the sampling request must not reach the model")
        answers = json.loads(self.tool_output(bodies[1]))
        err = answers[0]["error"]
        self.assertEqual(err["code"], -1)
        self.assertIn("no interactive approver", err["message"])
        self.assertIn("--skip-permissions-unsafe", err["message"])
        ev = self.sampling_events()[0]
        self.assertEqual(ev["status"], "refused")
        self.assertIn("no interactive approver", ev["reason"])

    def test_a_server_asking_too_often_is_refused(self):
        self.configure()
        turns = [{"tool_calls": [{"name": "mcp_s_ask",
                                  "arguments": {"prompt": "again", "n": 11, "maxTokens": 64}}]}]
        turns += [{"text": "answer %d" % i} for i in range(10)] + [{"text": "done"}]
        model = self.serve(turns)
        r = self.zero("exec", "--skip-permissions-unsafe", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = model.bodies()
        self.assertEqual(len(bodies), 12)  # the run's two requests and ten samplings
        self.assertEqual(bodies[1].get("max_tokens"), 64)  # under the cap: as asked
        answers = json.loads(self.tool_output(bodies[-1]))
        self.assertEqual([a["result"]["content"]["text"] for a in answers[:10]],
                         ["answer %d" % i for i in range(10)])
        self.assertEqual(answers[10]["error"]["code"], -1)
        self.assertIn("at most 10 a minute", answers[10]["error"]["message"])
        statuses = [e["status"] for e in self.sampling_events()]
        self.assertEqual(statuses, ["answered"] * 10 + ["refused"])


class WatchTest(ServerTest):
    def test_watch_prints_updates_and_unsubscribes(self):
        self.configure()
        r = self.zero("mcp", "watch", "s", "test://watched", "--count", "4", "--json", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.lines(r.stdout),
                         [{"type": "updated", "server": "s", "uri": "test://watched"}] * 3
                         + [{"type": "list_changed", "server": "s", "list": "resources"}])
        methods = [m.get("method") for m in self.received()]
        self.assertIn("resources/subscribe", methods)
        self.assertIn("resources/unsubscribe", methods)
        self.assertLess(methods.index("resources/subscribe"),
                        methods.index("resources/unsubscribe"))
        sub = [m for m in self.received() if m.get("method") == "resources/subscribe"][0]
        self.assertEqual(sub["params"], {"uri": "test://watched"})

    def test_watch_text_until_the_timeout(self):
        self.configure()
        r = self.zero("mcp", "watch", "s", "test://watched", "--timeout", "1", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["updated test://watched"] * 3
                         + ["resources changed"])

    def test_watch_refuses_a_server_without_subscriptions(self):
        self.configure("nosub")
        r = self.zero("mcp", "watch", "s", "test://watched", "--timeout", "1", timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("offers no resource subscriptions", r.stderr)
        self.assertNotIn("resources/subscribe",
                         [m.get("method") for m in self.received()])

    def test_watch_usage_errors(self):
        self.configure()
        r = self.zero("mcp", "watch", "s")
        self.assertEqual(r.returncode, 2)
        self.assertIn("at least one resource URI", r.stderr)
        r = self.zero("mcp", "watch", "s", "test://watched", "--count", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--count", r.stderr)


@unittest.skipUnless(TMUX, "tmux is not installed")
class InteractiveTest(TuiDriver):
    """The interactive zero asks through the one prompt flow, showing what
    the server wants the model to answer; only an approval reaches the model."""

    def configure(self):
        self.log = os.path.join(self.work, "server.log")
        self.user_config({"mcp": {"servers": {"s": {
            "command": sys.executable, "args": [SERVER, self.log]}}}})
        self.assertEqual(self.zero("mcp", "grant", "s", "ask").returncode, 0)

    def test_the_user_approves_then_declines(self):
        self.configure()
        model = self.serve([
            {"tool_calls": [{"name": "mcp_s_ask", "arguments": {"prompt": "what is 2+2?"}}]},
            {"text": "four"},
            {"text": "The server got its answer."},
            {"tool_calls": [{"name": "mcp_s_ask", "arguments": {"prompt": "and 3+3?"}}]},
            {"text": "Declined this time."}])
        self.start()
        self.type("ask the server")
        self.keys("Enter")
        s = self.wait_for("Permission needed")
        self.assertIn("MCP server s wants an answer from your model", s)
        self.assertIn("user: what is 2+2?", s)
        self.assertIn("system: You answer for the sampling server.", s)
        self.assertNotIn("Always allow", s)  # asked every time: nothing to remember
        self.keys("y")
        self.wait_for("The server got its answer.")
        self.assertEqual(len(model.bodies()), 3)
        self.type("once more")
        self.keys("Enter")
        s = self.wait_for("and 3+3?")
        self.keys("n")
        self.wait_for("Declined this time.")
        bodies = model.bodies()
        self.assertEqual(len(bodies), 5)  # the declined one never reached the model
        tool_msgs = [m for m in bodies[-1]["messages"] if m.get("role") == "tool"]
        first = json.loads(tool_msgs[0]["content"])[0]["result"]
        self.assertEqual(first["content"]["text"], "four")
        second = json.loads(tool_msgs[1]["content"])[0]["error"]
        self.assertEqual(second, {"code": -1, "message": "the user declined the sampling request"})
        self.quit_and_check_terminal()


if __name__ == "__main__":
    harness.main()
