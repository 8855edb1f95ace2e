"""Sub-agents through the real binary and the fake model server: the parent's
`task` call starts a child `zero exec` whose requests the same script
answers (the child is another request stream, in order), so a test scripts
the parent's turns and the child's turns together."""
import json
import os
import signal
import subprocess
import sys
import time

from harness import ZeroTest, main


def tool_messages(body):
    return [m for m in body["messages"] if m["role"] == "tool"]


def tool_names(body):
    return sorted(t["function"]["name"] for t in body.get("tools", []))


class Delegation(ZeroTest):
    def write(self, rel, text):
        path = os.path.join(self.work, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_explore_child_runs_two_tools_and_parent_gets_only_its_answer(self):
        self.write("a.txt", "hello world\n")
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "find a", "prompt": "What does a.txt say?", "agent": "explore"}}]},
            {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}},
                            {"name": "read_file", "arguments": {"path": "a.txt"}}]},
            {"text": "CHILD ANSWER: a.txt says hello world"},
            {"text": "Parent done."},
        ])
        r = self.zero("exec", "-o", "stream-json", "delegate it")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bodies = m.bodies()
        self.assertEqual(len(bodies), 4)
        # The child: explore's read-only tools, its role in the system prompt,
        # the task's prompt as its user message, its own two tool results.
        self.assertNotIn("exec_command", tool_names(bodies[1]))
        self.assertNotIn("task", tool_names(bodies[1]))
        self.assertIn("read_file", tool_names(bodies[1]))
        self.assertIn("explore sub-agent", bodies[1]["messages"][0]["content"])
        self.assertEqual(bodies[1]["messages"][-1]["content"], "What does a.txt say?")
        self.assertEqual(len(tool_messages(bodies[2])), 2)
        self.assertIn("hello world", tool_messages(bodies[2])[1]["content"])
        # The parent's next request carries only the child's answer.
        parent_tools = tool_messages(bodies[3])
        self.assertEqual(len(parent_tools), 1)
        self.assertEqual(parent_tools[0]["content"], "CHILD ANSWER: a.txt says hello world")
        self.assertNotIn("glob", json.dumps(bodies[3]["messages"]))
        # stream-json: start, the child's events, end, all with its session id.
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        start = [e for e in evs if e["type"] == "subagent_start"]
        end = [e for e in evs if e["type"] == "subagent_end"]
        self.assertEqual(len(start), 1)
        self.assertEqual(len(end), 1)
        child = start[0]["childSessionId"]
        self.assertEqual(start[0]["agent"], "explore")
        self.assertEqual(end[0]["childSessionId"], child)
        self.assertEqual(end[0]["status"], "success")
        self.assertGreater(end[0]["usage"]["totalTokens"], 0)
        inner = [e["event"]["type"] for e in evs if e["type"] == "subagent_event"]
        self.assertEqual(inner.count("tool_call"), 2)
        self.assertIn("run_end", inner)
        # The child's session is a child in the session tree.
        parent = evs[0]["sessionId"]
        t = self.zero("sessions", "tree", parent, "--json")
        self.assertEqual(t.returncode, 0, t.stderr)
        tree = json.loads(t.stdout)
        self.assertEqual(tree["children"][0]["sessionId"], child)
        self.assertEqual(tree["children"][0]["sessionKind"], "child")
        # The parent's session records the delegation's start and end (the
        # child's steps stay in its own session).
        rec = [e for e in self.session_events(parent) if e["type"].startswith("subagent_")]
        self.assertEqual([e["type"] for e in rec], ["subagent_start", "subagent_end"])
        self.assertEqual({e["payload"]["childSessionId"] for e in rec}, {child})
        self.assertEqual(rec[0]["payload"]["agent"], "explore")
        self.assertEqual(rec[1]["payload"]["status"], "success")
        self.assertGreater(rec[1]["payload"]["usage"]["totalTokens"], 0)

    def test_a_child_answering_beyond_ascii_is_not_malformed(self):
        # Regression: the child's stream-json lines went through the
        # ASCII-only fast parser alone, so a child whose answer (or any event)
        # held a non-ASCII character was stopped as "malformed".
        answer = "Réponse : ça marche ✓ — fin"
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "résumé", "prompt": "Résume", "agent": "explore"}}]},
            {"text": answer},
            {"text": "Parent done."},
        ])
        r = self.zero("exec", "-o", "stream-json", "delegate it")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        end = [e for e in self.lines(r.stdout) if e["type"] == "subagent_end"]
        self.assertEqual(end[0]["status"], "success", end)
        self.assertEqual(tool_messages(m.bodies()[2])[0]["content"], answer)

    def test_child_cannot_use_a_tool_outside_its_allow_list(self):
        marker = os.path.join(self.work, "made-by-child")
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "x", "prompt": "write a file", "agent": "explore"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "made-by-child", "content": "x"}},
                {"name": "exec_command", "arguments": {"cmd": "touch made-by-child"}}]},
            {"text": "could not"},
            {"text": "ok"},
        ])
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertFalse(os.path.exists(marker))
        results = tool_messages(m.bodies()[2])
        self.assertEqual(len(results), 2)
        for res in results:
            self.assertRegex(res["content"].lower(), "not available|unknown tool|disabled|not enabled")

    def test_unknown_agent_and_broken_definition_are_tool_errors(self):
        self.write(".zero/agents/broken.md", "---\nname: broken\ntools: [read_file, nope]\n---\nx\n")
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "x", "prompt": "p", "agent": "nobody"}},
                {"name": "task", "arguments": {
                    "description": "x", "prompt": "p", "agent": "broken"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = tool_messages(m.bodies()[1])
        self.assertIn('unknown agent "nobody"', res[0]["content"])
        self.assertIn("explore", res[0]["content"])
        self.assertIn('tool "nope" does not exist', res[1]["content"])
        self.assertEqual(len(m.bodies()), 2)  # no child ever asked the model

    def test_depth_limit_refuses_a_task_at_the_limit(self):
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "d1", "prompt": "go deeper", "agent": "general"}}]},
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "d2", "prompt": "go deeper still", "agent": "general"}}]},
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "d3", "prompt": "and deeper", "agent": "general"}}]},
            {"text": "grandchild gave up"},
            {"text": "child done"},
            {"text": "parent done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bodies = m.bodies()
        self.assertEqual(len(bodies), 6)
        refused = tool_messages(bodies[3])[0]["content"]
        self.assertIn("task refused", refused)
        self.assertIn("depth 2", refused)
        self.assertEqual(tool_messages(bodies[4])[0]["content"], "grandchild gave up")
        self.assertEqual(tool_messages(bodies[5])[0]["content"], "child done")

    def two_servers_and_a_prober(self):
        """MCP servers p (tool probe) and b (tool big) in the user config, and
        a specialist `prober` allowed read_file and p's probe only."""
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp",
                            "fake_mcp_server.py")
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {
                "p": {"command": sys.executable, "args": [fake, "probe"]},
                "b": {"command": sys.executable, "args": [fake, "big"]}}}}, f)
        self.write(".zero/agents/prober.md",
                   "---\nname: prober\ndescription: probes\n"
                   "tools: [read_file, mcp__p__probe]\n---\nProbe.\n")

    def test_an_allow_list_narrows_mcp_tools_one_by_one(self):
        # A specialist that names one MCP tool gets that tool, not every
        # configured server's (before: all of them); Claude Code's spelling
        # mcp__server__tool names zero's mcp_server_tool.
        self.two_servers_and_a_prober()
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "x", "prompt": "probe it", "agent": "prober"}}]},
            {"tool_calls": [{"name": "mcp_b_big", "arguments": {}}]},
            {"text": "child done"},
            {"text": "parent done"},
        ])
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", "go",
                      timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bodies = m.bodies()
        parent_tools, child_tools = tool_names(bodies[0]), tool_names(bodies[1])
        self.assertIn("mcp_b_big", parent_tools)  # the parent has every server's tools
        self.assertIn("mcp_p_probe", child_tools)
        self.assertNotIn("mcp_b_big", child_tools)
        self.assertEqual(sorted(t for t in child_tools if t.startswith("mcp_")),
                         ["mcp_p_probe"])
        refused = tool_messages(bodies[2])[0]["content"].lower()
        self.assertRegex(refused, "not available|unknown tool|disabled|not enabled")
        self.assertNotIn("a lot of text", refused)

    def test_tool_search_names_only_the_tools_an_allow_list_leaves(self):
        # With MCP schemas deferred (threshold 0), the child finds tools by
        # tool_search; a tool outside its specialist's allow-list is not
        # named (it would only lead to a call that is denied) nor activated.
        self.two_servers_and_a_prober()
        self.env["ZERO_MCP_DEFER_THRESHOLD"] = "0"
        m = self.serve([
            {"tool_calls": [{"name": "tool_search", "arguments": {"query": "big b p probe"}}]},
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "x", "prompt": "probe it", "agent": "prober"}}]},
            {"tool_calls": [{"name": "tool_search", "arguments": {"query": "big b p probe"}}]},
            {"text": "child done"},
            {"text": "parent done"},
        ])
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", "go",
                      timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bodies = m.bodies()
        parent_found = tool_messages(bodies[1])[0]["content"]
        self.assertIn("mcp_b_big", parent_found)  # the parent may use both
        self.assertIn("mcp_p_probe", parent_found)
        child_found = tool_messages(bodies[3])[0]["content"]
        self.assertIn("mcp_p_probe", child_found)
        self.assertNotIn("mcp_b_big", child_found)
        self.assertIn("mcp_p_probe", tool_names(bodies[3]))  # activated for the child
        self.assertNotIn("mcp_b_big", tool_names(bodies[3]))

    def test_definition_from_workspace_and_agents_list(self):
        self.write(".zero/agents/tester.md",
                   "---\nname: tester\ndescription: writes tests\ntools: read_file, grep\n"
                   "permissionMode: plan\n---\nYou write tests.\n")
        r = self.zero("agents", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        defs = {d["name"]: d for d in json.loads(r.stdout)}
        self.assertEqual(set(defs) >= {"general", "explore", "review", "tester"}, True)
        self.assertEqual(defs["tester"]["tools"], ["read_file", "grep"])
        self.assertEqual(defs["tester"]["permissionMode"], "plan")
        self.assertEqual(defs["general"]["tools"], None)
        t = self.zero("agents", "list")
        self.assertIn("tester", t.stdout)
        self.assertIn("writes tests", t.stdout)


def ps_lines(needle):
    """Processes whose command line holds needle (checked with ps)."""
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if needle in l and "ps -eo" not in l]


# Parallel request streams: parent turns match the parent's prompt, child
# turns the child's role line (see "match" in tests/e2e/README.md).
PARENT = "PARENT-PROMPT-7Q"
CHILD = "the explore sub-agent"


def child_session(evs):
    """The session id of the first sub-agent the events say was started."""
    return [e for e in evs if e["type"] == "subagent_start"][0]["childSessionId"]


def parent_calls(name, **arguments):
    """The parent's turn that calls one tool."""
    return {"match": PARENT, "tool_calls": [{"name": name, "arguments": arguments}]}


class Background(ZeroTest):
    def test_started_polled_and_stopped_leaves_no_process(self):
        m = self.serve([
            parent_calls("task", description="slow", prompt="take your time", agent="explore",
                         background=True),
            {"match": CHILD, "text": "too late", "delay_before_ms": 20000},
            parent_calls("task_output", task_id="bg-1"),
            parent_calls("task_stop", task_id="bg-1"),
            parent_calls("task_output", task_id="bg-1"),
            {"match": PARENT, "text": "stopped it"},
        ])
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.lines(r.stdout)
        results = [e for e in evs if e["type"] == "tool_result"]
        self.assertIn("Started background task bg-1", results[0]["output"])
        self.assertIn("still running", results[1]["output"])
        self.assertIn("Stopped task bg-1", results[2]["output"])
        self.assertIn("(stopped)", results[3]["output"])
        child = child_session(evs)
        ends = [e for e in evs if e["type"] == "subagent_end"]
        self.assertEqual(len(ends), 1, ends)  # recorded once, though polled after the stop
        self.assertEqual(ends[0]["status"], "stopped")
        self.assertEqual(ps_lines(child), [])

    def test_poll_waits_for_the_answer_and_reports_the_end_once(self):
        self.serve([
            parent_calls("task", description="quick", prompt="answer", agent="explore",
                         background=True),
            {"match": CHILD, "text": "BG ANSWER"},
            parent_calls("task_output", task_id="bg-1", wait_ms=30000),
            parent_calls("task_output", task_id="bg-1"),
            {"match": PARENT, "text": "got it"},
        ])
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.lines(r.stdout)
        results = [e for e in evs if e["type"] == "tool_result"]
        self.assertEqual(results[1]["output"], "BG ANSWER")
        self.assertEqual(results[2]["output"], "BG ANSWER")
        ends = [e for e in evs if e["type"] == "subagent_end"]
        self.assertEqual(len(ends), 1)
        self.assertEqual(ends[0]["status"], "success")

    def test_run_end_stops_a_background_task_still_running(self):
        self.serve([
            parent_calls("task", description="slow", prompt="p", agent="explore", background=True),
            {"match": CHILD, "text": "late", "delay_before_ms": 20000},
            {"match": PARENT, "text": "leaving"},
        ])
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(ps_lines(child_session(self.lines(r.stdout))), [])


class BadChildren(ZeroTest):
    def test_child_that_crashes_is_a_tool_error_and_its_session_stays(self):
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "x", "prompt": "p", "agent": "explore"}}]},
            {"status": 401},
            {"text": "handled"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = tool_messages(m.bodies()[2])[0]["content"]
        self.assertIn('sub-agent "explore" did not finish', res)
        self.assertIn("zero sessions show", res)
        s = self.zero("sessions", "show", child_session(self.lines(r.stdout)))
        self.assertEqual(s.returncode, 0, s.stderr)

    def test_hung_child_is_stopped_after_the_idle_timeout(self):
        self.env["ZERO_SUBAGENT_IDLE_MS"] = "1500"
        m = self.serve([
            parent_calls("task", description="x", prompt="p", agent="explore"),
            {"match": CHILD, "text": "never", "delay_before_ms": 30000},
            {"match": PARENT, "text": "handled"},
        ])
        t0 = time.time()
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertLess(time.time() - t0, 25)
        res = tool_messages(m.bodies()[-1])[0]["content"]
        self.assertIn("(timeout)", res)
        self.assertEqual(ps_lines(child_session(self.lines(r.stdout))), [])


class AskUser(ZeroTest):
    def test_question_event_and_answer_from_stream_json_input(self):
        m = self.serve([
            {"tool_calls": [{"name": "ask_user", "arguments": {
                "question": "Which color?", "choices": ["red", "blue"]}}]},
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Anything else?"}}]},
            {"text": "painted blue"},
        ])
        stdin = "\n".join(json.dumps(x) for x in [
            {"schemaVersion": 2, "type": "prompt", "content": "paint it"},
            {"schemaVersion": 2, "type": "answer", "content": "blue"},
        ]) + "\n"
        r = self.zero("exec", "-i", "stream-json", "-o", "stream-json", input=stdin)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.lines(r.stdout)
        qs = [e for e in evs if e["type"] == "question"]
        self.assertEqual(len(qs), 2)
        self.assertEqual(qs[0]["question"], "Which color?")
        self.assertEqual(qs[0]["choices"], ["red", "blue"])
        bodies = m.bodies()
        self.assertEqual(bodies[0]["messages"][-1]["content"], "paint it")
        self.assertEqual(tool_messages(bodies[1])[0]["content"], "blue")
        self.assertIn("No user is available", tool_messages(bodies[2])[1]["content"])

    def test_answers_in_any_language_are_read(self):
        # Regression: answer lines went through the ASCII-only fast parser
        # alone, so an answer with an accent (or Python's \\u escapes) was
        # never read and the model was told no user is available.
        m = self.serve([
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Couleur ?"}}]},
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Et le ciel ?"}}]},
            {"text": "peint"},
        ])
        stdin = "\n".join([
            json.dumps({"schemaVersion": 2, "type": "prompt", "content": "peins-le"}),
            json.dumps({"schemaVersion": 2, "type": "answer", "content": "bleu clair — é"},
                       ensure_ascii=False),
            json.dumps({"schemaVersion": 2, "type": "answer", "content": "gris ☁"}),
        ]) + "\n"
        r = self.zero("exec", "-i", "stream-json", "-o", "stream-json", input=stdin)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bodies = m.bodies()
        self.assertEqual(tool_messages(bodies[1])[0]["content"], "bleu clair — é")
        self.assertEqual(tool_messages(bodies[2])[1]["content"], "gris ☁")

    def test_headless_without_input_proceeds(self):
        m = self.serve([
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Sure?"}}]},
            {"text": "assumed yes"},
        ])
        r = self.zero("exec", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No user is available", tool_messages(m.bodies()[1])[0]["content"])


if __name__ == "__main__":
    main()
