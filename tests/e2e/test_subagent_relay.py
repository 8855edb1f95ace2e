"""A sub-agent's permission prompts and ask_user questions reach the
parent (issue 17, subagent/relay.h): the parent's policy or its user
answers, never the child itself.

The real binary and the fake model server: the parent's and the child's
turns are one script (the child is another request stream). Each test
asserts the effect on disk (the file the child wanted to write), not only
the events."""
import json
import os

from harness import ZeroTest, main


class Relay(ZeroTest):
    def write(self, rel, text):
        path = os.path.join(self.work, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def child_events(self, stdout, type_):
        return [e["event"] for e in self.lines(stdout)
                if e["type"] == "subagent_event" and e["event"]["type"] == type_]

    def asking_writer(self):
        """A specialist that runs in ask mode: its writes prompt."""
        self.write(".zero/agents/asker.md",
                   "---\nname: asker\ntools: [write_file]\npermissionMode: ask\n---\n"
                   "Write what you are told.\n")

    def script(self, path="child.txt"):
        return [
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "write", "prompt": "write it", "agent": "asker"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": path, "content": "from the child\n"}}]},
            {"text": "child done"},
            {"text": "parent done"},
        ]

    def test_parent_policy_answers_the_childs_prompt(self):
        # The child (ask mode) prompts for its write; the parent runs in auto
        # mode, whose policy allows a write inside the workspace: allowed.
        self.asking_writer()
        self.serve(self.script())
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(self.work, "child.txt")) as f:
            self.assertEqual(f.read(), "from the child\n")
        reqs = self.child_events(r.stdout, "permission_request")
        self.assertEqual(len(reqs), 1, reqs)
        self.assertEqual(reqs[0]["permissionMode"], "ask")
        dec = self.child_events(r.stdout, "permission_decision")
        self.assertEqual(dec[0]["action"], "allow")

    def test_headless_ask_parent_denies_the_childs_prompt(self):
        # The parent itself would prompt for this write and has no user: the
        # child's request is denied, and the child is told why.
        self.asking_writer()
        m = self.serve(self.script())
        r = self.zero("exec", "--permission-mode", "ask", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "child.txt")))
        dec = self.child_events(r.stdout, "permission_decision")
        self.assertEqual(dec[0]["action"], "deny")
        child_result = [x for x in m.bodies()[2]["messages"] if x["role"] == "tool"][0]
        self.assertIn("no user is available to approve a sub-agent's request",
                      child_result["content"])

    def test_childs_question_is_answered_from_the_parents_input(self):
        # ask_user in a child: the parent emits the question on its own
        # stream and the answer line of its -i stream-json input replies;
        # beyond ASCII both ways (the relay's lines are parsed as JSON).
        self.write(".zero/agents/curious.md",
                   "---\nname: curious\ntools: [ask_user]\n---\nAsk when unsure.\n")
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "ask", "prompt": "ask the user", "agent": "curious"}}]},
            {"tool_calls": [{"name": "ask_user", "arguments": {
                "question": "Quelle couleur ? — 色", "choices": ["rouge", "bleu ☁"]}}]},
            {"text": "child done"},
            {"text": "parent done"},
        ])
        stdin = "\n".join(json.dumps(o, ensure_ascii=False) for o in [
            {"schemaVersion": 2, "type": "prompt", "content": "go"},
            {"schemaVersion": 2, "type": "answer", "content": "bleu ☁, s'il te plaît"}]) + "\n"
        r = self.zero("exec", "-i", "stream-json", "-o", "stream-json", input=stdin)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        top = [e for e in self.lines(r.stdout) if e["type"] == "question"]
        self.assertEqual(len(top), 1, top)
        self.assertEqual(top[0]["question"], "Quelle couleur ? — 色")
        self.assertEqual(top[0]["choices"], ["rouge", "bleu ☁"])
        answer = [x for x in m.bodies()[2]["messages"] if x["role"] == "tool"][0]["content"]
        self.assertEqual(answer, "bleu ☁, s'il te plaît")

    def test_childs_question_without_a_user_says_so(self):
        self.write(".zero/agents/curious.md",
                   "---\nname: curious\ntools: [ask_user]\n---\nAsk when unsure.\n")
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "ask", "prompt": "ask the user", "agent": "curious"}}]},
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Which?"}}]},
            {"text": "child done"},
            {"text": "parent done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        answer = [x for x in m.bodies()[2]["messages"] if x["role"] == "tool"][0]["content"]
        self.assertIn("No user is available", answer)


if __name__ == "__main__":
    main()
