"""Compaction with a scripted summarizer (the fake model server plays both the
main model and the summarizer): the threshold fires at the right size, the
preserved objective survives two compactions, the cheap summarizer's failure
falls back once, a context-length error prunes for free first and pays for a
summary only once per run, and the compacted request fits the window."""
import json
import os

from harness import ZeroTest, main

WINDOW = 11500          # tokens, via ZERO_CONTEXT_WINDOW; sized to the request's tool schemas (built-ins + task tools)
LIMIT = int(WINDOW * 0.7)
OBJECTIVE = "Refactor the parser module and keep every test green (objective marker 7f3a)"


def big_file(i, kib=5):
    line = "line %d of file %d: some ordinary source text to read back\n"
    out, n = [], 0
    while sum(len(x) for x in out) < kib * 1024:
        out.append(line % (n, i))
        n += 1
    return "".join(out)


def read_turn(i):
    return {"tool_calls": [{"name": "read_file", "arguments": {"path": "f%d.txt" % i}}]}


def is_summary_request(body):
    return body["messages"][0]["role"] == "system" and \
        body["messages"][0]["content"].startswith("You summarize")


def request_bytes(body):
    return len(json.dumps(body["messages"])) + len(json.dumps(body.get("tools", [])))


class Compaction(ZeroTest):
    def setUp(self):
        super().setUp()
        for i in range(12):
            with open(os.path.join(self.work, "f%d.txt" % i), "w") as f:
                f.write(big_file(i))
        self.env["ZERO_CONTEXT_WINDOW"] = str(WINDOW)
        self.env["ZERO_COMPACTION_MODEL"] = "cheap-model"

    def compactions(self, sid):
        return [e for e in self.session_events(sid) if e["type"] == "session_compaction"]

    def test_threshold_fires_and_objective_survives_two_compactions(self):
        # The system prompt and the 12 tool schemas are ~3900 tokens and each
        # read adds ~1400: the 4th request crosses 70% of 10500 (7350) and is
        # compacted; the 6th crosses again. (WINDOW follows the size of the
        # tool schemas: a new tool moves these crossings.)
        turns = [read_turn(0), read_turn(1), read_turn(2),
                 {"text": "summary one: read f0 to f2"},
                 read_turn(3), read_turn(4),
                 {"text": "summary two: read f0 to f4"},
                 read_turn(5), {"text": "finished"}]
        m = self.serve(turns, model="main-model")
        r = self.zero("exec", "-o", "json", OBJECTIVE)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        summ = [i for i, b in enumerate(bodies) if is_summary_request(b)]
        self.assertEqual(len(summ), 2, [b["model"] for b in bodies])
        for i in summ:
            self.assertEqual(bodies[i]["model"], "cheap-model")
            self.assertNotIn("tools", bodies[i])
        # Before the first summary the requests were under the limit; the one
        # that would have crossed it was compacted instead.
        first = summ[0]
        for b in bodies[:first]:
            self.assertLess(request_bytes(b) / 4, LIMIT * 1.1)
        for i in summ:
            after = bodies[i + 1]
            self.assertFalse(is_summary_request(after))
            first_user = after["messages"][1]
            self.assertEqual(first_user["role"], "user")
            self.assertIn("<preserved-state>", first_user["content"])
            self.assertIn("Objective: " + OBJECTIVE, first_user["content"])
            # The compacted request fits the window's threshold.
            self.assertLess(request_bytes(after) / 4, LIMIT)
            # Every tool call in it still has its result.
            calls = {c["id"] for x in after["messages"] if x["role"] == "assistant"
                     for c in x.get("tool_calls") or []}
            answered = {x["tool_call_id"] for x in after["messages"] if x["role"] == "tool"}
            self.assertEqual(calls, answered)
        self.assertIn("summary two", bodies[summ[1] + 1]["messages"][1]["content"])
        sid = json.loads(r.stdout.splitlines()[0])["sessionId"] if r.stdout.startswith("{") else None
        sid = sid or self.session_ids()[0]
        comp = self.compactions(sid)
        self.assertEqual(len(comp), 2)
        self.assertEqual(comp[1]["payload"]["taskState"]["objective"], OBJECTIVE)

        # Resume starts from the last summary, not from the beginning.
        m2 = self.serve([{"text": "resumed"}], model="main-model")
        r = self.zero("exec", "--resume", sid, "-o", "json", "what next?")
        self.assertEqual(r.returncode, 0, r.stderr)
        msgs = m2.bodies()[0]["messages"]
        self.assertIn("summary two", msgs[1]["content"])
        self.assertIn("Objective: " + OBJECTIVE, msgs[1]["content"])
        self.assertNotIn(OBJECTIVE, [x.get("content") for x in msgs[2:]])
        self.assertEqual(msgs[-1]["content"], "what next?")

    def test_stream_json_reports_each_compaction(self):
        turns = [read_turn(0), read_turn(1), read_turn(2),
                 {"text": "summary one: read f0 to f2"},
                 read_turn(3), {"text": "finished"}]
        self.serve(turns, model="main-model")
        r = self.zero("exec", "-o", "stream-json", OBJECTIVE)
        self.assertEqual(r.returncode, 0, r.stderr)
        events = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        comp = [e for e in events if e["type"] == "compaction"]
        self.assertEqual(len(comp), 1, [e["type"] for e in events])
        self.assertEqual(comp[0]["method"], "summary")
        self.assertEqual(comp[0]["reason"], "threshold")
        self.assertGreater(comp[0]["tokensBefore"], LIMIT)
        self.assertLess(comp[0]["tokensAfter"], LIMIT)
        # It comes before the request it made room for: after the third result.
        kinds = [e["type"] for e in events]
        self.assertLess(kinds.index("compaction"), len(kinds) - 1)
        self.assertEqual(kinds[:kinds.index("compaction")].count("tool_result"), 3)

    def test_cheap_summarizer_failure_falls_back_once(self):
        bad = {"status": 400, "error": {"message": "The model cheap-model does not exist",
                                        "type": "invalid_request_error"}}
        turns = [read_turn(0), read_turn(1), read_turn(2), bad, {"text": "main summary one"},
                 read_turn(3), read_turn(4), {"text": "main summary two"},
                 {"text": "done"}]
        m = self.serve(turns, model="main-model")
        r = self.zero("exec", "-o", "json", OBJECTIVE)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        summ = [b["model"] for b in bodies if is_summary_request(b)]
        # cheap (fails) -> main for the same slice; the next compaction goes
        # straight to the main model.
        self.assertEqual(summ, ["cheap-model", "main-model", "main-model"])
        # Both summaries of the same slice got the same transcript.
        s = [b for b in bodies if is_summary_request(b)]
        self.assertEqual(s[0]["messages"][1]["content"], s[1]["messages"][1]["content"])

    def test_context_length_error_prunes_free_first_then_summarizes_once(self):
        self.env["ZERO_CONTEXT_WINDOW"] = "128000"
        overflow = {"status": 400, "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your "
                       "messages resulted in 9000 tokens. Please reduce the length of the "
                       "messages.", "type": "invalid_request_error",
            "code": "context_length_exceeded"}}
        turns = [read_turn(0), read_turn(1), read_turn(2), read_turn(3),
                 overflow,                       # -> free prune, retry
                 overflow,                       # -> one paid summary, retry
                 {"text": "the summary"},        # summarizer
                 {"text": "recovered"}]
        m = self.serve(turns, model="main-model")
        r = self.zero("exec", "-o", "json", OBJECTIVE)
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertEqual(sum(1 for b in bodies if is_summary_request(b)), 1)
        pruned = bodies[5]  # the retry after the first overflow
        self.assertFalse(is_summary_request(pruned))
        outs = [x["content"] for x in pruned["messages"] if x["role"] == "tool"]
        self.assertTrue(any("removed to save context" in o for o in outs), outs)
        self.assertEqual(len(json.dumps(pruned["messages"])) < len(json.dumps(bodies[4]["messages"])),
                         True)
        final = bodies[-1]
        self.assertIn("<preserved-state>", final["messages"][1]["content"])

    def test_context_length_error_pays_for_one_summary_per_run(self):
        self.env["ZERO_CONTEXT_WINDOW"] = "128000"
        overflow = {"status": 400, "error": {
            "message": "maximum context length exceeded", "type": "invalid_request_error"}}
        turns = [read_turn(0), read_turn(1), read_turn(2), read_turn(3),
                 overflow, overflow, {"text": "the summary"}, overflow, overflow]
        m = self.serve(turns, model="main-model")
        r = self.zero("exec", "-o", "json", OBJECTIVE)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(sum(1 for b in m.bodies() if is_summary_request(b)), 1)


if __name__ == "__main__":
    main()
