"""Attacks through an editor's files and terminals (`zero acp` with a client
that offers fs/read_text_file, fs/write_text_file and terminal/*; issue 23).

When the editor owns the files and terminals, zero hands it paths and
commands: none may get past zero's permission module, its writable roots,
its protected paths, its read guard or its sandbox. Each test asserts the
effect on the host and what the editor was (never) asked: a write outside
the workspace, into .git/config or through a planted symlink neither lands
on disk nor reaches fs/write_text_file; a hidden credential or a denyRead
file never reaches fs/read_text_file; a command the editor's terminal runs
is still confined by zero's sandbox (its write outside the workspace fails
on the host) and never sees the editor's environment; a command the user
rejects, or one in plan mode, never reaches terminal/create; the diff an
apply_patch call shows (sent before the call is decided) never holds a
credential read through a planted symlink. The editor is
tests/e2e/acp_editor.py (no npm: it runs as uid 65534 too). Runs as root
and as uid 65534 (unpriv.py).
"""
import json
import os
import shutil
import subprocess
import unittest

import unpriv
from acp_editor import Editor
from harness import FakeModel

ZERO_BIN = unpriv.zero_bin()
# Outside /tmp: /tmp is private inside the sandbox (see test_sandbox_attacks).
BASE = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
SECRET = "plain words the redactor keeps 4711"
EDITOR_SECRET = "editor-only-value-8126"


def call(name, **args):
    return {"tool_calls": [{"name": name, "arguments": args}]}


class EditorAttack(unittest.TestCase):
    def setUp(self):
        unpriv.attack_root(self, "zero-aacp-", BASE)
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_DATA_HOME": os.path.join(self.home, ".local", "share"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "TMPDIR": self.root,
            "LANG": "C.UTF-8",
            "ZERO_RETRY_BASE_MS": "20",
        }
        self.model = None
        with open(os.path.join(self.ws, "notes.txt"), "w") as f:
            f.write("alpha\n")
        subprocess.run(["git", "init", "-q", self.ws], check=True)
        self.git_config = os.path.join(self.ws, ".git", "config")
        with open(self.git_config) as f:
            self.git_config_text = f.read()

    def tearDown(self):
        if self.model:
            self.model.stop()
        subprocess.run(["chmod", "-R", "u+rwX", self.root], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)

    def session(self, turns, mode="auto", answer="allow-once", prompt="go", set_mode=None):
        """One prompt through the editor; returns it closed (exit 0 checked)."""
        self.model = FakeModel(turns + [{"text": "done"}], self.root)
        self.env.update({"OPENAI_BASE_URL": self.model.base_url,
                         "OPENAI_API_KEY": "sk-test-key-for-fake-server",
                         "OPENAI_MODEL": "test-model"})
        term_env = dict(self.env, EDITOR_SECRET=EDITOR_SECRET)
        ed = Editor(ZERO_BIN, self.ws, self.env, answer=answer, terminal_env=term_env, mode=mode)
        try:
            ed.initialize()
            sid = ed.request("session/new", {"cwd": self.ws, "mcpServers": []})["result"]["sessionId"]
            if set_mode:
                self.assertIn("result", ed.request("session/set_mode",
                                                   {"sessionId": sid, "modeId": set_mode}))
            done = ed.request("session/prompt", {"sessionId": sid,
                                                 "prompt": [{"type": "text", "text": prompt}]})
            self.assertEqual(done.get("result"), {"stopReason": "end_turn"}, done)
        finally:
            self.assertEqual(ed.close(), 0)
        return ed

    def results(self, ed):
        """Every tool result's text the editor was shown."""
        out = []
        for u in ed.updates:
            up = u["update"]
            if up["sessionUpdate"] == "tool_call_update":
                out += [c["content"]["text"] for c in up.get("content", [])
                        if c.get("type") == "content"]
        return "\n".join(out)

    def paths(self, ed, method):
        return [p["path"] for m, p in ed.requests if m == method]

    def test_writes_outside_the_roots_never_reach_the_editor(self):
        os.symlink(self.outside, os.path.join(self.ws, "link"))
        ed = self.session([
            call("write_file", path=os.path.join(self.outside, "abs.txt"), content="x"),
            call("write_file", path="../outside/rel.txt", content="x"),
            call("write_file", path="link/via-link.txt", content="x"),
            call("write_file", path=".git/config", content="[core]\n\tfsmonitor = touch /x\n",
                 overwrite=True),
            call("apply_patch", input="*** Begin Patch\n*** Add File: ../outside/patch.txt\n"
                                      "+x\n*** End Patch\n"),
            call("write_file", path="ok.txt", content="fine\n"),
        ])
        self.assertEqual(os.listdir(self.outside), [], "a write escaped the workspace")
        with open(self.git_config) as f:
            self.assertEqual(f.read(), self.git_config_text, ".git/config was changed")
        # The one allowed write went through the editor; nothing else was asked.
        self.assertEqual(self.paths(ed, "fs/write_text_file"), [os.path.join(self.ws, "ok.txt")])
        with open(os.path.join(self.ws, "ok.txt")) as f:
            self.assertEqual(f.read(), "fine\n")

    def test_denied_reads_never_reach_the_editor(self):
        ssh = os.path.join(self.home, ".ssh")
        os.makedirs(ssh)
        with open(os.path.join(ssh, "id_rsa"), "w") as f:
            f.write(SECRET)
        with open(os.path.join(self.ws, "private.txt"), "w") as f:
            f.write(SECRET)
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfg)
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"sandbox": {"denyRead": [os.path.join(self.ws, "private.txt")]}}, f)
        os.symlink(os.path.join(ssh, "id_rsa"), os.path.join(self.ws, "key-link"))
        ed = self.session([
            call("read_file", path=os.path.join(ssh, "id_rsa")),
            call("read_file", path="private.txt"),
            call("read_file", path="key-link"),
            call("read_file", path="notes.txt"),
        ])
        self.assertEqual(self.paths(ed, "fs/read_text_file"), [os.path.join(self.ws, "notes.txt")])
        self.assertNotIn(SECRET, self.results(ed))
        self.assertIn("alpha", self.results(ed))

    def test_an_editor_terminal_is_still_zeros_sandbox(self):
        pwn = os.path.join(self.outside, "pwn")
        ed = self.session([call(
            "exec_command",
            cmd="echo pwned > %s; echo secret=[$EDITOR_SECRET]; echo inside > in.txt; "
                "cat notes.txt" % pwn)])
        self.assertIn("terminal/create", ed.methods(), "the command did not use the terminal")
        self.assertFalse(os.path.exists(pwn), "a command in the editor's terminal escaped "
                                              "the sandbox")
        out = self.results(ed)
        self.assertIn("secret=[]", out)
        self.assertNotIn(EDITOR_SECRET, out)
        self.assertIn("alpha", out)
        with open(os.path.join(self.ws, "in.txt")) as f:  # the workspace stays writable
            self.assertEqual(f.read(), "inside\n")
        create = [p for m, p in ed.requests if m == "terminal/create"][0]
        self.assertEqual(create["command"], "/usr/bin/env")
        self.assertEqual(create["args"][0], "-i")
        self.assertIn("terminal/release", ed.methods())

    def test_a_rejected_command_never_reaches_a_terminal(self):
        ran = os.path.join(self.outside, "ran")
        ed = self.session([call("exec_command", cmd="touch %s" % ran)], mode="ask",
                          answer="reject-once")
        self.assertIn("session/request_permission", ed.methods())
        self.assertNotIn("terminal/create", ed.methods())
        self.assertFalse(os.path.exists(ran))

    def test_a_patch_diff_never_shows_a_credential_behind_a_symlink(self):
        """An apply_patch call's diff is sent before the call is decided; the
        file it shows is read where it really is: a planted symlink to a
        credential outside the workspace shows nothing of it."""
        ssh = os.path.join(self.home, ".ssh")
        os.makedirs(ssh)
        with open(os.path.join(ssh, "id_rsa"), "w") as f:
            f.write(SECRET + "\n")
        os.symlink(os.path.join(ssh, "id_rsa"), os.path.join(self.ws, "key-link"))
        ed = self.session([
            call("apply_patch", input="*** Begin Patch\n*** Delete File: key-link\n"
                                      "*** End Patch\n"),
        ])
        sent = json.dumps(ed.updates) + json.dumps(ed.requests)
        self.assertIn("key-link", sent)  # the call itself was shown
        self.assertNotIn(SECRET, sent)
        with open(os.path.join(ssh, "id_rsa")) as f:
            self.assertEqual(f.read(), SECRET + "\n")

    def test_a_patch_diff_never_shows_a_denyread_file(self):
        """The diff sent before the call is decided (as the tool call and in
        the permission question) never holds a workspace file that
        sandbox.denyRead hides from read_file: only the patch's own lines.
        The patch itself is refused, the file unchanged."""
        private = os.path.join(self.ws, "private.txt")
        with open(private, "w") as f:
            f.write(SECRET + "\n")
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfg)
        with open(os.path.join(cfg, "config.json"), "w") as f:
            json.dump({"sandbox": {"denyRead": [private]}}, f)
        ed = self.session([
            call("apply_patch", input="*** Begin Patch\n*** Update File: private.txt\n@@\n"
                                      "-guessed line\n+changed line\n*** End Patch\n"),
            call("apply_patch", input="*** Begin Patch\n*** Delete File: private.txt\n"
                                      "*** End Patch\n"),
        ], mode="ask")
        asked = [p for m, p in ed.requests if m == "session/request_permission"]
        self.assertEqual(len(asked), 2, "each patch was asked about")
        diffs = [c for p in asked for c in p["toolCall"]["content"] if c.get("type") == "diff"]
        self.assertEqual([d["path"] for d in diffs], [private, private])
        self.assertEqual(diffs[0]["oldText"], "guessed line\n")  # the patch's own line
        sent = json.dumps(ed.updates) + json.dumps(ed.requests)
        self.assertNotIn(SECRET, sent)
        with open(private) as f:
            self.assertEqual(f.read(), SECRET + "\n")

    def test_plan_mode_sends_nothing_to_write_or_run(self):
        ed = self.session([call("exec_command", cmd="touch ran.txt"),
                           call("write_file", path="new.txt", content="x")],
                          set_mode="plan")
        self.assertNotIn("terminal/create", ed.methods())
        self.assertNotIn("fs/write_text_file", ed.methods())
        self.assertFalse(os.path.exists(os.path.join(self.ws, "ran.txt")))
        self.assertFalse(os.path.exists(os.path.join(self.ws, "new.txt")))
        modes = [u["update"]["currentModeId"] for u in ed.updates
                 if u["update"]["sessionUpdate"] == "current_mode_update"]
        self.assertEqual(modes, ["plan"])


if __name__ == "__main__":
    unpriv.main(__file__)
