"""Sessions that last: one writer per session, fork / side sessions, rewind
with exact bytes and modes, search that survives losing its index, and a
crash harness that SIGKILLs a multi-turn run at many random points."""
import json
import os
import random
import signal
import stat
import time

from harness import ZeroTest, main


def events_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    return data[:data.rfind(b"\n") + 1] if b"\n" in data else b""


class OneWriter(ZeroTest):
    def test_second_process_is_told_the_session_is_in_use_and_by_whom(self):
        self.serve([{"text": "first"}])
        r = self.zero("exec", "-o", "json", "start")
        self.assertEqual(r.returncode, 0, r.stderr)
        sid = self.session_ids()[0]
        # The first resumer hangs mid-answer, holding the session.
        self.serve([{"text": "slow " * 50, "chunk_size": 5, "hang_after_bytes": 300},
                    {"text": "never"}])
        p = self.spawn("exec", "--resume", sid, "-o", "stream-json", "hold it")
        try:
            deadline = time.time() + 10
            lock = os.path.join(self.sessions_dir(), sid, "session.lock")
            while time.time() < deadline:
                if os.path.exists(lock):
                    with open(lock) as f:
                        if f.read().strip() == str(p.pid):
                            break
                time.sleep(0.05)
            before = events_bytes(os.path.join(self.sessions_dir(), sid, "events.jsonl"))
            r = self.zero("exec", "--resume", sid, "second writer")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("in use", r.stderr)
            self.assertIn("pid %d" % p.pid, r.stderr)
            # Nothing of the second process reached the log.
            after = events_bytes(os.path.join(self.sessions_dir(), sid, "events.jsonl"))
            self.assertNotIn(b"second writer", after)
            self.assertTrue(after.startswith(before))
            # Delete and rewind refuse a session in use as well.
            r = self.zero("sessions", "delete", sid)
            self.assertEqual(r.returncode, 2)
            self.assertIn("in use", r.stderr)
        finally:
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=10)
        # Once the holder is gone the session resumes normally.
        self.serve([{"text": "third"}])
        r = self.zero("exec", "--resume", sid, "-o", "json", "again")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_store_files_are_private_and_links_are_refused(self):
        self.serve([{"text": "ok"}])
        self.zero("exec", "hi")
        sid = self.session_ids()[0]
        d = os.path.join(self.sessions_dir(), sid)
        self.assertEqual(stat.S_IMODE(os.stat(d).st_mode), 0o700)
        for name in ("events.jsonl", "metadata.json", "session.lock"):
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(d, name)).st_mode), 0o600, name)
        # A hard link to the log (which could point writes elsewhere) is refused.
        os.link(os.path.join(d, "events.jsonl"), os.path.join(self.tmp, "elsewhere"))
        self.serve([{"text": "no"}])
        r = self.zero("exec", "--resume", sid, "x")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("single link", r.stderr)
        os.unlink(os.path.join(self.tmp, "elsewhere"))
        # A symlinked lock file is refused too.
        os.unlink(os.path.join(d, "session.lock"))
        os.symlink(os.path.join(self.tmp, "target"), os.path.join(d, "session.lock"))
        r = self.zero("exec", "--resume", sid, "x")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("symbolic link", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "target")))


class Forks(ZeroTest):
    def test_fork_side_and_lineage(self):
        self.serve([{"text": "parent answer"}])
        r = self.zero("exec", "-o", "json", "parent prompt")
        parent = self.session_ids()[0]
        # exec --fork: a copy continues; the parent is untouched.
        before = events_bytes(os.path.join(self.sessions_dir(), parent, "events.jsonl"))
        m = self.serve([{"text": "fork answer"}])
        r = self.zero("exec", "--fork", parent, "-o", "json", "fork prompt")
        self.assertEqual(r.returncode, 0, r.stderr)
        msgs = m.bodies()[0]["messages"]
        self.assertEqual([x.get("content") for x in msgs[1:]],
                         ["parent prompt", "parent answer", "fork prompt"])
        self.assertEqual(events_bytes(os.path.join(self.sessions_dir(), parent, "events.jsonl")),
                         before)
        fork = [s for s in self.session_ids() if s != parent][0]
        evs = self.session_events(fork)
        self.assertNotIn("provider_usage", [e["type"] for e in evs if e["sequence"] <= 3])
        fe = [e for e in evs if e["type"] == "session_fork"][0]
        self.assertEqual(fe["payload"]["parentSessionId"], parent)
        self.assertEqual([e["sequence"] for e in evs], list(range(1, len(evs) + 1)))
        r = self.zero("sessions", "lineage", fork)
        self.assertEqual(r.stdout.strip(), "%s -> %s" % (parent, fork))
        r = self.zero("sessions", "tree", parent, "--json")
        tree = json.loads(r.stdout)
        self.assertEqual(tree["children"][0]["sessionId"], fork)
        r = self.zero("sessions", "list", "--kind", "fork", "--json")
        self.assertEqual([x["sessionId"] for x in json.loads(r.stdout)], [fork])

        # A side session is never resumed, not even as the latest one.
        r = self.zero("sessions", "fork", parent, "--kind", "side", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        side = json.loads(r.stdout)["sessionId"]
        m = self.serve([{"text": "latest"}])
        r = self.zero("exec", "--resume-latest", "-o", "json", "which one?")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotEqual(json.loads(r.stdout.splitlines()[-1]).get("sessionId"), side)
        with open(os.path.join(self.sessions_dir(), side, "events.jsonl")) as f:
            self.assertNotIn("which one?", f.read())
        r = self.zero("exec", "--resume", side, "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("side session", r.stdout + r.stderr)

        r = self.zero("sessions", "delete", side)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(side, self.session_ids())


class Children(ZeroTest):
    def test_children_lists_direct_forks_and_unknown_ids_are_usage_errors(self):
        """Go zero's `sessions children <id>`; a session that does not exist
        is a usage error (exit 2) for show as for every other subcommand."""
        self.serve([{"text": "parent answer"}])
        self.zero("exec", "parent prompt")
        parent = self.session_ids()[0]
        r = self.zero("sessions", "children", parent)
        self.assertEqual((r.returncode, r.stdout), (0, "No Zero sessions found.\n"), r.stderr)
        r = self.zero("sessions", "fork", parent, "--json")
        child = json.loads(r.stdout)["sessionId"]
        r = self.zero("sessions", "fork", child, "--json")
        grandchild = json.loads(r.stdout)["sessionId"]
        r = self.zero("sessions", "children", parent)
        self.assertEqual(r.returncode, 0, r.stderr)
        # Go zero's line format: id, [kind], title, (details).
        self.assertEqual(r.stdout, "Zero sessions (1):\n  - %s [fork] parent prompt "
                         "(parent=%s, model=test-model, cwd=%s)\n"
                         % (child, parent, os.path.realpath(self.work)))
        self.assertNotIn(grandchild, r.stdout)
        r = self.zero("sessions", "children", parent, "--json")
        self.assertEqual([m["sessionId"] for m in json.loads(r.stdout)], [child])
        r = self.zero("sessions", "children")
        self.assertEqual(r.returncode, 2)
        for sub in ("children", "show", "tree", "lineage"):
            r = self.zero("sessions", sub, "zero_missing_1")
            self.assertEqual(r.returncode, 2, sub)
            self.assertIn("not found", r.stderr)
        r = self.zero("sessions", "help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("children <id>", r.stdout)
        r = self.zero("sessions", "delete", grandchild, "--json")
        self.assertEqual(json.loads(r.stdout), {"sessionId": grandchild, "deleted": True})


class Rewind(ZeroTest):
    def test_rewind_restores_exact_bytes_and_modes(self):
        a = os.path.join(self.work, "a.txt")
        b = os.path.join(self.work, "bin", "run.sh")
        os.makedirs(os.path.dirname(b))
        a_bytes = b"alpha\r\nbeta \xc3\xa9\x00 tail without newline"
        with open(a, "wb") as f:
            f.write(a_bytes)
        os.chmod(a, 0o640)
        with open(b, "wb") as f:
            f.write(b"#!/bin/sh\necho old\n")
        os.chmod(b, 0o755)
        turns = [
            {"tool_calls": [{"name": "edit_file", "arguments": {
                "path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}}]},
            # write_file replaces only a file read in this run (tools issue).
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "bin/run.sh"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "bin/run.sh", "content": "#!/bin/sh\necho new\n", "overwrite": True}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "new/dir/c.txt", "content": "brand new"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo x > d.txt"}}]},
            {"text": "done"},
        ]
        self.serve(turns)
        r = self.zero("exec", "--auto", "high", "-o", "json", "change things")
        self.assertEqual(r.returncode, 0, r.stderr)
        sid = self.session_ids()[0]
        self.assertTrue(os.path.exists(os.path.join(self.work, "new", "dir", "c.txt")))
        os.chmod(a, 0o600)  # a later change of mode is undone as well
        evs = self.session_events(sid)
        blobs = os.path.join(self.sessions_dir(), sid, "checkpoints", "blobs")
        self.assertEqual(len(os.listdir(blobs)), 2)  # a.txt and run.sh; c.txt did not exist

        r = self.zero("sessions", "rewind", sid, "--to", "1", "--dry-run", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        plan = json.loads(r.stdout)
        actions = {os.path.relpath(x["path"], self.work): x["action"] for x in plan["restore"]}
        self.assertEqual(actions, {"a.txt": "restore", "bin/run.sh": "restore",
                                   "new/dir/c.txt": "delete"})
        shell = [x for x in plan["notRestorable"] if "command" in x]
        self.assertEqual(shell[0]["command"], "echo x > d.txt")
        self.assertEqual(self.session_events(sid), evs)  # dry run changed nothing

        r = self.zero("sessions", "rewind", sid, "--to", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("NOT RESTORABLE", r.stdout)
        with open(a, "rb") as f:
            self.assertEqual(f.read(), a_bytes)
        self.assertEqual(stat.S_IMODE(os.stat(a).st_mode), 0o640)
        with open(b, "rb") as f:
            self.assertEqual(f.read(), b"#!/bin/sh\necho old\n")
        self.assertEqual(stat.S_IMODE(os.stat(b).st_mode), 0o755)
        self.assertFalse(os.path.exists(os.path.join(self.work, "new", "dir", "c.txt")))
        after = self.session_events(sid)
        self.assertEqual([e["sequence"] for e in after], [1, 2])
        self.assertEqual(after[-1]["type"], "session_rewind")
        self.assertEqual(os.listdir(blobs), [])  # unreferenced blobs removed
        # The rewound session resumes from that point.
        m = self.serve([{"text": "again"}])
        r = self.zero("exec", "--resume", sid, "-o", "json", "try again")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x.get("content") for x in m.bodies()[0]["messages"][1:]],
                         ["change things", "try again"])


class RewindTaskState(ZeroTest):
    def test_rewind_recomputes_the_changed_files_and_tallies(self):
        turns = [
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "one.txt", "content": "1"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "two.txt", "content": "2"}}]},
            {"text": "done"},
        ]
        self.serve(turns)
        r = self.zero("exec", "--auto", "high", "-o", "json", "write two files")
        self.assertEqual(r.returncode, 0, r.stderr)
        sid = self.session_ids()[0]
        meta_path = os.path.join(self.sessions_dir(), sid, "metadata.json")

        def task():
            with open(meta_path) as f:
                return json.load(f)["taskState"]

        self.assertEqual([os.path.basename(p) for p in task()["changedFiles"]],
                         ["one.txt", "two.txt"])
        first = [e for e in self.session_events(sid) if e["type"] == "tool_result"][0]
        r = self.zero("sessions", "rewind", sid, "--to", str(first["sequence"]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "two.txt")))
        t = task()
        self.assertEqual([os.path.basename(p) for p in t["changedFiles"]], ["one.txt"])
        self.assertEqual(t["toolCalls"], {"ok": 1, "failed": 0})
        self.assertEqual(t["objective"], "write two files")


class Context(ZeroTest):
    def test_breakdown_of_the_session_a_resume_would_continue(self):
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("some notes\n" * 400)
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
                    {"text": "read it"}])
        self.assertEqual(self.zero("exec", "read the notes").returncode, 0)
        sid = self.session_ids()[0]
        self.env["ZERO_CONTEXT_WINDOW"] = "20000"
        r = self.zero("context", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        b = json.loads(r.stdout)
        self.assertEqual(b["sessionId"], sid)
        self.assertEqual(b["window"], 20000)
        self.assertEqual(b["threshold"], 14000)
        self.assertGreater(b["toolOutputs"], 4400 // 4 - 50)  # the 4.4 KB file read
        self.assertGreater(b["messages"], 0)
        self.assertGreater(b["tools"], 0)
        self.assertEqual(b["total"], b["systemPrompt"] + b["instructions"] + b["tools"] +
                         b["messages"] + b["toolOutputs"])
        self.assertEqual(b["free"], 20000 - b["total"])
        r = self.zero("context")
        self.assertIn("tool outputs", r.stdout)
        self.assertIn(sid, r.stdout)
        r = self.zero("context", "--session", "no_such_session")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no_such_session", r.stderr)


class Search(ZeroTest):
    def test_phrase_in_an_old_tool_output_and_index_rebuild(self):
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("first line\nthe quick zebra jumped over the lazy compiler\nlast line\n")
        self.serve([{"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
                    {"text": "read it"}])
        self.zero("exec", "read the notes")
        old = self.session_ids()[0]
        for i in range(3):
            self.serve([{"text": "nothing about animals %d" % i}])
            self.zero("exec", "unrelated task %d" % i)
        r = self.zero("search", '"quick zebra jumped"', "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        hits = json.loads(r.stdout)
        self.assertEqual([(h["sessionId"], h["type"]) for h in hits], [(old, "tool_result")])
        self.assertIn("[quick zebra jumped]", hits[0]["snippet"])
        # All terms, any order; a phrase in the wrong order does not match.
        r = self.zero("find", "zebra", "compiler", "--json")
        self.assertEqual([h["sessionId"] for h in json.loads(r.stdout)], [old])
        r = self.zero("search", '"zebra quick"', "--json")
        self.assertEqual(json.loads(r.stdout), [])
        # Deleting the index loses nothing.
        index = os.path.join(self.env["XDG_DATA_HOME"], "zero", "index.sqlite")
        self.assertTrue(os.path.exists(index))
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(index + suffix):
                os.unlink(index + suffix)
        r2 = self.zero("search", '"quick zebra jumped"', "--json")
        self.assertEqual(json.loads(r2.stdout), hits)
        # A corrupt index is rebuilt too.
        with open(index, "wb") as f:
            f.write(b"this is not a database" * 100)
        r3 = self.zero("search", '"quick zebra jumped"', "--json")
        self.assertEqual(r3.returncode, 0, r3.stderr)
        self.assertEqual(json.loads(r3.stdout), hits)
        # Text output names the session and shows the snippet.
        r = self.zero("search", "zebra")
        self.assertIn(old, r.stdout)
        self.assertIn("[zebra]", r.stdout)
        # A deleted session leaves the results.
        self.assertEqual(self.zero("sessions", "delete", old).returncode, 0)
        r = self.zero("search", "zebra", "--json")
        self.assertEqual(json.loads(r.stdout), [])


class CrashHarness(ZeroTest):
    def test_sigkill_at_random_points_of_a_multi_turn_run(self):
        rng = random.Random(int(os.environ.get("ZERO_CRASH_SEED", "6")))
        turns = []
        for i in range(6):
            turns.append({"text": "turn %d " % i, "chunk_size": 7, "delay_ms": 2,
                          "tool_calls": [{"name": "write_file", "arguments": {
                              "path": "f%d.txt" % i, "content": "y" * 200}}]})
        turns.append({"text": "finished " * 5, "chunk_size": 7, "delay_ms": 2})
        self.serve([{"text": "seed"}])
        r = self.zero("exec", "-o", "json", "seed the session")
        sid = self.session_ids()[0]
        log = os.path.join(self.sessions_dir(), sid, "events.jsonl")
        kills = 0
        for point in range(14):
            delay = rng.uniform(0.0, 0.6)
            self.serve(turns)
            before = events_bytes(log)
            p = self.spawn("exec", "--resume", sid, "-o", "stream-json", "multi-turn %d" % point)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.communicate(timeout=10)
            kills += 1
            # What was there before is still there, byte for byte.
            now = events_bytes(log)
            self.assertTrue(now.startswith(before), "point %d: history changed" % point)
            r = self.zero("sessions", "show", sid, "--json")
            self.assertEqual(r.returncode, 0, "point %d: %s" % (point, r.stderr))
            seqs = [json.loads(l)["sequence"] for l in now.splitlines()]
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "point %d: gap or dup" % point)
            self.assertEqual(json.loads(r.stdout)["events"]["count"], len(seqs))
        self.assertEqual(kills, 14)
        # And it still continues, with a valid conversation.
        m = self.serve([{"text": "survived"}])
        r = self.zero("exec", "--resume", sid, "-o", "json", "continue")
        self.assertEqual(r.returncode, 0, r.stderr)
        msgs = m.bodies()[0]["messages"]
        calls = {c["id"] for x in msgs if x["role"] == "assistant" for c in x.get("tool_calls") or []}
        answered = {x["tool_call_id"] for x in msgs if x["role"] == "tool"}
        self.assertEqual(calls, answered)


if __name__ == "__main__":
    main()
