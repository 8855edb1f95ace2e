"""Sub-agents through the real binary and the fake model server: the parent's
`task` call starts a child `zero exec` whose requests the same script
answers (the child is another request stream, in order), so a test scripts
the parent's turns and the child's turns together."""
import json
import os
import signal
import subprocess
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


if __name__ == "__main__":
    main()
