"""`zero acp` driven by the official Agent Client Protocol client library
(@agentclientprotocol/sdk from npm; tests/acp/client.mjs), with the fake model
server behind zero: a whole session — initialize, session/new, a prompt whose
edit asks session/request_permission and shows as a diff, the final answer,
session/set_mode, a second prompt cancelled mid-stream, and session/load of
the session in a new process. Skipped, saying why, only when the npm package
cannot be installed."""
import json
import os
import subprocess

from harness import ZeroTest, main, ZERO_BIN
from acp_npm import require_acp_sdk
from acp_editor import Editor


class AcpSession(ZeroTest):
    def run_client(self):
        client_dir = require_acp_sdk(self)
        r = subprocess.run(["node", os.path.join(client_dir, "client.mjs"), ZERO_BIN,
                            os.path.realpath(self.work)], env=self.env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout.strip().splitlines()[-1])

    def test_whole_session_against_the_sdk_client(self):
        notes = os.path.join(self.work, "notes.txt")
        with open(notes, "w") as f:
            f.write("alpha\n")
        m = self.serve([
            {"reasoning": "Let me look.", "tool_calls": [
                {"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": "edit_file", "arguments": {
                "path": "notes.txt", "old_string": "alpha", "new_string": "beta"}}]},
            {"text": "Done editing."},
            {"text": " ".join("word%d" % i for i in range(400)), "hang_after_bytes": 1500},
        ])
        out = self.run_client()
        work = os.path.realpath(self.work)

        # initialize: the version and what zero can do.
        self.assertEqual(out["init"]["protocolVersion"], 1)
        caps = out["init"]["agentCapabilities"]
        self.assertTrue(caps["loadSession"])
        self.assertTrue(caps["promptCapabilities"]["image"])
        sid = out["newSession"]["sessionId"]
        self.assertEqual(out["newSession"]["modes"]["currentModeId"], "ask")

        # Prompt 1: thought, a read, the edit asked for and shown as a diff, the answer.
        self.assertEqual(out["prompt1"], {"stopReason": "end_turn"})
        ups = [u["update"] for u in out["updates1"] if "update" in u]
        first = ups[:[i for i, u in enumerate(out["updates1"]) if u.get("marker")][0]]
        kinds = [u["sessionUpdate"] for u in first]
        self.assertIn("agent_thought_chunk", kinds)
        calls = [u for u in first if u["sessionUpdate"] == "tool_call"]
        self.assertEqual([c["kind"] for c in calls], ["read", "edit"])
        edit = calls[1]
        self.assertEqual(edit["locations"], [{"path": os.path.join(work, "notes.txt")}])
        self.assertEqual(edit["content"], [{"type": "diff", "path": os.path.join(work, "notes.txt"),
                                            "oldText": "alpha", "newText": "beta"}])
        done = [u for u in first if u["sessionUpdate"] == "tool_call_update"
                and u["toolCallId"] == edit["toolCallId"]]
        self.assertEqual(done[-1]["status"], "completed")
        answer = "".join(u["content"]["text"] for u in first
                         if u["sessionUpdate"] == "agent_message_chunk")
        self.assertEqual(answer, "Done editing.")
        with open(notes) as f:
            self.assertEqual(f.read(), "beta\n")

        # The permission question: the edit's call, allow once / always / reject.
        self.assertEqual(len(out["permissions"]), 1)
        perm = out["permissions"][0]
        self.assertEqual(perm["sessionId"], sid)
        self.assertEqual(perm["toolCall"]["toolCallId"], edit["toolCallId"])
        self.assertEqual({o["kind"] for o in perm["options"]} - {"allow_always"},
                         {"allow_once", "reject_once"})

        # set_mode, then prompt 2 cancelled mid-stream.
        self.assertEqual(out["setMode"], {})
        self.assertEqual(out["prompt2"], {"stopReason": "cancelled"})
        self.assertEqual(out["exit1"], 0)

        # session/load in a new process replays the history.
        self.assertEqual(out["exit2"], 0)
        self.assertEqual(out["load"]["modes"]["currentModeId"], "ask")
        replay = [u["update"] for u in out["updates2"]]
        self.assertTrue(all(u["sessionId"] == sid for u in out["updates2"]))
        users = [u["content"]["text"] for u in replay if u["sessionUpdate"] == "user_message_chunk"]
        self.assertIn("Change alpha to beta in notes.txt", users[0])
        self.assertIn("[notes.txt](file://%s/notes.txt)" % work, users[0])
        self.assertIn("Now write a long essay", users[1])
        self.assertEqual([u["kind"] for u in replay if u["sessionUpdate"] == "tool_call"],
                         ["read", "edit"])
        self.assertIn("Done editing.", [u["content"]["text"] for u in replay
                                        if u["sessionUpdate"] == "agent_message_chunk"])
        # The model saw the resource link and the edit's result.
        bodies = m.bodies()
        self.assertIn("file://%s/notes.txt" % work, json.dumps(bodies[0]["messages"]))


class AcpEditor(ZeroTest):
    """The SDK client as an editor that offers its files and terminals
    (tests/acp/client_editor.mjs), two sessions in one process."""

    def test_files_terminals_mcp_and_two_sessions_through_the_sdk_client(self):
        client_dir = require_acp_sdk(self)
        work = os.path.realpath(self.work)
        notes = os.path.join(work, "notes.txt")
        with open(notes, "w") as f:
            f.write("alpha ON DISK\n")  # the editor's buffer says otherwise
        with open(os.path.join(work, "other.txt"), "w") as f:
            f.write("one\ntwo\n")
        patch = ("*** Begin Patch\n*** Update File: other.txt\n one\n-two\n+TWO\n"
                 "*** Add File: added.txt\n+new file\n*** End Patch\n")
        m = self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": "edit_file", "arguments": {
                "path": "notes.txt", "old_string": "alpha", "new_string": "beta"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "cat notes.txt; echo ran-in-terminal; echo env=[$EDITOR_ONLY]"}}]},
            {"tool_calls": [{"name": "apply_patch", "arguments": {"input": patch}}]},
            {"tool_calls": [{"name": "update_plan", "arguments": {"plan": [
                {"step": "edit notes", "status": "completed"},
                {"step": "report", "status": "in_progress"}]}}]},
            {"tool_calls": [{"name": "mcp_ed_grow", "arguments": {}}]},
            {"text": "A is done."},
            {"text": "B answers."},
        ])
        mcp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp",
                           "fake_mcp_server.py")
        r = subprocess.run(["node", os.path.join(client_dir, "client_editor.mjs"), ZERO_BIN,
                            work, mcp], env=self.env, capture_output=True, text=True,
                           timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(out["exit"], 0)
        a, b = out["a"]["sessionId"], out["b"]["sessionId"]
        self.assertNotEqual(a, b)
        self.assertEqual(out["promptA"], {"stopReason": "end_turn"})
        self.assertEqual(out["promptB"], {"stopReason": "end_turn"})
        self.assertTrue(out["init"]["agentCapabilities"]["mcpCapabilities"]["http"])

        reqs = out["requests"]
        methods = [q["method"] for q in reqs]
        # The read came from the editor's unsaved buffer; the edit went back through it.
        reads = [q["params"]["path"] for q in reqs if q["method"] == "fs/read_text_file"]
        self.assertIn(notes, reads)
        writes = [q["params"] for q in reqs if q["method"] == "fs/write_text_file"]
        self.assertEqual(writes[0], {"sessionId": a, "path": notes, "content": "beta UNSAVED\n"})
        ups_a = [u["update"] for u in out["updates"] if u["sessionId"] == a]
        results = "\n".join(c["content"]["text"] for u in ups_a
                            if u["sessionUpdate"] == "tool_call_update"
                            for c in u.get("content", []) if c.get("type") == "content")
        self.assertIn("alpha UNSAVED", results)
        self.assertNotIn("ON DISK", results)
        # The command ran in the editor's terminal, shown in its tool call, without the
        # editor's environment; the terminal was released.
        self.assertIn("terminal/create", methods)
        self.assertIn("terminal/release", methods)
        self.assertIn("ran-in-terminal", results)
        self.assertIn("beta UNSAVED", results)
        self.assertIn("env=[]", results)
        exec_call = [u for u in ups_a if u["sessionUpdate"] == "tool_call"
                     and u["kind"] == "execute"][0]
        shown = [c for u in ups_a if u["sessionUpdate"] == "tool_call_update"
                 and u["toolCallId"] == exec_call["toolCallId"] for c in u.get("content", [])
                 if c.get("type") == "terminal"]
        self.assertEqual(len(shown), 1)
        # apply_patch: a diff per file, the whole file before and after.
        patch_call = [u for u in ups_a if u["sessionUpdate"] == "tool_call"
                      and u["title"].startswith("apply_patch")][0]
        diffs = {d["path"]: d for d in patch_call["content"] if d["type"] == "diff"}
        self.assertEqual(diffs[os.path.join(work, "other.txt")]["oldText"], "one\ntwo\n")
        self.assertEqual(diffs[os.path.join(work, "other.txt")]["newText"], "one\nTWO\n")
        self.assertIsNone(diffs[os.path.join(work, "added.txt")].get("oldText"))
        self.assertEqual([l["path"] for l in patch_call["locations"]],
                         [os.path.join(work, "other.txt"), os.path.join(work, "added.txt")])
        with open(os.path.join(work, "other.txt")) as f:
            self.assertEqual(f.read(), "one\nTWO\n")
        # The plan, the mode switch, the editor's MCP server's tool.
        plans = [u for u in ups_a if u["sessionUpdate"] == "plan"]
        self.assertEqual([e["status"] for e in plans[-1]["entries"]], ["completed", "in_progress"])
        self.assertEqual([u["currentModeId"] for u in ups_a
                          if u["sessionUpdate"] == "current_mode_update"], ["auto"])
        grow = [u for u in ups_a if u["sessionUpdate"] == "tool_call"
                and u["title"].startswith("mcp_ed_grow")]
        self.assertEqual(len(grow), 1)
        done = [u for u in ups_a if u["sessionUpdate"] == "tool_call_update"
                and u["toolCallId"] == grow[0]["toolCallId"]]
        self.assertEqual(done[-1]["status"], "completed", done)
        # Session B: its own conversation, tools and updates.
        bodies = m.bodies()
        last = json.dumps(bodies[-1]["messages"])
        self.assertIn("Hello from session B", last)
        self.assertNotIn("Fix the notes", last)
        self.assertIn("mcp_ed_grow", json.dumps(bodies[0].get("tools", [])))
        self.assertNotIn("mcp_ed_grow", json.dumps(bodies[-1].get("tools", [])))
        ups_b = [u["update"] for u in out["updates"] if u["sessionId"] == b]
        self.assertEqual("".join(u["content"]["text"] for u in ups_b
                                 if u["sessionUpdate"] == "agent_message_chunk"), "B answers.")


class AcpWire(ZeroTest):
    """The same server spoken to line by line (no SDK needed)."""

    def talk(self, messages):
        """Sends each request and reads until its response (stdin stays open:
        its end cancels a running prompt); returns every message read."""
        p = subprocess.Popen([ZERO_BIN, "acp"], cwd=self.work, env=self.env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        out = []
        try:
            for msg in messages:
                p.stdin.write(json.dumps(msg) + "\n")
                p.stdin.flush()
                while True:
                    line = p.stdout.readline()
                    self.assertTrue(line, "zero acp closed its output")
                    out.append(json.loads(line))
                    if out[-1].get("id") == msg["id"] and "method" not in out[-1]:
                        break
            p.stdin.close()
            self.assertEqual(p.wait(timeout=30), 0)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        return out

    def test_a_cancel_stops_one_sessions_prompt_and_leaves_the_other_running(self):
        """Two sessions stream at once (prompts of different sessions run
        concurrently). Cancelling B answers B "cancelled" and leaves A
        running; cancelling A then ends A. Each prompt reached the model once."""
        essay = " ".join("w%d" % i for i in range(400))
        m = self.serve([{"match": "prompt of A", "text": essay, "hang_after_bytes": 800},
                        {"match": "prompt of B", "text": essay, "hang_after_bytes": 800}])
        work = os.path.realpath(self.work)
        ed = Editor(ZERO_BIN, work, self.env)

        def streams(sid):
            return lambda e: any(u["sessionId"] == sid and
                                 u["update"]["sessionUpdate"] == "agent_message_chunk"
                                 for u in e.updates)
        try:
            ed.initialize(fs=False, terminal=False)
            a = ed.request("session/new", {"cwd": work, "mcpServers": []})["result"]["sessionId"]
            b = ed.request("session/new", {"cwd": work, "mcpServers": []})["result"]["sessionId"]
            pa = ed.start("session/prompt", {"sessionId": a, "prompt": [
                {"type": "text", "text": "prompt of A"}]})
            ed.until(streams(a))
            pb = ed.start("session/prompt", {"sessionId": b, "prompt": [
                {"type": "text", "text": "prompt of B"}]})
            ed.until(streams(b))  # B streams while A has not ended
            self.assertNotIn(pa, ed.answers)
            ed.notify("session/cancel", {"sessionId": b})
            self.assertEqual(ed.wait(pb)["result"], {"stopReason": "cancelled"})
            # A round trip after B's answer: A is still running.
            ed.request("session/set_mode", {"sessionId": b, "modeId": "auto"})
            self.assertNotIn(pa, ed.answers, "cancelling B ended A")
            ed.notify("session/cancel", {"sessionId": a})
            self.assertEqual(ed.wait(pa)["result"], {"stopReason": "cancelled"})
        finally:
            self.assertEqual(ed.close(), 0)
        bodies = [json.dumps(x["messages"]) for x in m.bodies()]
        self.assertEqual(len(bodies), 2)
        self.assertEqual(sum("prompt of A" in x for x in bodies), 1)
        self.assertEqual(sum("prompt of B" in x for x in bodies), 1)

    def test_always_allow_is_saved_as_zeros_grant(self):
        """"Always allow" from the editor is zero's ZGRANT_ALWAYS: the same
        write is not asked again in this prompt, nor in a new process."""
        work = os.path.realpath(self.work)

        def write(text):
            return {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "kept.txt", "content": text, "overwrite": True}}]}
        read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "kept.txt"}}]}
        self.serve([write("one\n"), write("two\n"), {"text": "Written twice."},
                    read, write("three\n"), {"text": "Written again."}])
        asked = []
        for prompt, answer in (("write it twice", "allow-always"), ("write it again", "reject-once")):
            ed = Editor(ZERO_BIN, work, self.env, answer=answer)
            try:
                ed.initialize(fs=False, terminal=False)
                sid = ed.request("session/new", {"cwd": work, "mcpServers": []})["result"]["sessionId"]
                done = ed.request("session/prompt", {"sessionId": sid, "prompt": [
                    {"type": "text", "text": prompt}]})
                self.assertEqual(done["result"], {"stopReason": "end_turn"})
            finally:
                self.assertEqual(ed.close(), 0)
            asked.append([p for m, p in ed.requests if m == "session/request_permission"])
        self.assertEqual(len(asked[0]), 1)
        self.assertIn("allow_always", [o["kind"] for o in asked[0][0]["options"]])
        self.assertEqual(asked[1], [])  # the saved grant answered, not the editor
        with open(os.path.join(work, "kept.txt")) as f:
            self.assertEqual(f.read(), "three\n")

    def test_no_provider_key_is_authentication_required(self):
        for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
            self.env.pop(k, None)
        out = self.talk([
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
            {"jsonrpc": "2.0", "id": 2, "method": "session/new",
             "params": {"cwd": os.path.realpath(self.work), "mcpServers": []}},
        ])
        self.assertEqual(out[0]["result"]["authMethods"][0]["id"], "zero-provider")
        self.assertEqual(out[1]["id"], 2)
        self.assertEqual(out[1]["error"]["code"], -32000, out[1])

    def test_an_image_in_the_prompt_reaches_the_model(self):
        png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
               "awAAAABJRU5ErkJggg==")
        m = self.serve([{"text": "A dot."}])
        work = os.path.realpath(self.work)
        out = self.talk([
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
            {"jsonrpc": "2.0", "id": 2, "method": "session/new",
             "params": {"cwd": work, "mcpServers": []}},
        ])
        sid = out[1]["result"]["sessionId"]
        out = self.talk([
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
            {"jsonrpc": "2.0", "id": 2, "method": "session/load",
             "params": {"sessionId": sid, "cwd": work, "mcpServers": []}},
            {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
                "sessionId": sid, "prompt": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "mimeType": "image/png", "data": png},
                    {"type": "resource", "resource": {"uri": "file:///x.txt", "text": "xyz"}}]}},
        ])
        done = [o for o in out if o.get("id") == 3]
        self.assertEqual(done[0]["result"], {"stopReason": "end_turn"})
        user = m.bodies()[0]["messages"][-1]
        self.assertIn(png, json.dumps(user))
        self.assertIn("xyz", json.dumps(user))
        self.assertIn("What is this?", json.dumps(user))


if __name__ == "__main__":
    main()
