"""Worktrees and swarms through the real binary and the fake model server
(issue 17 parts 4 and 5): `zero exec --worktree`, `zero worktrees
list|remove|prune`, a task with isolation "worktree", and a swarm of
members writing in worktrees of their own, with mailboxes."""
import json
import os
import subprocess
import time
import unittest

import harness
from harness import ZeroTest, main
from test_child_lifetime import live_pids_with_arg
from test_tui import TMUX, TuiDriver

PARENT = "PARENT-PROMPT-7Q"
GENERAL = "You are a sub-agent handed one task"  # the general specialist's role line


def git(cwd, *args):
    return subprocess.run(["git", "-C", cwd, "-c", "user.email=t@t", "-c", "user.name=t"]
                          + list(args), capture_output=True, text=True, check=True).stdout


def parent_calls(name, **arguments):
    return {"match": PARENT, "tool_calls": [{"name": name, "arguments": arguments}]}


def member(n):
    """What only member n's requests hold (its role line, as the raw body spells it)."""
    return 'You are \\"%s\\", a member of the swarm team' % n


def writes(path, content):
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": path,
                                                                 "content": content}}]}


class WorktreeCase(ZeroTest):
    def setUp(self):
        super().setUp()
        git(self.work, "init", "-q", "-b", "main")
        with open(os.path.join(self.work, "README"), "w") as f:
            f.write("base\n")
        git(self.work, "add", "README")
        git(self.work, "commit", "-q", "-m", "base")

    def list_json(self):
        r = self.zero("worktrees", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return json.loads(r.stdout)

    def results(self, stdout):
        """The run's tool results as its session recorded them (with meta)."""
        sid = self.lines(stdout)[0]["sessionId"]
        return [e["payload"] for e in self.session_events(sid) if e["type"] == "tool_result"]

    def branches(self):
        return git(self.work, "branch", "--format=%(refname:short)").split()


class ExecWorktree(WorktreeCase):
    def test_changed_worktree_is_kept_with_a_note_and_the_checkout_untouched(self):
        self.serve([writes("new.txt", "from the worktree\n"), {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "--worktree", "feat", "-p", "write it")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.lines(r.stdout)
        wt = os.path.join(os.path.realpath(self.work), ".zero", "worktrees", "feat")
        self.assertEqual(evs[0]["cwd"], wt)
        kept = [e for e in evs if e["type"] == "warning" and e.get("code") == "worktree_kept"]
        self.assertEqual(len(kept), 1, evs)
        self.assertIn("zero/feat", kept[0]["message"])
        # the file is in the worktree, not in the launch checkout
        self.assertTrue(os.path.exists(os.path.join(wt, "new.txt")))
        self.assertFalse(os.path.exists(os.path.join(self.work, "new.txt")))
        # the main checkout does not see the nested checkout (info/exclude)
        self.assertEqual(git(self.work, "status", "--porcelain"), "")
        lst = self.list_json()
        self.assertEqual([w["name"] for w in lst], ["feat"])
        self.assertEqual(lst[0]["branch"], "zero/feat")
        self.assertTrue(lst[0]["changed"])
        self.assertIn("new.txt", lst[0]["stat"])
        # removing a changed worktree needs --force
        r = self.zero("worktrees", "remove", "feat")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--force", r.stderr)
        self.assertTrue(os.path.isdir(wt))
        r = self.zero("worktrees", "remove", "feat", "--force")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertFalse(os.path.exists(wt))
        self.assertEqual(self.list_json(), [])
        self.assertNotIn("zero/feat", self.branches())

    def test_runs_creating_worktrees_at_once_all_get_one(self):
        """git worktree add beside another add in the same repository fails
        ("failed to read .git/worktrees/X/commondir"): members of a swarm
        starting together lost their run to it. zero's adds take turns."""
        n = 12
        self.serve([{"text": "done"} for _ in range(n)])
        procs = [self.spawn("exec", "-o", "stream-json", "--worktree", "p%d" % i, "go")
                 for i in range(n)]
        for i, p in enumerate(procs):
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, "run %d: %s%s" % (i, out[-800:], err[-800:]))
        self.assertEqual(self.list_json(), [])

    def test_command_of_a_worktree_run_dies_with_zero_killed(self):
        """The watchdog a worktree's git started (before the sandbox exists)
        still stops the run's commands when zero is SIGKILLed."""
        token = "%d.77" % (os.getpid() + 500000)
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "sleep %s" % token, "yield_time_ms": 30000}}]}, {"text": "never"}])
        p = self.spawn("exec", "--permission-mode", "unsafe", "-o", "stream-json", "--worktree",
                       "kill", "run it")
        try:
            end = time.monotonic() + 15
            while time.monotonic() < end and not live_pids_with_arg(token):
                time.sleep(0.05)
            self.assertTrue(live_pids_with_arg(token), "the command never started")
            p.kill()
            p.wait(10)
            end = time.monotonic() + 1.0
            while time.monotonic() < end and live_pids_with_arg(token):
                time.sleep(0.02)
            left = live_pids_with_arg(token)
            for pid in left:
                os.kill(pid, 9)
            self.assertEqual(left, [], "the command outlived zero")
        finally:
            p.communicate(timeout=30)

    def test_watchdog_of_a_worktree_run_is_the_small_helper(self):
        """The worktree's git runs before the run's sandbox exists; the
        watchdog it starts is still zero-sandbox-inner --reap, not a fork of
        zero (which kept ~2.5 MiB resident: 20 MiB in a swarm of 8)."""
        helper = os.path.join(os.path.dirname(os.path.abspath(harness.ZERO_BIN)),
                              "zero-sandbox-inner")
        if not os.path.exists(helper):
            self.skipTest("no zero-sandbox-inner beside zero")
        m = self.serve([{"text": "late", "delay_before_ms": 3000}])
        p = self.spawn("exec", "-o", "stream-json", "--worktree", "wd", "wait")
        try:
            end = time.monotonic() + 15
            while time.monotonic() < end and not m.bodies():
                time.sleep(0.05)
            self.assertTrue(m.bodies(), "the run never reached the model")
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids = [int(x) for x in f.read().split()]
            cmdlines, names = [], []
            for k in kids:
                try:
                    with open("/proc/%d/cmdline" % k, "rb") as f:
                        cmdlines.append(f.read())
                    with open("/proc/%d/comm" % k) as f:
                        names.append(f.read().strip())
                except OSError:
                    pass
            self.assertIn(b"zero-sandbox-inner\0--reap\0", cmdlines)
            self.assertNotIn("zero-reaper", names)
        finally:
            out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)

    def test_unchanged_worktree_and_its_branch_are_removed_at_the_end(self):
        self.serve([{"text": "nothing to do"}])
        r = self.zero("exec", "-o", "stream-json", "--worktree=quiet", "-p", "look")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.lines(r.stdout)[0]["cwd"],
                         os.path.join(os.path.realpath(self.work), ".zero/worktrees/quiet"))
        self.assertFalse(os.path.exists(os.path.join(self.work, ".zero/worktrees/quiet")))
        self.assertNotIn("zero/quiet", self.branches())
        self.assertEqual(self.list_json(), [])

    def test_taken_name_and_no_repository_are_clear_usage_errors(self):
        git(self.work, "branch", "zero/taken")
        self.serve([{"text": "never"}])
        r = self.zero("exec", "--worktree", "taken", "-p", "x")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("branch zero/taken already exists", r.stderr)
        plain = os.path.join(self.tmp, "plain")
        os.makedirs(plain)
        r = self.zero("exec", "--worktree", "-p", "x", cwd=plain)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("not in a git repository", r.stderr)
        r = self.zero("exec", "--worktree=../evil", "-p", "x")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(self.model.bodies(), [])

    def test_prune_removes_clean_worktrees_and_keeps_changed_ones(self):
        self.serve([writes("x.txt", "x\n"), {"text": "done"}])
        self.assertEqual(self.zero("exec", "--worktree", "kept", "-p", "w").returncode, 0)
        git(self.work, "worktree", "add", "-q", "-b", "zero/idle",
            os.path.join(self.work, ".zero/worktrees/idle"))
        r = self.zero("worktrees", "prune", "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # idle has no base record: zero does not know it holds nothing, so it stays
        names = [w["name"] for w in self.list_json()]
        self.assertIn("kept", names)


class TaskIsolation(WorktreeCase):
    def test_child_with_isolation_worktree_writes_there_and_parent_gets_branch_and_stat(self):
        m = self.serve([
            parent_calls("task", description="write", prompt="write b.txt",
                         isolation="worktree"),
            {"match": GENERAL, **writes("b.txt", "child\n")},
            {"match": GENERAL, "text": "CHILD DONE"},
            {"match": PARENT, "text": "parent done"},
        ])
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=90)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"][-1]
        self.assertIn("CHILD DONE", res["output"])
        self.assertIn("branch zero/sub-", res["output"])
        self.assertIn("b.txt", res["output"])
        self.assertFalse(os.path.exists(os.path.join(self.work, "b.txt")))
        lst = self.list_json()
        self.assertEqual(len(lst), 1)
        self.assertTrue(os.path.exists(os.path.join(lst[0]["path"], "b.txt")))
        # the child's own requests ran in the worktree
        child_sys = m.bodies()[1]["messages"][0]["content"]
        self.assertIn(".zero/worktrees/sub-", child_sys)

    def test_bad_isolation_is_a_tool_error(self):
        m = self.serve([
            {"tool_calls": [{"name": "task", "arguments": {
                "description": "x", "prompt": "p", "isolation": "container"}}]},
            {"text": "handled"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][0]["content"]
        self.assertIn("isolation must be", res)


class Swarm(WorktreeCase):
    def setUp(self):
        super().setUp()
        self.user_config({"swarm": {"enabled": True}})  # the orchestrator's tools are opt-in

    def test_three_members_write_in_three_worktrees_and_the_orchestrator_collects_three_diffs(self):
        turns = [parent_calls("swarm_spawn", team="t1", members=[
            {"name": n, "prompt": "MEMBER-%s write %s.txt" % (n, n)} for n in ("a", "b", "c")])]
        for n in ("a", "b", "c"):
            turns += [{"match": member(n), **writes("%s.txt" % n, n + "\n")},
                      {"match": member(n), "text": "REPORT-%s" % n}]
        turns += [parent_calls("swarm_collect", team="t1", wait_ms=60000),
                  {"match": PARENT, "text": "all collected"}]
        self.serve(turns)
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        results = self.results(r.stdout)
        spawn, collect = results[0], results[-1]
        self.assertIn("in its own worktree", spawn["output"])
        members = collect["meta"]["members"]
        self.assertEqual([x["name"] for x in members], ["a", "b", "c"])
        for x in members:
            self.assertEqual(x["status"], "success", collect["output"])
            self.assertTrue(x["worktree"]["branch"].startswith("zero/sub-"))
            self.assertIn("%s.txt" % x["name"], x["worktree"]["stat"])
            self.assertIn("REPORT-%s" % x["name"], collect["output"])
        self.assertEqual(len({x["worktree"]["path"] for x in members}), 3)
        for n in ("a", "b", "c"):
            self.assertFalse(os.path.exists(os.path.join(self.work, n + ".txt")))

    def test_swarm_works_without_dot_zero_while_a_hook_sandbox_lives(self):
        # Regression: a user-level hook keeps one sandbox (the hook runner)
        # for the whole run, which held a placeholder *file* at the missing
        # .zero, so swarm_spawn failed (".zero is not a folder"). Now the
        # placeholder is a directory zero claims as its folder; the hook's
        # sandbox still cannot write in it, before or after the claim.
        attack = ("cat >/dev/null; echo ran >> hook-ran.txt; mkdir .zero/evil; "
                  "echo x > .zero/planted; echo x > .zero/swarm/t9/inboxes/a.json; "
                  "ln -s /tmp .zero/link; true")
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        with open(os.path.join(d, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"event": e, "command": "/bin/sh", "args": ["-c", attack]}
                                 for e in ("sessionStart", "afterTool")]}, f)
        self.assertFalse(os.path.lexists(os.path.join(self.work, ".zero")))
        turns = [parent_calls("swarm_spawn", team="t9", members=[
            {"name": "a", "prompt": "MEMBER-a write a.txt"}]),
            {"match": member("a"), **writes("a.txt", "a\n")},
            {"match": member("a"), "text": "A done"},
            parent_calls("swarm_collect", team="t9", wait_ms=60000),
            {"match": PARENT, "text": "ok"}]
        self.serve(turns)
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        results = self.results(r.stdout)
        self.assertEqual([x["status"] for x in results[-1]["meta"]["members"]], ["success"],
                         results)
        dot_zero = os.path.join(self.work, ".zero")
        self.assertTrue(os.path.isdir(dot_zero) and not os.path.islink(dot_zero))
        self.assertTrue(os.path.isdir(os.path.join(dot_zero, "swarm", "t9", "inboxes")))
        wts = [e for e in os.listdir(os.path.join(dot_zero, "worktrees"))
               if os.path.isdir(os.path.join(dot_zero, "worktrees", e))]
        self.assertEqual(len(wts), 1, wts)  # a's, kept with its change
        with open(os.path.join(self.work, "hook-ran.txt")) as f:
            self.assertGreaterEqual(len(f.read().split()), 2)  # the hooks did run
        for planted in ("evil", "planted", "link"):
            self.assertFalse(os.path.lexists(os.path.join(dot_zero, planted)), planted)
        inbox = os.path.join(dot_zero, "swarm", "t9", "inboxes", "a.json")
        if os.path.exists(inbox):
            with open(inbox) as f:
                self.assertNotEqual(f.read().strip(), "x")

    def test_team_size_cap_queues_members(self):
        self.user_config({"swarm": {"enabled": True, "maxTeamSize": 1}})
        turns = [parent_calls("swarm_spawn", team="q", members=[
            {"name": n, "prompt": "MEMBER-%s" % n, "agent": "explore"} for n in ("a", "b")])]
        turns += [{"match": member("a"), "text": "A"}, {"match": member("b"), "text": "B"}]
        turns += [parent_calls("swarm_collect", team="q", wait_ms=60000),
                  {"match": PARENT, "text": "ok"}]
        self.serve(turns)
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        results = self.results(r.stdout)
        states = {x["name"]: x["state"] for x in results[0]["meta"]["members"]}
        self.assertEqual(states, {"a": "started", "b": "queued"})
        self.assertEqual([x["status"] for x in results[-1]["meta"]["members"]],
                         ["success", "success"])

    def test_member_messages_the_orchestrator_and_reads_a_handoff(self):
        turns = [parent_calls("swarm_spawn", team="m", members=[
            {"name": "a", "prompt": "MEMBER-a", "agent": "explore"}]),
            {"match": member("a"), "tool_calls": [{"name": "swarm_send", "arguments": {
                "to": "orchestrator", "message": "HELLO FROM A"}}]},
            {"match": member("a"), "text": "A done"},
            parent_calls("swarm_collect", team="m", wait_ms=60000),
            {"match": PARENT, "text": "ok"}]
        m = self.serve(turns)
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        collect = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"][-1]
        self.assertIn("[message from a] HELLO FROM A", collect["output"])
        # the member was offered its mailbox tools but not swarm_spawn
        body = [b for b in m.bodies()
                if any('You are "a", a member' in str(x.get("content")) for x in b["messages"])]
        member_tools = [t["function"]["name"] for t in body[0]["tools"]]
        self.assertIn("swarm_send", member_tools)
        self.assertNotIn("swarm_spawn", member_tools)
        inbox = os.path.join(self.work, ".zero/swarm/m/inboxes/orchestrator.json")
        self.assertEqual(os.stat(inbox).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(os.path.dirname(inbox)).st_mode & 0o777, 0o700)


class Mailboxes(WorktreeCase):
    def setUp(self):
        super().setUp()
        self.user_config({"swarm": {"enabled": True}})

    def spawn_then(self, *calls):
        turns = [parent_calls("swarm_spawn", team="mb", members=[
            {"name": "a", "prompt": "MEMBER-a", "agent": "explore"}]),
            {"match": member("a"), "text": "A", "delay_before_ms": 3000}]
        turns += [parent_calls(n, **a) for n, a in calls]
        turns += [{"match": PARENT, "text": "ok"}]
        self.serve(turns)
        r = self.zero("exec", "-o", "stream-json", PARENT, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return [e for e in self.lines(r.stdout) if e["type"] == "tool_result"][1:]

    def test_sent_message_lands_unread_and_is_read_once(self):
        # (the 64 KiB and 1,000-message limits: tests/unit/test_mailbox.c)
        res = self.spawn_then(("swarm_send", {"team": "mb", "to": "orchestrator",
                                              "message": "note to self"}),
                              ("swarm_inbox", {"team": "mb"}),
                              ("swarm_inbox", {"team": "mb"}))
        self.assertEqual(res[0]["output"], "Sent to orchestrator's mailbox.")
        self.assertIn("[message from orchestrator] note to self", res[1]["output"])
        self.assertEqual(res[2]["output"], "No new messages.")

    def test_malformed_mailbox_is_an_error_and_left_as_it_is(self):
        d = os.path.join(self.work, ".zero/swarm/mb/inboxes")
        os.makedirs(d, mode=0o700)
        bad = os.path.join(d, "orchestrator.json")
        with open(bad, "w") as f:
            f.write('{"not": "an array"}')
        res = self.spawn_then(("swarm_inbox", {"team": "mb"}),
                              ("swarm_send", {"team": "mb", "to": "orchestrator",
                                              "message": "x"}))
        self.assertIn("malformed", res[0]["output"])
        self.assertIn("malformed", res[1]["output"])
        with open(bad) as f:
            self.assertEqual(f.read(), '{"not": "an array"}')

    def test_bad_member_name_is_refused(self):
        res = self.spawn_then(("swarm_send", {"team": "mb", "to": "../../x", "message": "m"}))
        self.assertIn("is not a member name", res[0]["output"])


class TrustRoot(WorktreeCase):
    """The launch directory stays the trust root: a worktree's own hooks run
    only when the launch directory is trusted for the very same files."""

    HOOKS = {"hooks": [{"id": "m", "event": "sessionStart", "command": "/bin/sh",
                        "args": ["-c", "cat > /dev/null; echo ran > ran.txt"]}]}

    def setUp(self):
        super().setUp()
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "hooks.json"), "w") as f:
            json.dump(self.HOOKS, f)
        git(self.work, "add", ".zero/hooks.json")
        git(self.work, "commit", "-q", "-m", "hooks")

    def ran_in(self, name):
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "--worktree", name, "-p", "hi")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return os.path.exists(os.path.join(self.work, ".zero", "worktrees", name, "ran.txt"))

    def test_untrusted_launch_directory_means_untrusted_worktree(self):
        self.assertFalse(self.ran_in("w1"))

    def test_trusted_launch_directory_with_the_same_files_trusts_the_worktree(self):
        self.serve([{"text": "ok"}])
        self.assertEqual(self.zero("exec", "--trust-workspace", "hi").returncode, 0)
        self.assertTrue(self.ran_in("w2"))

    def test_trust_for_other_files_than_the_worktree_holds_does_not_carry_over(self):
        with open(os.path.join(self.work, ".zero", "hooks.json"), "w") as f:
            json.dump({"hooks": []}, f)  # uncommitted: the worktree gets HEAD's hooks
        self.serve([{"text": "ok"}])
        self.assertEqual(self.zero("exec", "--trust-workspace", "hi").returncode, 0)
        self.assertFalse(self.ran_in("w3"))


@unittest.skipUnless(TMUX, "tmux is not installed")
class InteractiveWorktree(TuiDriver, WorktreeCase):
    def test_zero_worktree_works_there_and_keeps_the_changed_worktree(self):
        self.serve([writes("u.txt", "from the UI\n"), {"text": "UI DONE"}])
        self.start("--worktree", "ui", "--permission-mode", "auto", "write it")
        self.wait_for("UI DONE", timeout=30)
        self.quit_and_check_terminal()
        wt = os.path.join(self.work, ".zero", "worktrees", "ui")
        self.assertTrue(os.path.exists(os.path.join(wt, "u.txt")))
        self.assertFalse(os.path.exists(os.path.join(self.work, "u.txt")))
        self.assertEqual([w["name"] for w in self.list_json()], ["ui"])

    def test_zero_worktree_can_commit_on_its_branch(self):
        # as zero exec --worktree: the commit's git paths are writable in the
        # commands' sandbox, the launch checkout's branch and files are not
        main_head = git(self.work, "rev-parse", "HEAD")
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd":
                "echo new > added.txt && git add added.txt && "
                "git -c user.email=c@c -c user.name=ui commit -q -m 'ui commit' "
                "&& echo COMMITTED"}}]},
            {"text": "UI DONE"}])
        self.start("--worktree", "uic", "--permission-mode", "auto", "commit it")
        self.wait_for("UI DONE", timeout=30)
        self.quit_and_check_terminal()
        self.assertEqual(git(self.work, "log", "-1", "--format=%s", "zero/uic").strip(),
                         "ui commit")
        self.assertEqual(git(self.work, "show", "zero/uic:added.txt"), "new\n")
        self.assertEqual(git(self.work, "rev-parse", "HEAD"), main_head)
        self.assertEqual(git(self.work, "status", "--porcelain"), "")


if __name__ == "__main__":
    main()
