"""`zero acp` with prompts of different sessions running at once, and
session/set_mode during a prompt.

Concurrency is driven by the official ACP client library
(@agentclientprotocol/sdk, tests/acp/client_concurrent.mjs): session A's
prompt streams and hangs; session B's prompt, sent while A runs, reaches its
permission question before A ends (a prompt no longer waits behind another
session's); cancelling A answers A "cancelled" and leaves B to finish, in its
own directory. The mode switch is driven line by line (tests/e2e/acp_editor.py):
switching to plan while a prompt waits on a permission question makes that
prompt's next write be refused."""
import json
import os
import subprocess

from harness import ZeroTest, main, ZERO_BIN
from acp_npm import require_acp_sdk
from acp_editor import Editor


class AcpConcurrentSessions(ZeroTest):
    def test_two_sessions_prompt_at_once_and_a_cancel_stops_one(self):
        client_dir = require_acp_sdk(self)
        work = os.path.realpath(self.work)
        dir_a, dir_b = os.path.join(work, "a"), os.path.join(work, "b")
        os.mkdir(dir_a)
        os.mkdir(dir_b)
        m = self.serve([
            {"match": "prompt of A", "text": " ".join("w%d" % i for i in range(400)),
             "hang_after_bytes": 800},
            {"match": "prompt of B", "tool_calls": [{"name": "write_file", "arguments": {
                "path": "note.txt", "content": "from B\n"}}]},
            {"match": "prompt of B", "text": "B is done."},
        ])
        # zero runs from neither session's directory: each session works in its own.
        r = subprocess.run(["node", os.path.join(client_dir, "client_concurrent.mjs"), ZERO_BIN,
                            dir_a, dir_b], cwd=work, env=self.env, capture_output=True,
                           text=True, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(out["exit"], 0)
        a, b = out["a"]["sessionId"], out["b"]["sessionId"]

        # B ran while A was still streaming: its permission question came
        # before A's prompt ended.
        self.assertIn("a-streams:ok", out["events"])
        self.assertTrue(out["bAskedWhileARan"], out["events"])
        self.assertEqual([p["sessionId"] for p in out["permissions"]], [b])
        # Cancelling A ended A alone: B was still waiting on its question,
        # then finished its turn.
        self.assertEqual(out["promptA"], {"stopReason": "cancelled"})
        self.assertTrue(out["bRunningAfterACancelled"])
        self.assertEqual(out["promptB"], {"stopReason": "end_turn"})
        ups_b = [u["update"] for u in out["updates"] if u["sessionId"] == b]
        self.assertEqual("".join(u["content"]["text"] for u in ups_b
                                 if u["sessionUpdate"] == "agent_message_chunk"), "B is done.")
        write = [u for u in ups_b if u["sessionUpdate"] == "tool_call"][0]
        done = [u for u in ups_b if u["sessionUpdate"] == "tool_call_update"
                and u["toolCallId"] == write["toolCallId"]]
        self.assertEqual(done[-1]["status"], "completed", done)
        # B's relative path landed in B's directory, nowhere else.
        with open(os.path.join(dir_b, "note.txt")) as f:
            self.assertEqual(f.read(), "from B\n")
        self.assertFalse(os.path.exists(os.path.join(dir_a, "note.txt")))
        self.assertFalse(os.path.exists(os.path.join(work, "note.txt")))
        # Each session's updates are its own; the model saw A once, B twice.
        ups_a = [u["update"] for u in out["updates"] if u["sessionId"] == a]
        text_a = "".join(u["content"]["text"] for u in ups_a
                         if u["sessionUpdate"] == "agent_message_chunk")
        self.assertTrue(text_a.startswith("w0 w1"), text_a[:80])
        self.assertNotIn("B is done", text_a)
        bodies = [json.dumps(x["messages"]) for x in m.bodies()]
        self.assertEqual(sum("prompt of A" in x for x in bodies), 1)
        self.assertEqual(sum("prompt of B" in x for x in bodies), 2)
        self.assertFalse(any("prompt of A" in x and "prompt of B" in x for x in bodies))


class PlanEditor(Editor):
    """Answers the first permission question only after switching the
    session to plan mode (the switch reaches zero first: one stream)."""

    def serve(self, msg):
        if msg["method"] == "session/request_permission" and not getattr(self, "switched", 0):
            self.switched = self.start("session/set_mode", {
                "sessionId": msg["params"]["sessionId"], "modeId": "plan"})
        super().serve(msg)


class AcpModeDuringPrompt(ZeroTest):
    def test_plan_mode_set_during_a_prompt_refuses_its_next_write(self):
        work = os.path.realpath(self.work)
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "first.txt", "content": "one\n"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "second.txt", "content": "two\n"}}]},
            {"text": "Stopped: plan mode."},
        ])
        ed = PlanEditor(ZERO_BIN, work, self.env)
        try:
            ed.initialize(fs=False, terminal=False)
            sid = ed.request("session/new", {"cwd": work, "mcpServers": []})["result"]["sessionId"]
            done = ed.request("session/prompt", {"sessionId": sid, "prompt": [
                {"type": "text", "text": "write two files"}]})
            self.assertEqual(done["result"], {"stopReason": "end_turn"})
            self.assertEqual(ed.wait(ed.switched)["result"], {})
        finally:
            self.assertEqual(ed.close(), 0)
        # The first write was decided (asked) in ask mode and allowed by the
        # user; the second was decided in plan mode: refused, never asked.
        with open(os.path.join(work, "first.txt")) as f:
            self.assertEqual(f.read(), "one\n")
        self.assertFalse(os.path.exists(os.path.join(work, "second.txt")))
        self.assertEqual(ed.methods(), ["session/request_permission"])
        ups = [u["update"] for u in ed.updates]
        self.assertEqual([u["currentModeId"] for u in ups
                          if u["sessionUpdate"] == "current_mode_update"], ["plan"])
        calls = [u for u in ups if u["sessionUpdate"] == "tool_call"]
        self.assertEqual(len(calls), 2)
        second = [u for u in ups if u["sessionUpdate"] == "tool_call_update"
                  and u["toolCallId"] == calls[1]["toolCallId"]]
        self.assertEqual(second[-1]["status"], "failed", second)
        # The model was told why.
        last = json.dumps(m.bodies()[-1]["messages"])
        self.assertIn("plan mode is read-only", last)


if __name__ == "__main__":
    main()
