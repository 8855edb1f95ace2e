"""The fake server's lab extensions (bench/lab): --auto-answer answers an
agent's side requests in any protocol without consuming the script, and so
does --auto-answer-user for a request whose last user message asks for
something (Claude Code's compaction keeps its system prompt), and a
Responses tool call marked "custom" becomes a freeform custom_tool_call item
(Codex's apply_patch)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_SERVER = os.path.join(HERE, "fake_server.py")


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read().decode()


def sse_events(text):
    out = []
    for block in text.split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: ") and line[6:] != "[DONE]":
                out.append(json.loads(line[6:]))
    return out


class FakeServerLabTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="fake-lab-")
        script = os.path.join(self.dir, "script.json")
        patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n"
        with open(script, "w") as f:
            json.dump([{"tool_calls": [{"name": "apply_patch", "custom": True, "input": patch,
                                        "id": "call_p"}]},
                       {"text": "scripted answer"}], f)
        self.patch = patch
        self.log = os.path.join(self.dir, "log.jsonl")
        self.proc = subprocess.Popen(
            [sys.executable, FAKE_SERVER, script, "--log", self.log,
             "--auto-answer", "You are a title generator=Side title",
             "--auto-answer-user", "create a detailed summary=<summary>S</summary>"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        self.assertTrue(line.startswith("PORT "), line)
        self.base = "http://127.0.0.1:%d" % int(line.split()[1])

    def tearDown(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.proc.stdout.close()
        self.proc.stderr.close()
        for f in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, f))
        os.rmdir(self.dir)

    def test_custom_tool_call_then_side_requests_do_not_consume_turns(self):
        # A title request in Chat form, before any scripted turn.
        chat = post(self.base + "/v1/chat/completions", {
            "model": "m", "stream": True,
            "messages": [{"role": "system", "content": "You are a title generator. Be brief."},
                         {"role": "user", "content": "hi"}]})
        text = "".join(e["choices"][0]["delta"].get("content") or ""
                       for e in sse_events(chat) if e.get("choices"))
        self.assertEqual(text, "Side title")
        # The first scripted turn over Responses: a custom_tool_call item.
        resp = post(self.base + "/v1/responses", {"model": "m", "stream": True, "input": []})
        events = sse_events(resp)
        done = [e for e in events if e["type"] == "response.output_item.done"]
        self.assertEqual(len(done), 1)
        item = done[0]["item"]
        self.assertEqual(item["type"], "custom_tool_call")
        self.assertEqual(item["name"], "apply_patch")
        self.assertEqual(item["call_id"], "call_p")
        self.assertEqual(item["input"], self.patch)
        deltas = "".join(e["delta"] for e in events
                         if e["type"] == "response.custom_tool_call_input.delta")
        self.assertEqual(deltas, self.patch)
        self.assertEqual(events[-1]["type"], "response.completed")
        # A title request in Responses form (instructions) still does not consume.
        side = post(self.base + "/v1/responses", {"model": "m", "stream": True, "input": [],
                                                  "instructions": "You are a title generator."})
        self.assertIn("Side title", side)
        # The second scripted turn is still there.
        resp = post(self.base + "/v1/responses", {"model": "m", "stream": True, "input": []})
        self.assertIn("scripted answer", resp)
        with open(self.log) as f:
            turns = [json.loads(l)["turn"] for l in f]
        self.assertEqual(turns, [None, 0, None, 1])

    def test_a_request_by_its_last_user_message_does_not_consume_a_turn(self):
        def messages(last_user_text):
            return {"model": "m", "stream": True, "max_tokens": 100,
                    "system": [{"type": "text", "text": "You are an agent."}],
                    "messages": [{"role": "user", "content": "work"},
                                 {"role": "assistant", "content": "ok"},
                                 {"role": "user", "content": [
                                     {"type": "text", "text": last_user_text}]}]}
        # The words in an earlier message, or no user text last: scripted.
        early = messages("go on")
        early["messages"][0]["content"] = "please create a detailed summary later"
        def text(resp):
            return "".join(e["delta"].get("text", "") for e in sse_events(resp)
                           if e.get("type") == "content_block_delta")
        first = post(self.base + "/v1/messages", early)
        self.assertNotIn("<summary>", text(first))
        side = post(self.base + "/v1/messages",
                    messages("Your task is to create a detailed summary of it."))
        self.assertEqual(text(side), "<summary>S</summary>")
        last = post(self.base + "/v1/messages", messages("continue"))
        self.assertEqual(text(last), "scripted answer")
        with open(self.log) as f:
            turns = [json.loads(l)["turn"] for l in f]
        self.assertEqual(turns, [0, None, 1])

    def test_a_gemini_unary_side_request_gets_one_json_answer(self):
        """Gemini CLI's loop check is a unary generateContent call: the side
        answer is one JSON response (a stream there was "not valid JSON")."""
        out = post(self.base + "/v1beta/models/gemini-2.5-flash:generateContent", {
            "systemInstruction": {"parts": [{"text": "You are a title generator."}]},
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
        answer = json.loads(out)
        self.assertEqual(answer["candidates"][0]["content"]["parts"], [{"text": "Side title"}])
        self.assertEqual(answer["modelVersion"], "gemini-2.5-flash")
        with open(self.log) as f:
            self.assertEqual([json.loads(l)["turn"] for l in f], [None])

    def test_bad_auto_answer_spec_is_refused(self):
        r = subprocess.run([sys.executable, FAKE_SERVER, os.path.join(self.dir, "script.json"),
                            "--auto-answer", "no-equals"],
                           capture_output=True, text=True, timeout=10)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("PREFIX=TEXT", r.stderr)
        r = subprocess.run([sys.executable, FAKE_SERVER, os.path.join(self.dir, "script.json"),
                            "--auto-answer-user", "=no words"],
                           capture_output=True, text=True, timeout=10)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("WORDS=TEXT", r.stderr)


if __name__ == "__main__":
    unittest.main()
