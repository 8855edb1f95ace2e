"""The agent's commands run through the sandbox: `zero exec` in auto mode
allows exec_command when the OS sandbox is active, confines it, and turns
flagged commands into structured denials."""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ZERO_BIN, ZeroTest  # noqa: E402


def ppid_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def pids_named(comm, under=None):
    """PIDs whose name is comm (descendants of under only, when given)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % d) as f:
                if f.read().strip() != comm:
                    continue
        except OSError:
            continue
        pid = int(d)
        if under is not None:
            q, seen = pid, 0
            while q and q != under and q != 1 and seen < 64:
                q, seen = ppid_of(q), seen + 1
            if q != under:
                continue
        out.append(pid)
    return out


@unittest.skipUnless(shutil.which("bwrap"), "bubblewrap not installed")
class AgentCommandsAreSandboxed(ZeroTest):
    def test_auto_mode_runs_commands_confined(self):
        outside = os.path.join(self.tmp, "outside-target")
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "echo made > inside.txt; echo pwn > %s; echo $ZERO_SANDBOX_BACKEND $OPENAI_API_KEY" % outside}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "run it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.work, "inside.txt")))
        self.assertFalse(os.path.exists(outside))
        evs = self.lines(r.stdout)
        dec = [e for e in evs if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["action"], "allow")
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("bwrap", tool["content"])
        self.assertNotIn("sk-test-key", tool["content"])

    def test_bwrap_is_started_by_zero_itself_and_placeholders_go_after_a_timeout(self):
        # No zero stage between the agent and bwrap: bwrap's parent is the
        # agent's process, which also removes the placeholders once the
        # command was killed by its timeout.
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "mkdir .zero 2>/dev/null && echo created; sleep 30", "timeout_ms": 3000}}]},
            {"text": "ok"},
        ])
        p = self.spawn("exec", "-o", "stream-json", "run it")
        parents = set()
        for _ in range(250):
            parents |= {ppid_of(b) for b in pids_named("bwrap") if ppid_of(b) == p.pid}
            if parents and os.path.lexists(os.path.join(self.work, ".zero")):
                break
            time.sleep(0.01)
        self.assertEqual(parents, {p.pid}, "bwrap is not a child of zero exec")
        self.assertTrue(os.path.lexists(os.path.join(self.work, ".zero")))
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        res = [e for e in self.lines(out) if e["type"] == "tool_result"][0]
        self.assertNotIn("created", json.dumps(res))
        self.assertFalse(os.path.lexists(os.path.join(self.work, ".zero")))
        self.assertFalse(os.path.lexists(os.path.join(self.work, ".agents")))

    def test_placeholders_go_when_zero_exec_is_terminated(self):
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "sleep 30", "yield_time_ms": 30000}}]},
            {"text": "ok"},
        ])
        p = self.spawn("exec", "-o", "stream-json", "run it")
        ph = os.path.join(self.work, ".agents")
        for _ in range(500):
            if os.path.lexists(ph) and pids_named("sleep", under=p.pid):
                break
            time.sleep(0.01)
        self.assertTrue(os.path.lexists(ph))
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
        self.assertFalse(os.path.lexists(ph))
        self.assertFalse(os.path.lexists(os.path.join(self.work, ".zero")))
        self.assertFalse(pids_named("bwrap", under=p.pid))

    def test_destructive_command_is_blocked_with_a_structured_block(self):
        victim = os.path.join(self.work, "keep.txt")
        with open(victim, "w") as f:
            f.write("x")
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "rm -rf keep.txt"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "clean")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(victim))
        evs = self.lines(r.stdout)
        req = [e for e in evs if e["type"] == "permission_request"]
        self.assertTrue(req)
        dec = [e for e in evs if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["action"], "deny")
        res = [e for e in evs if e["type"] == "tool_result"][0]
        self.assertEqual(res["status"], "error")
        self.assertEqual(res["block"], dec["block"])  # tool_result carries the block too
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("[destructive]", tool["content"])
        self.assertIn("grants allow", tool["content"])
        # the denial's block rides on the decision, and the session keeps it
        self.assertEqual(dec["code"], "destructive")
        self.assertEqual(dec["block"]["code"], "destructive")
        self.assertTrue(dec["block"]["recoverable"])
        self.assertIn("grants allow", dec["block"]["allow"])
        self.assertIn("rm -rf", dec["block"]["reason"])
        sid = self.session_ids()[-1]
        rec = [e for e in self.session_events(sid) if e["type"] == "permission_decision"]
        self.assertEqual(len(rec), 1, rec)
        payload = rec[0].get("payload", rec[0])
        self.assertEqual(payload["block"], dec["block"])
        self.assertEqual(payload["code"], "destructive")

    def test_saved_grant_allows_a_prefix(self):
        self.env["ZERO_GRANTS_FILE"] = os.path.join(self.tmp, "grants.json")
        g = self.zero("sandbox", "grants", "allow", "exec_command", "--prefix", "rm -rf build")
        self.assertEqual(g.returncode, 0, g.stderr)
        self.assertEqual(os.stat(self.env["ZERO_GRANTS_FILE"]).st_mode & 0o777, 0o600)
        os.makedirs(os.path.join(self.work, "build"))
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "rm -rf build"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "clean")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "build")))
        dec = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["grant"], {"tool": "exec_command", "kind": "prefix",
                                        "value": "rm -rf build", "action": "allow",
                                        "scope": "always", "source": "saved"})
        sid = self.session_ids()[-1]
        rec = [e for e in self.session_events(sid) if e["type"] == "permission_decision"][0]
        self.assertEqual(rec.get("payload", rec)["grant"], dec["grant"])
        lst = self.zero("sandbox", "grants", "list")
        self.assertIn("allow exec_command prefix rm -rf build", lst.stdout)
        self.assertEqual(self.zero("sandbox", "grants", "revoke", "1").returncode, 0)
        self.assertIn("No saved grants", self.zero("sandbox", "grants", "list").stdout)

    def test_sandbox_exec_flag_without_its_value_says_so(self):
        for flag in ("--add-dir", "-C"):
            r = self.zero("sandbox", "exec", flag)
            self.assertEqual(r.returncode, 2)
            self.assertIn("%s needs a directory" % flag, r.stderr)
        extra = os.path.join(self.tmp, "x")
        os.makedirs(extra)
        r = self.zero("sandbox", "exec", "--add-dir=" + extra, "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_grants_cli_notes_a_name_that_is_not_a_builtin_tool(self):
        self.env["ZERO_GRANTS_FILE"] = os.path.join(self.tmp, "grants.json")
        g = self.zero("sandbox", "grants", "allow", "exec_comand", "--prefix", "ls")
        self.assertEqual(g.returncode, 0, g.stderr)
        self.assertIn("exec_comand is not a built-in tool", g.stderr)
        g = self.zero("sandbox", "grants", "deny", "exec_command", "--prefix", "git push")
        self.assertEqual((g.returncode, g.stderr), (0, ""))

    def test_grants_cli_flags_go_through_the_option_parser(self):
        path = os.path.join(self.tmp, "grants.json")
        self.env["ZERO_GRANTS_FILE"] = path
        # A mistyped flag is named with the nearest real one, and nothing is saved.
        g = self.zero("sandbox", "grants", "allow", "exec_command", "--prefx", "git status")
        self.assertEqual(g.returncode, 2)
        self.assertIn('unknown flag "--prefx"; did you mean --prefix?', g.stderr)
        g = self.zero("sandbox", "grants", "list", "--jsn")
        self.assertEqual(g.returncode, 2)
        self.assertIn("did you mean --json?", g.stderr)
        g = self.zero("sandbox", "grants", "lst")
        self.assertEqual(g.returncode, 2)
        self.assertIn('unknown command "lst"; did you mean list?', g.stderr)
        self.assertFalse(os.path.exists(path))
        # A flag of another subcommand, both scopes, a missing value: usage errors.
        for words in (["allow", "x", "--json"], ["list", "--prefix", "ls"],
                      ["allow", "x", "--prefix", "ls", "--path", "/tmp"],
                      ["deny", "x", "--prefix"], ["allow"], ["list", "extra"]):
            g = self.zero("sandbox", "grants", *words)
            self.assertEqual(g.returncode, 2, words)
            self.assertIn("Usage: zero sandbox grants", g.stderr)
        self.assertFalse(os.path.exists(path))
        # --flag=value and a flag before the tool name are the parser's forms.
        g = self.zero("sandbox", "grants", "allow", "--prefix=git log", "exec_command")
        self.assertEqual(g.returncode, 0, g.stderr)
        lst = self.zero("sandbox", "grants", "list", "--json")
        self.assertEqual([(e["tool"], e["kind"], e["value"]) for e in json.loads(lst.stdout)],
                         [("exec_command", "prefix", "git log")])
        # The help is generated from the same table.
        h = self.zero("sandbox", "grants", "--help")
        self.assertEqual(h.returncode, 0)
        for flag in ("--json", "--prefix CMD", "--path DIR"):
            self.assertIn(flag, h.stdout)

    def test_write_tool_refuses_protected_names(self):
        self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": ".zero/config.json", "content": "{}"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "configure")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, ".zero", "config.json")))
        dec = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["action"], "deny")

    def test_unsafe_warning_names_the_flag_that_was_passed(self):
        for flags, why in ((["--permission-mode", "unsafe"], "--permission-mode unsafe"),
                           (["--auto", "high"], "--auto high"),
                           (["--skip-permissions-unsafe"], "--skip-permissions-unsafe")):
            self.serve([{"text": "ok"}])
            r = self.zero("exec", "-o", "stream-json", *flags, "hi")
            self.assertEqual(r.returncode, 0, r.stderr)
            warn = [e for e in self.lines(r.stdout) if e["type"] == "warning"]
            self.assertTrue(warn, flags)
            self.assertIn("because %s was passed" % why, warn[0]["message"])
        # allowed calls carry no block
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "true"}}]},
                    {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "go")
        res = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"][0]
        self.assertEqual(res["status"], "ok")
        self.assertNotIn("block", res)

    def test_add_dir_before_or_after_exec_makes_a_dir_writable(self):
        extra = os.path.join(self.tmp, "extra")
        os.makedirs(extra)
        for i, pre in enumerate(([], ["--add-dir", extra], ["--add-dir=" + extra])):
            post = ["--add-dir", extra] if not pre else []
            name = "f%d.txt" % i
            self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "echo x > %s/%s; echo wrote" % (extra, name)}}]}, {"text": "ok"}])
            r = self.zero(*pre, "exec", *post, "-o", "stream-json", "write there")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.exists(os.path.join(extra, name)), (pre, post, r.stdout))
        # without it the directory stays read-only
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "echo x > %s/no.txt; true" % extra}}]}, {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "write there")
        self.assertFalse(os.path.exists(os.path.join(extra, "no.txt")))

    def test_apply_patch_cannot_plant_hooks_or_config(self):
        # apply_patch names its files inside the patch; the engine checks
        # each one like write_file's path (a planted pre-commit hook would
        # run outside the sandbox at the user's next commit).
        import subprocess
        subprocess.run(["git", "init", "-q", self.work], check=True)
        patch = ("*** Begin Patch\n*** Add File: ok.txt\n+fine\n"
                 "*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+touch /tmp/pwned\n"
                 "*** Add File: .zero/config.json\n+{}\n*** End Patch\n")
        self.serve([{"tool_calls": [{"name": "apply_patch", "arguments": {"input": patch}}]},
                    {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "patch it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, ".git", "hooks", "pre-commit")))
        self.assertFalse(os.path.exists(os.path.join(self.work, ".zero")))
        self.assertFalse(os.path.exists(os.path.join(self.work, "ok.txt")))  # all or nothing
        dec = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"][0]
        self.assertEqual((dec["action"], dec["code"]), ("deny", "protected_path"))
        self.assertIn(".git/hooks/pre-commit", dec["block"]["reason"])

    def test_file_tools_do_not_read_what_commands_cannot(self):
        # read_file, grep, glob and list_directory run in zero itself, not in
        # the sandbox: they must refuse denyRead paths, hidden credentials and
        # zero's config dir too, also through a symlink in the workspace.
        priv = os.path.join(self.tmp, "priv")
        os.makedirs(os.path.join(priv, "pub"))
        with open(os.path.join(priv, "s"), "w") as f:
            f.write("DENIED-SECRET")
        with open(os.path.join(priv, "pub", "p"), "w") as f:
            f.write("PUBLIC-OK")
        os.makedirs(os.path.join(self.home, ".ssh"))
        with open(os.path.join(self.home, ".ssh", "id_rsa"), "w") as f:
            f.write("SSH-SECRET")
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(os.path.join(cfg, "mcp-oauth"), exist_ok=True)
        with open(os.path.join(cfg, "mcp-oauth", "srv"), "w") as f:
            f.write("OAUTH-SECRET")
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"sandbox": {"denyRead": [priv], "allowRead": [os.path.join(priv, "pub")]}}, f)
        os.symlink(os.path.join(self.home, ".ssh"), os.path.join(self.work, "keys"))
        calls = [{"name": "read_file", "arguments": {"path": os.path.join(priv, "s")}},
                 {"name": "read_file", "arguments": {"path": "~/.ssh/id_rsa"}},
                 {"name": "read_file", "arguments": {"path": "keys/id_rsa"}},
                 {"name": "read_file", "arguments": {"path": os.path.join(cfg, "mcp-oauth", "srv")}},
                 {"name": "grep", "arguments": {"pattern": "SECRET", "path": "keys"}},
                 {"name": "list_directory", "arguments": {"path": "~/.ssh"}},
                 {"name": "glob", "arguments": {"pattern": "*", "cwd": "keys"}},
                 {"name": "read_file", "arguments": {"path": os.path.join(priv, "pub", "p")}}]
        self.serve([{"tool_calls": calls}, {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "read them")
        self.assertEqual(r.returncode, 0, r.stderr)
        res = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual(len(res), len(calls))
        for i, e in enumerate(res[:-1]):
            self.assertEqual(e["status"], "error", e)
            self.assertIn("denied by the sandbox policy", e["output"])
            self.assertNotIn("SECRET", e["output"])
            if calls[i]["name"] != "read_file":  # a listing names nothing inside
                self.assertNotIn("id_rsa", e["output"])
        self.assertIn("PUBLIC-OK", res[-1]["output"])

    def test_escalation_request_reaches_the_engine(self):
        call = {"name": "exec_command", "arguments": {
            "cmd": "echo net=$ZERO_SANDBOX_NETWORK", "sandbox_permissions": "with_additional_permissions",
            "additional_permissions": {"network": True}, "justification": "fetch the deps",
            "prefix_rule": ["echo"]}}
        m = self.serve([{"tool_calls": [call]}, {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "fetch")
        self.assertEqual(r.returncode, 0, r.stderr)
        dec = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["action"], "deny")  # headless: nobody to approve it
        self.assertEqual(dec["code"], "escalation")
        self.assertIn("fetch the deps", dec["block"]["reason"])
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertNotIn("unknown property", tool["content"])
        # approved through a grant: this command runs with the network
        self.env["ZERO_GRANTS_FILE"] = os.path.join(self.tmp, "grants.json")
        self.assertEqual(self.zero("sandbox", "grants", "allow", "exec_command", "--prefix",
                                   "echo").returncode, 0)
        m = self.serve([{"tool_calls": [call]}, {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "fetch")
        dec = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["action"], "allow", dec)
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("net=allow", tool["content"])
        # an unknown escalation value is a schema error, not a silent default
        bad = dict(call, arguments=dict(call["arguments"], sandbox_permissions="root"))
        m = self.serve([{"tool_calls": [bad]}, {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "fetch")
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("sandbox_permissions", tool["content"])
        self.assertNotIn("net=", tool["content"])

    def test_offline_run_denies_the_network_and_disabled_tools_are_hidden(self):
        # config opens the network, --offline closes it again
        os.makedirs(os.path.join(self.env["XDG_CONFIG_HOME"], "zero"), exist_ok=True)
        with open(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json"), "w") as f:
            f.write('{"sandbox": {"network": "allow"}}')
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "curl -s http://127.0.0.1:1/"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo net=$ZERO_SANDBOX_NETWORK"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "--offline", "--disabled-tools", "write_file,edit_file", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        decs = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"]
        self.assertEqual(decs[0]["action"], "deny")
        self.assertEqual(decs[0]["code"], "offline")
        self.assertEqual(decs[1]["action"], "allow")
        tool = [x for x in m.bodies()[2]["messages"] if x["role"] == "tool"][-1]
        self.assertIn("net=deny", tool["content"])
        names = [t["function"]["name"] for t in m.bodies()[0]["tools"]]
        self.assertIn("exec_command", names)
        self.assertNotIn("write_file", names)
        self.assertNotIn("edit_file", names)
        # a disabled tool called anyway is denied first
        self.serve([{"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
                    {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "--enabled-tools", "read_file", "go")
        dec = [e for e in self.lines(r.stdout) if e["type"] == "permission_decision"][0]
        self.assertEqual(dec["code"], "tool_denied")
        self.assertFalse(os.path.exists(os.path.join(self.work, "x.txt")))
        bad = self.zero("exec", "--disabled-tools", "exec_comand", "go")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("no built-in tool named \"exec_comand\"", bad.stderr)

    def test_a_degraded_sandbox_is_said_and_recorded(self):
        self.env["ZERO_SANDBOX_FORCE_BACKEND"] = "landlock"
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        w = [e for e in self.lines(r.stdout) if e["type"] == "warning"]
        self.assertEqual(len(w), 1, w)
        self.assertEqual(w[0]["code"], "sandbox_degraded")
        self.assertIn("Landlock + seccomp only", w[0]["message"])
        sid = self.session_ids()[-1]
        rec = [e for e in self.session_events(sid) if e["type"] == "warning"]
        self.assertEqual(len(rec), 1, rec)
        payload = rec[0].get("payload", rec[0])
        self.assertEqual(payload["code"], "sandbox_degraded")
        self.assertEqual(payload["meta"], {"backend": "landlock", "enforcement": "partial",
                                           "network": "deny"})
        # full enforcement: no warning at all
        del self.env["ZERO_SANDBOX_FORCE_BACKEND"]
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertFalse([e for e in self.lines(r.stdout) if e["type"] == "warning"])

    def test_commands_do_not_inherit_signals_a_parent_left_ignored(self):
        # A parent that is not a glibc program (a CI runner, a supervisor)
        # can leave signals 32 and 33 ignored; exec passes that on, glibc's
        # sigaction cannot undo it and posix_spawn skips them. zero resets
        # them, so neither the agent's command nor `zero sandbox exec`'s
        # starts with anything ignored.
        def ignore_32_and_33():
            libc = ctypes.CDLL(None, use_errno=True)
            sa = (ctypes.c_ulong * 4)(1, 0, 0, 0)  # SIG_IGN, flags, restorer, mask
            for sig in (32, 33):
                if libc.syscall(13, sig, ctypes.byref(sa), None, 8) != 0:  # rt_sigaction
                    raise OSError(ctypes.get_errno(), "rt_sigaction")

        probe = "grep -E '^Sig(Ign|Blk)' /proc/self/status"
        # bwrap's inner stage, the Landlock-only one, and none (the command
        # is zero's own posix_spawn child)
        for backend in ("", "landlock", "none"):
            env = dict(self.env)
            if backend:
                env["ZERO_SANDBOX_FORCE_BACKEND"] = backend
            r = subprocess.run([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", probe],
                               cwd=self.work, env=env, capture_output=True, text=True,
                               timeout=60, preexec_fn=ignore_32_and_33)
            self.assertEqual(r.returncode, 0, backend + r.stderr)
            self.assertIn("SigIgn:\t0000000000000000", r.stdout, backend)
            self.assertIn("SigBlk:\t0000000000000000", r.stdout, backend)
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": probe}}]},
            {"text": "ok"},
        ])
        r = subprocess.run([ZERO_BIN, "exec", "-o", "stream-json", "run it"], cwd=self.work,
                           env=self.env, capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL, preexec_fn=ignore_32_and_33)
        self.assertEqual(r.returncode, 0, r.stderr)
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual(len(results), 1, r.stdout)
        self.assertIn("SigIgn:\t0000000000000000", json.dumps(results[0]).replace("\\t", "\t"))

    def test_sandbox_policy_and_check_commands(self):
        r = self.zero("sandbox", "policy", "--json", "--effective")
        self.assertEqual(r.returncode, 0, r.stderr)
        import json
        p = json.loads(r.stdout)
        self.assertEqual(p["network"], "deny")
        self.assertEqual(p["backend"], "bwrap")
        self.assertEqual(p["writeRoots"][0], os.path.realpath(self.work))
        c = self.zero("sandbox", "check")
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertIn("backend: bwrap (full)", c.stdout)
        # every row reaches a pipe, not only the last (they were lost while
        # the probes ran with stdout on /dev/null)
        self.assertIn("ok   bubblewrap: ", c.stdout)
        self.assertIn("ok   a command starts in the sandbox", c.stdout)
        self.assertIn("ok   inner stage: ", c.stdout)
        self.assertNotIn("FAIL", c.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=1)
