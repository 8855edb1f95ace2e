"""A run killed at any moment (even SIGKILL) leaves a session that loads and
resumes; a torn last line is skipped with a warning, never a failure."""
import json
import os
import signal
import time

from harness import ZeroTest, main


def slow_turns(n_tools):
    turns = []
    for i in range(n_tools):
        turns.append({"text": "step %d " % i, "chunk_size": 4, "delay_ms": 5,
                      "tool_calls": [{"name": "write_file",
                                      "arguments": {"path": "f%d.txt" % i, "content": "x" * 50}}]})
    turns.append({"text": "all done " * 10, "chunk_size": 4, "delay_ms": 5})
    return turns


class CrashSafety(ZeroTest):
    def test_sigkill_at_many_points_leaves_a_resumable_session(self):
        for delay in (0.02, 0.08, 0.15, 0.3, 0.5, 0.8):
            self.serve(slow_turns(4))
            p = self.spawn("exec", "-o", "stream-json", "write some files")
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.communicate(timeout=10)
            r = self.zero("sessions", "list", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            sessions = json.loads(r.stdout)
            if not sessions:
                continue  # killed before the session existed: nothing to lose
            sid = sessions[0]["sessionId"]
            # Every line that ends in a newline is a whole JSON event.
            path = os.path.join(self.sessions_dir(), sid, "events.jsonl")
            with open(path, "rb") as f:
                data = f.read()
            whole = data[:data.rfind(b"\n") + 1] if b"\n" in data else b""
            seqs = [json.loads(l)["sequence"] for l in whole.splitlines() if l.strip()]
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "sequence gap or duplicate")
            m = self.serve([{"text": "resumed after kill"}])
            r = self.zero("exec", "--resume", sid, "-o", "json", "continue")
            self.assertEqual(r.returncode, 0, "delay %s: %s" % (delay, r.stderr))
            self.assertEqual(json.loads(r.stdout)["text"], "resumed after kill")
            # The resumed request is a valid conversation: every tool call answered.
            msgs = m.bodies()[0]["messages"]
            calls = {c["id"] for x in msgs if x["role"] == "assistant" for c in x.get("tool_calls") or []}
            answered = {x["tool_call_id"] for x in msgs if x["role"] == "tool"}
            self.assertEqual(calls, answered)
            self.assertEqual(msgs[-1]["content"], "continue")

    def test_torn_last_line_is_skipped_with_a_warning(self):
        self.serve([{"text": "first answer"}])
        r = self.zero("exec", "-o", "json", "first")
        sid = json.loads(r.stdout)["sessionId"]
        path = os.path.join(self.sessions_dir(), sid, "events.jsonl")
        with open(path, "a") as f:
            f.write('{"id":"%s:99","sessionId":"%s","sequence":99,"type":"mess' % (sid, sid))
        m = self.serve([{"text": "second answer"}])
        r = self.zero("exec", "--resume", sid, "second")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("WARNING", r.stderr)
        self.assertEqual(r.stdout, "second answer\n")
        roles = [x["role"] for x in m.bodies()[0]["messages"]]
        self.assertEqual(roles, ["system", "user", "assistant", "user"])
        # The repaired file holds only whole lines again.
        with open(path) as f:
            for line in f:
                json.loads(line)
        r = self.zero("sessions", "list", "--json")
        self.assertEqual(r.returncode, 0)

    def test_sigterm_is_an_interrupt_too(self):
        self.serve([{"text": "slow " * 100, "chunk_size": 5, "hang_after_bytes": 200}])
        p = self.spawn("exec", "-o", "stream-json", "hi")
        time.sleep(0.8)
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 130)
        evs = self.lines(out)
        self.assertEqual(evs[-1]["status"], "interrupted")
        sid = evs[0]["sessionId"]
        types = [e["type"] for e in self.session_events(sid)]
        self.assertIn("error", types)

    def test_sigint_during_a_running_tool(self):
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "sleep 30"}}]},
                    {"text": "never"}])
        p = self.spawn("exec", "--auto", "high", "-o", "stream-json", "sleep")
        time.sleep(1.0)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=15)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(p.returncode, 130)
        evs = self.lines(out)
        self.assertEqual(evs[-1]["status"], "interrupted")
        # The tool result says it was cancelled, and the session resumes.
        res = [e for e in evs if e["type"] == "tool_result"]
        self.assertTrue(res and res[0]["status"] == "error")
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "--resume-latest", "continue")
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    main()
