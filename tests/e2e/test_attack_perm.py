"""Attack tests for the permission module (issue 14, holes 2, 3 and 6).

Each test asserts the real effect on the host: a marker file outside the
workspace was never created, a listener on the host never saw a connection
or a request, the grants file holds every grant. The module runs twice when
started as root: as root, and as uid 65534 (setpriv), from a copy of the
e2e directory in a place that user can read (the checkout may not be).
"""
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import ZeroTest  # noqa: E402
import unpriv  # noqa: E402
from test_sandbox_attacks import Listener  # noqa: E402  (a host listener counting connections)

UNPRIV = os.environ.get("ZERO_E2E_UNPRIV") == "1"
PY = "/usr/bin/python3"
# Outside the workspace and outside /tmp: /tmp is a private tmpfs inside the
# sandbox, so a marker aimed there would never reach the host either way and
# the test would pass vacuously.
BASE = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None


def have_bwrap():
    return shutil.which("bwrap") is not None


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a small page and records its path."""
    seen = []

    def log_message(self, *a):
        pass

    def do_GET(self):
        Recorder.seen.append(self.path)
        body = b"<html><body><p>fetched-page</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class PermCase(ZeroTest):
    def setUp(self):
        super().setUp()
        self.outside = tempfile.mkdtemp(prefix="zero-perm-out-", dir=BASE)
        os.chmod(self.outside, 0o777)
        self.grants = os.path.join(self.tmp, "grants.json")
        self.env["ZERO_GRANTS_FILE"] = self.grants

    def tearDown(self):
        shutil.rmtree(self.outside, ignore_errors=True)
        super().tearDown()

    def user_config(self, doc):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(doc, f)

    def decisions(self, stdout):
        return [e for e in self.lines(stdout) if e["type"] == "permission_decision"]

    def tool_results(self, stdout):
        return [e for e in self.lines(stdout) if e["type"] == "tool_result"]


@unittest.skipUnless(have_bwrap() and BASE, "bubblewrap or /var/tmp missing")
class EscalationDiesWithItsCall(PermCase):
    """Hole 2: an approved escalation whose call fails before it spawns (bad
    workdir) must not carry over to the next command."""

    def test_failed_escalated_call_leaves_nothing_for_the_next_command(self):
        lis = Listener()
        self.addCleanup(lis.close)
        marker = os.path.join(self.outside, "marker")
        # A saved grant approves the escalated call (a network escalation:
        # what a grant may answer in zero exec).
        r = self.zero("sandbox", "grants", "allow", "exec_command", "--prefix", "echo")
        self.assertEqual(r.returncode, 0, r.stderr)
        plain = ("touch %s; %s -c \"import socket; socket.create_connection(('127.0.0.1', %d), 2)"
                 "\" 2>/dev/null; echo plain-ran") % (marker, PY, lis.port)
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "echo escalated", "workdir": "no-such-dir",
                "sandbox_permissions": "with_additional_permissions",
                "additional_permissions": {"network": True}, "justification": "deps"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": plain}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        decs = self.decisions(r.stdout)
        self.assertEqual(decs[0]["action"], "allow", decs[0])   # the grant approved it
        self.assertEqual(decs[1]["action"], "allow", decs[1])   # the plain command ran
        results = self.tool_results(r.stdout)
        self.assertIn("does not exist", results[0]["output"])   # failed before spawning
        self.assertIn("plain-ran", results[1]["output"])
        # the real effect: no network, no write outside the workspace
        self.assertEqual(lis.accepted, 0, "the plain command got the network")
        self.assertFalse(os.path.exists(marker))
        self.assertEqual(len(m.bodies()), 3)

    def test_a_network_grant_never_answers_a_request_to_leave_the_sandbox(self):
        marker = os.path.join(self.outside, "unsandboxed")
        r = self.zero("sandbox", "grants", "allow", "exec_command", "--prefix", "touch")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "touch %s" % marker, "sandbox_permissions": "require_escalated",
                "justification": "needs the host"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        dec = self.decisions(r.stdout)[0]
        self.assertEqual(dec["action"], "deny", dec)
        self.assertEqual(dec["code"], "escalation")
        self.assertFalse(os.path.exists(marker))


class NetworkToolsFollowThePolicy(PermCase):
    """Hole 3: web_fetch runs in zero's own process, so the engine holds it to
    --offline and sandbox.network; the listener must see no request."""

    def setUp(self):
        super().setUp()
        Recorder.seen = []
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        self.url = "http://127.0.0.1:%d/page" % self.http.server_address[1]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        # loopback is refused by web_fetch's own address policy: let it
        # through, so only the permission decision stands in the way
        self.env["ZERO_WEB_FETCH_ALLOW_LOOPBACK"] = "1"

    def tearDown(self):
        self.http.shutdown()
        self.http.server_close()
        super().tearDown()

    def fetch(self, *flags):
        self.serve([
            {"tool_calls": [{"name": "web_fetch", "arguments": {"url": self.url}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", *flags, "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return self.decisions(r.stdout)[0], self.tool_results(r.stdout)[0]

    def test_network_deny_refuses_headless_and_says_what_would_allow_it(self):
        dec, res = self.fetch()
        self.assertEqual(dec["action"], "deny", dec)
        self.assertEqual(dec["code"], "network")
        self.assertNotIn("OS sandbox (", dec["reason"])
        self.assertNotIn("runs in the OS sandbox", dec["reason"])
        self.assertIn("enforceToolNetwork", dec["block"]["allow"])
        self.assertNotIn("fetched-page", res["output"])
        self.assertEqual(Recorder.seen, [])

    def test_offline_refuses_even_with_the_network_allowed_and_unsafe(self):
        self.user_config({"sandbox": {"network": "allow"}})
        for flags in (("--offline",), ("--offline", "--skip-permissions-unsafe")):
            dec, res = self.fetch(*flags)
            self.assertEqual(dec["action"], "deny", (flags, dec))
            self.assertEqual(dec["code"], "offline")
            self.assertEqual(Recorder.seen, [])

    def test_a_project_config_cannot_exempt_network_tools(self):
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "config.json"), "w") as f:
            f.write('{"sandbox": {"enforceToolNetwork": false}}')
        dec, _ = self.fetch()
        self.assertEqual(dec["action"], "deny", dec)
        self.assertEqual(Recorder.seen, [])

    def test_mcp_server_mode_refuses_it_too(self):
        msgs = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "web_fetch", "arguments": {"url": self.url}}},
        ]
        r = self.zero("serve", "--mcp", input="".join(json.dumps(x) + "\n" for x in msgs))
        self.assertEqual(r.returncode, 0, r.stderr)
        out = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        call = [x for x in out if x.get("id") == 2][0]["result"]
        self.assertTrue(call["isError"])
        self.assertIn("permission denied", call["content"][0]["text"])
        self.assertEqual(Recorder.seen, [])

    def test_what_allows_it_does(self):
        # control: the same fetch reaches the listener once a rule allows it,
        # so the refusals above are the policy's doing
        self.user_config({"sandbox": {"enforceToolNetwork": False}})
        dec, res = self.fetch()
        self.assertEqual(dec["action"], "allow", dec)
        self.assertIn("zero's own process", dec["reason"])
        self.assertEqual(Recorder.seen, ["/page"])
        Recorder.seen = []
        self.user_config({})
        r = self.zero("sandbox", "grants", "allow", "web_fetch")
        self.assertEqual(r.returncode, 0, r.stderr)
        dec, res = self.fetch()
        self.assertEqual(dec["action"], "allow", dec)
        self.assertEqual(Recorder.seen, ["/page"])


class GrantsAreKeptAndNarrow(PermCase):
    """Hole 6: concurrent saves keep every grant; too-broad grants are refused."""

    def test_thirty_concurrent_grant_saves_are_all_kept(self):
        procs = []
        for i in range(30):
            verb = "deny" if i == 7 else "allow"
            procs.append(subprocess.Popen(
                [os.environ.get("ZERO_BIN") or os.path.join(HERE, "..", "..", "build", "zero"),
                 "sandbox", "grants", verb, "exec_command", "--prefix", "make target%d" % i],
                cwd=self.work, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        for p in procs:
            _, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
        with open(self.grants) as f:
            doc = json.load(f)
        values = sorted(g["value"] for g in doc["grants"])
        self.assertEqual(values, sorted("make target%d" % i for i in range(30)))
        deny = [g for g in doc["grants"] if g["action"] == "deny"]
        self.assertEqual([g["value"] for g in deny], ["make target7"])
        self.assertEqual(os.stat(self.grants).st_mode & 0o777, 0o600)

    def run_concurrently(self, argvs):
        zero = os.environ.get("ZERO_BIN") or os.path.join(HERE, "..", "..", "build", "zero")
        procs = [subprocess.Popen([zero] + a, cwd=self.work, env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for a in argvs]
        for p in procs:
            _, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)

    def test_concurrent_mcp_grants_and_provider_edits_are_all_kept(self):
        # the same class: mcp-permissions.json and the user config
        self.run_concurrently([["mcp", "grant", "srv", "tool%d" % i] for i in range(20)] +
                              [["providers", "add", "p%d" % i, "--kind", "openai", "--base-url",
                                "http://127.0.0.1:9/v1"] for i in range(20)])
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        with open(os.path.join(cfg, "mcp-permissions.json")) as f:
            tools = json.load(f)["servers"]["srv"]["tools"]
        self.assertEqual(sorted(tools), sorted("tool%d" % i for i in range(20)))
        with open(os.path.join(cfg, "config.json")) as f:
            names = [p["name"] for p in json.load(f)["providers"]]
        self.assertEqual(sorted(names), sorted("p%d" % i for i in range(20)))

    def test_grants_on_commands_that_run_commands_are_refused(self):
        for prefix in ("bash", "sh -c", "env", "sudo", "xargs", "find", "find . -delete", "git",
                       "python3", "node", "timeout 5", "nice"):
            r = self.zero("sandbox", "grants", "allow", "exec_command", "--prefix", prefix)
            self.assertEqual(r.returncode, 2, (prefix, r.stdout, r.stderr))
            self.assertIn("refused", r.stderr)
        r = self.zero("sandbox", "grants", "allow", "read_file", "--path", "")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("empty path", r.stderr)
        self.assertFalse(os.path.exists(self.grants) and
                         json.load(open(self.grants)).get("grants"))
        # a deny on them is fine
        r = self.zero("sandbox", "grants", "deny", "exec_command", "--prefix", "bash")
        self.assertEqual(r.returncode, 0, r.stderr)

    @unittest.skipUnless(have_bwrap() and BASE, "bubblewrap or /var/tmp missing")
    def test_a_broad_grant_in_the_file_is_ignored_with_a_warning(self):
        marker = os.path.join(self.outside, "via-bash")
        with open(self.grants, "w") as f:
            json.dump({"version": 1, "grants": [
                {"tool": "exec_command", "kind": "prefix", "value": "bash", "action": "allow"}]}, f)
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "bash -c 'touch %s'" % marker,
                "sandbox_permissions": "with_additional_permissions"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("is ignored", r.stderr)
        dec = self.decisions(r.stdout)[0]
        self.assertEqual(dec["action"], "deny", dec)
        self.assertFalse(os.path.exists(marker))


class AcceptEditsKeepsTheRest(PermCase):
    """accept-edits lets file edits inside the write roots through and
    nothing else: a command still asks (headless: refused, it never runs),
    an edit outside the write roots or to a protected name is refused."""

    def test_edits_run_commands_and_escapes_do_not(self):
        cmd_marker = os.path.join(self.work, "cmd-ran")
        out_file = os.path.join(self.outside, "edit-escaped")
        hook = os.path.join(self.work, ".git", "hooks", "pre-commit")
        os.makedirs(os.path.dirname(hook))
        rel_out = os.path.relpath(os.path.join(self.outside, "patch-escaped"), self.work)
        m = self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "inside.txt", "content": "ok\n"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "touch cmd-ran"}}]},
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": out_file, "content": "x\n"}}]},
            {"tool_calls": [{"name": "apply_patch", "arguments": {"input":
                "*** Begin Patch\n*** Add File: fine.txt\n+x\n*** Add File: %s\n+x\n"
                "*** End Patch\n" % rel_out}}]},
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": ".git/hooks/pre-commit",
                                           "content": "#!/bin/sh\ntouch /tmp/pwned\n"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "--permission-mode", "accept-edits", "go",
                      timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        decs = [(d["action"], d.get("code") or d.get("reason", "")) for d in self.decisions(r.stdout)]
        self.assertEqual([a for a, _ in decs], ["allow", "deny", "deny", "deny", "deny"], decs)
        # the real effect on the host
        with open(os.path.join(self.work, "inside.txt")) as f:
            self.assertEqual(f.read(), "ok\n")
        self.assertFalse(os.path.exists(cmd_marker), "the command ran unasked")
        self.assertFalse(os.path.exists(out_file), "an edit escaped the write roots")
        self.assertFalse(os.path.exists(os.path.join(self.outside, "patch-escaped")))
        self.assertFalse(os.path.exists(os.path.join(self.work, "fine.txt")),
                         "half of a refused patch was applied")
        self.assertFalse(os.path.exists(hook), "a git hook was written")
        # the command was refused as needing approval, not for another reason
        results = self.tool_results(r.stdout)
        self.assertIn("approval", json.dumps(results[1]))
        self.assertEqual(len(m.bodies()), 6)


if __name__ == "__main__":
    unpriv.main(__file__)
