"""The loop's judgement in real `zero exec` runs against the fake model: the
completion gate's nudges, the guardrails' halt, the --trace file, execution
profiles, maxAutonomy and model escalation (issue 18, part A)."""
import json
import os

from harness import ZeroTest, main

PLAN_OPEN = {"name": "update_plan", "arguments": {"plan": [
    {"step": "write the parser", "status": "completed"},
    {"step": "add the tests", "status": "pending"}]}}
PLAN_DONE = {"name": "update_plan", "arguments": {"plan": [
    {"step": "write the parser", "status": "completed"},
    {"step": "add the tests", "status": "completed"}]}}


def last_user(body):
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


class CompletionGate(ZeroTest):
    def exec_json(self, *args):
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", *args)
        return r, self.lines(r.stdout)

    def test_open_plan_items_are_nudged_at_most_twice_then_incomplete(self):
        m = self.serve([{"tool_calls": [PLAN_OPEN]}, {"text": "All done."},
                        {"text": "Done now."}, {"text": "Really done."}])
        r, events = self.exec_json("build the parser")
        self.assertEqual(r.returncode, 4, r.stderr)
        bodies = m.bodies()
        self.assertEqual(len(bodies), 4)  # two nudges, no third
        for b in bodies[2:]:
            self.assertIn("the task is not finished", last_user(b))
            self.assertIn("add the tests", last_user(b))
        nudges = [e for e in events if e["type"] == "warning"
                  and e.get("code") == "completion_nudge"]
        self.assertEqual(len(nudges), 2)
        err = [e for e in events if e["type"] == "error"][-1]
        self.assertEqual(err["code"], "incomplete")
        self.assertIn("2 continuation nudges", err["message"])
        self.assertEqual(events[-1]["status"], "incomplete")
        # The nudges are in the session as messages, marked, so --resume
        # sends the same conversation and the task state keeps the prompt.
        sid = events[0]["sessionId"]
        msgs = [e["payload"] for e in self.session_events(sid) if e["type"] == "message"
                and e["payload"].get("role") == "user"]
        self.assertEqual([p.get("nudge") for p in msgs],
                         [None, "completion_nudge", "completion_nudge"])

    def test_a_nudged_model_that_finishes_the_plan_succeeds(self):
        m = self.serve([{"tool_calls": [PLAN_OPEN]}, {"text": "All done."},
                        {"tool_calls": [PLAN_DONE]}, {"text": "Finished."}])
        r, events = self.exec_json("build the parser")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(m.bodies()), 4)
        self.assertEqual([e["text"] for e in events if e["type"] == "final"], ["Finished."])

    def test_no_completion_gate_accepts_the_first_answer(self):
        m = self.serve([{"tool_calls": [PLAN_OPEN]}, {"text": "All done."}])
        r, events = self.exec_json("--no-completion-gate", "build the parser")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(m.bodies()), 2)
        self.assertFalse([e for e in events if e.get("code") == "completion_nudge"])

    def test_running_session_is_open_work(self):
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "sleep 30", "yield_time_ms": 300}}]},
            {"text": "Started it."},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "\u0003", "yield_time_ms": 2000}}]},
            {"text": "Stopped it."}])
        r, events = self.exec_json("run a sleep")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("command session is still running", last_user(m.bodies()[2]))

    def test_verification_nudge_carries_the_objective(self):
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}}]},
            {"text": "Wrote calc.py."},
            {"text": "PASS: add(2, 3) == 5."}])
        r, events = self.exec_json("--profile", "thorough", "write an add function in calc.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertEqual(len(bodies), 3)
        nudge = last_user(bodies[2])
        self.assertIn("Task objective: write an add function in calc.py; verify the result, "
                      "e.g. run the tests", nudge)
        self.assertEqual(len([e for e in events if e.get("code") == "verification_nudge"]), 1)

    def test_no_verification_nudge_when_a_command_checked_the_edit(self):
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "calc.py", "content": "print(2 + 3)\n"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "python3 calc.py"}}]},
            {"text": "It prints 5."}])
        r, _ = self.exec_json("--profile", "thorough", "write calc.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(m.bodies()), 3)


class Guardrails(ZeroTest):
    def exec_json(self, *args):
        r = self.zero("exec", "--skip-permissions-unsafe", "-o", "stream-json", *args)
        return r, self.lines(r.stdout)

    def test_third_identical_failure_halts_with_guardrail_halt(self):
        probe = {"name": "write_stdin", "arguments": {"session_id": 4242, "chars": ""}}
        m = self.serve([{"text": "Trying.", "tool_calls": [probe]},
                        {"text": "Again.", "tool_calls": [probe]},
                        {"text": "Once more.", "tool_calls": [probe]},
                        {"text": "never reached"}])
        r, events = self.exec_json("poke the session")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(len(m.bodies()), 3)
        results = [e for e in events if e["type"] == "tool_result"]
        self.assertEqual(len(results), 3)
        err = [e for e in events if e["type"] == "error"][-1]
        self.assertEqual(err["code"], "guardrail_halt")
        self.assertIn("failed 3 times", err["message"])
        self.assertEqual(events[-1], dict(events[-1], status="error", exitCode=1))

    def test_unknown_session_ids_get_one_error_text(self):
        m = self.serve([{"tool_calls": [
            {"name": "write_stdin", "arguments": {"session_id": 1}},
            {"name": "write_stdin", "arguments": {"session_id": 987654}}]},
            {"text": "No such sessions."}])
        r, events = self.exec_json("probe")
        self.assertEqual(r.returncode, 0, r.stderr)
        outs = [e["output"] for e in events if e["type"] == "tool_result"]
        self.assertEqual(len(outs), 2)
        self.assertEqual(outs[0], outs[1])
        self.assertNotIn("987654", outs[1])

    def test_eight_consecutive_failures_halt(self):
        calls = [{"name": "write_stdin", "arguments": {"session_id": 100 + i}}
                 for i in range(9)]
        m = self.serve([{"tool_calls": calls}, {"text": "never reached"}])
        r, events = self.exec_json("probe many")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(len([e for e in events if e["type"] == "tool_result"]), 8)
        err = [e for e in events if e["type"] == "error"][-1]
        self.assertEqual(err["code"], "guardrail_halt")
        self.assertIn("8 tool calls in a row failed", err["message"])
        self.assertEqual(len(m.bodies()), 1)

    def test_identical_turns_halt(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("alpha\n")
        turn = {"text": "Reading.", "tool_calls": [
            {"name": "read_file", "arguments": {"path": "a.txt"}}]}
        m = self.serve([turn, turn, turn, {"text": "never reached"}])
        r, events = self.exec_json("read a.txt")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(len(m.bodies()), 3)
        err = [e for e in events if e["type"] == "error"][-1]
        self.assertEqual(err["code"], "guardrail_halt")
        self.assertIn("same turn", err["message"])

    def test_a_success_in_between_does_not_reset_the_same_call_count(self):
        """The same failing call counts over the run, not only in a row."""
        bad = {"name": "read_file", "arguments": {"path": "missing.txt"}}
        ok = {"name": "list_directory", "arguments": {"path": "."}}
        m = self.serve([{"text": "1", "tool_calls": [bad]}, {"text": "2", "tool_calls": [ok]},
                        {"text": "3", "tool_calls": [bad]}, {"text": "4", "tool_calls": [ok]},
                        {"text": "5", "tool_calls": [bad]}, {"text": "never reached"}])
        r, events = self.exec_json("read missing")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(len(m.bodies()), 5)


class TraceProfileEscalation(ZeroTest):
    def write_config(self, cfg):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)

    def test_trace_file_has_the_documented_lines(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("alpha\n")
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
                    {"text": "It says alpha."}])
        trace = os.path.join(self.tmp, "run.ndjson")
        r = self.zero("exec", "--trace", trace, "-o", "json", "read a.txt")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(trace) as f:
            lines = [json.loads(l) for l in f if l.strip()]
        head = lines[0]
        self.assertEqual((head["type"], head["name"]), ("trace", "run"))
        self.assertTrue(head["session_id"].startswith("zero_"))
        self.assertTrue(head["run_id"].startswith("run_"))
        self.assertGreaterEqual(head["wall_ms"], 0)
        spans = [l["name"] for l in lines if l["type"] == "span"]
        self.assertEqual(spans, ["generation", "generation", "tool_execution"])
        counters = {l["name"]: l["value"] for l in lines if l["type"] == "counter"}
        self.assertEqual(counters["model_requests"], 2)
        self.assertEqual(counters["tool_calls"], 1)
        prefixes = [l for l in lines if l["type"] == "prefix_hash"]
        self.assertEqual(len(prefixes), 2)
        self.assertEqual(len(prefixes[0]["complete_prefix"]), 64)
        self.assertEqual(prefixes[0]["complete_prefix"], prefixes[1]["complete_prefix"])
        self.assertEqual([p["stable"] for p in prefixes], [False, True])
        states = [l for l in lines if l["type"] == "task_state"]
        self.assertEqual([(s["revision"], s["status"], s["tools_succeeded"])
                          for s in states], [(1, "running", 1), (2, "complete", 1)])
        self.assertEqual(states[-1]["completion_decision"], "complete")

    def test_bad_trace_path_is_a_usage_error(self):
        self.serve([{"text": "hi"}])
        r = self.zero("exec", "--trace", os.path.join(self.tmp, "no", "such", "t.ndjson"), "hi")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--trace", r.stderr)

    def test_profile_from_config_applies_and_flags_win(self):
        self.write_config({"profiles": {"quick": {"model": "small-model", "maxTurns": 1}}})
        m = self.serve([{"tool_calls": [{"name": "list_directory", "arguments": {}}]},
                        {"text": "never reached"}])
        r = self.zero("exec", "--profile", "quick", "-o", "json", "list")
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)  # maxTurns 1
        self.assertEqual(m.bodies()[0]["model"], "small-model")
        m = self.serve([{"text": "ok"}])
        r = self.zero("exec", "--profile", "quick", "--model", "big-model", "-o", "json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(m.bodies()[0]["model"], "big-model")

    def test_builtin_fast_profile_and_unknown_profile(self):
        m = self.serve([{"text": "ok"}])
        r = self.zero("exec", "--profile", "fast", "-o", "json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(m.bodies()[0].get("reasoning_effort"), "low")
        r = self.zero("exec", "--profile", "nosuch", "hi")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no such profile", r.stderr)

    def test_max_autonomy_caps_auto(self):
        self.write_config({"maxAutonomy": "low"})
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "--auto", "high", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = self.lines(r.stdout)
        capped = [e for e in events if e.get("code") == "autonomy_capped"]
        self.assertEqual(len(capped), 1)
        self.assertFalse([e for e in events if "Unsafe permissions" in e.get("message", "")])

    def test_escalation_switches_the_model_mid_run(self):
        m = self.serve([{"tool_calls": [{"name": "escalate_model",
                                         "arguments": {"reason": "subtle bug"}}]},
                        {"text": "Fixed with the big model."}], model="small-model")
        r = self.zero("exec", "--allow-escalation", "big-model", "-o", "stream-json",
                      "fix the subtle bug")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertEqual([b["model"] for b in bodies], ["small-model", "big-model"])
        self.assertIn("escalate_model", {t["function"]["name"] for t in bodies[0]["tools"]})
        events = self.lines(r.stdout)
        esc = [e for e in events if e.get("code") == "model_escalated"]
        self.assertEqual(len(esc), 1)
        self.assertIn("small-model to big-model", esc[0]["message"])
        sid = events[0]["sessionId"]
        recorded = [e for e in self.session_events(sid) if e["type"] == "warning"
                    and e["payload"]["code"] == "model_escalated"]
        self.assertEqual(recorded[0]["payload"]["meta"]["to"], "big-model")

    def test_no_escalation_tool_without_the_flag(self):
        m = self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("escalate_model",
                         {t["function"]["name"] for t in m.bodies()[0].get("tools", [])})


class SpecMode(ZeroTest):
    SPEC = "# Spec\n\n- add greet() to hello.py\n- verify: python3 hello.py\n"

    def tool_names(self, body):
        return {t["function"]["name"] for t in body.get("tools", [])}

    def test_use_spec_drafts_read_only_and_stops_with_the_path(self):
        m = self.serve([{"tool_calls": [{"name": "write_spec",
                                         "arguments": {"content": self.SPEC}}]},
                        {"text": "Spec drafted."}])
        r = self.zero("exec", "--use-spec", "-o", "stream-json", "add a greeting")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = self.lines(r.stdout)
        sid = events[0]["sessionId"]
        path = os.path.join(os.path.realpath(self.work), ".zero", "specs", sid + ".md")
        with open(path) as f:
            self.assertEqual(f.read(), self.SPEC)
        final = [e["text"] for e in events if e["type"] == "final"][-1]
        self.assertIn("Spec: " + path, final)
        names = self.tool_names(m.bodies()[0])
        self.assertIn("write_spec", names)
        self.assertNotIn("write_file", names)
        self.assertIn("Spec mode", m.bodies()[0]["messages"][0]["content"])
        r = self.zero("sessions", "list", "--kind", "spec", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(sid, r.stdout)

    def test_spec_draft_mode_with_approve_builds_the_spec(self):
        m = self.serve([{"tool_calls": [{"name": "write_spec",
                                         "arguments": {"content": self.SPEC}}]},
                        {"text": "Spec drafted."},
                        {"tool_calls": [{"name": "write_file", "arguments": {
                            "path": "hello.py", "content": "print('hi')\n"}}]},
                        {"text": "Built."}])
        r = self.zero("exec", "--permission-mode", "spec-draft", "--spec-approve",
                      "--skip-permissions-unsafe", "-o", "json", "add a greeting")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bodies = m.bodies()
        self.assertEqual(len(bodies), 4)
        build = last_user(bodies[2])
        self.assertIn("is approved", build)
        self.assertIn("add greet() to hello.py", build)
        self.assertIn("write_file", self.tool_names(bodies[2]))
        self.assertTrue(os.path.exists(os.path.join(self.work, "hello.py")))

    def test_spec_approve_needs_use_spec(self):
        r = self.zero("exec", "--spec-approve", "hi")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    main()
