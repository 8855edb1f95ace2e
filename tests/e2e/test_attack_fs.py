"""Attacks on the host through the file system (issue 14, holes 1, 10, 11).

Each test asserts the effect on the host: a command planted from inside the
sandbox for host git (core.fsmonitor) never runs at the user's next
`git status` (its marker file does not exist afterwards), a denied file's
content never appears in what zero's tools return, zero never follows a
symlink planted in its runtime path. Runs as root and as uid 65534
(unpriv.py).
"""
import json
import os
import shutil
import subprocess
import time
import unittest

import unpriv

ZERO_BIN = unpriv.zero_bin()
# Outside /tmp: /tmp is private inside the sandbox (see test_sandbox_attacks).
BASE = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
SECRET = "plain words the redactor keeps 4711"  # no key shape: redaction must not hide it


def have_bwrap():
    return shutil.which("bwrap") is not None


class FsCase(unittest.TestCase):
    def setUp(self):
        unpriv.attack_root(self, "zero-afs-", BASE)
        self.marker = os.path.join(self.outside, "MARK")
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "LANG": "C.UTF-8",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
        }

    def tearDown(self):
        subprocess.run(["chmod", "-R", "u+rwX", self.root], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)

    def sx(self, script, extra=(), cwd=None, env=None):
        """Runs script with /bin/sh in the sandbox (auto mode: no approval)."""
        return subprocess.run([ZERO_BIN, "sandbox", "exec", *extra, "--", "/bin/sh", "-c", script],
                              cwd=cwd or self.ws, env=env or self.env, capture_output=True,
                              text=True, timeout=60)

    def tool(self, name, args, *extra):
        return subprocess.run([ZERO_BIN, "tools", "run", name, json.dumps(args),
                               "--permission-mode", "auto", *extra],
                              cwd=self.ws, env=self.env, capture_output=True, text=True,
                              timeout=60)

    def host_git(self, *args, cwd=None):
        """The user's git on the host, as they would run it next."""
        return subprocess.run(["git", *args], cwd=cwd or self.ws, env=self.env,
                              capture_output=True, text=True, timeout=60)

    def plant_fsmonitor(self, gitdir_expr):
        """Shell that writes a core.fsmonitor touching the marker into
        $gitdir_expr/config, and a post-checkout hook doing the same."""
        hook = "#!/bin/sh\ntouch %s\n" % self.marker
        return ("printf '[core]\\n\\tfsmonitor = touch %s; false\\n' >> %s/config; "
                "mkdir -p %s/hooks; printf '%s' > %s/hooks/post-checkout; "
                "chmod +x %s/hooks/post-checkout; true"
                % (self.marker, gitdir_expr, gitdir_expr, hook.replace("\n", "\\n"), gitdir_expr,
                   gitdir_expr))

    def assert_never_ran(self):
        self.assertFalse(os.path.exists(self.marker), "a command planted in the sandbox ran on the host")


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class MissingGit(FsCase):
    """Hole 1: .git (and .zero, .agents, editor settings) created inside."""

    def test_git_init_inside_cannot_plant_fsmonitor(self):
        r = self.sx("git init -q . ; git config core.fsmonitor 'touch %s; false'; "
                    "mkdir -p .git/hooks; echo x > .git/config; ln -s %s .git; true"
                    % (self.marker, self.outside))
        self.assertIn("backend=bwrap", r.stderr)
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".git")), r.stderr)
        self.host_git("status")
        self.assert_never_ran()

    def test_git_file_pointing_elsewhere_cannot_be_created(self):
        forged = os.path.join(self.ws, "forged")
        r = self.sx("git init -q --bare forged && %s; echo 'gitdir: %s' > .git; "
                    "git init -q --separate-git-dir=forged2 .; true"
                    % (self.plant_fsmonitor("forged"), forged))
        self.assertIn("backend=bwrap", r.stderr)
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".git")))
        self.host_git("status")
        self.assert_never_ran()

    def test_missing_git_in_an_add_dir_root(self):
        other = os.path.join(self.root, "other")
        os.makedirs(other)
        r = self.sx("cd %s && git init -q . ; mkdir .zero .agents .vscode; true" % other,
                    extra=("--add-dir", other))
        self.assertIn("backend=bwrap", r.stderr)
        for name in (".git", ".zero", ".agents", ".vscode"):
            self.assertFalse(os.path.lexists(os.path.join(other, name)), name)
        self.host_git("status", cwd=other)
        self.assert_never_ran()

    def test_git_inside_still_finds_a_parent_repository(self):
        # The workspace is a subdirectory of a repository: the placeholder
        # for its missing .git must not hide the parent from git, inside or
        # on the host while the command runs.
        repo = os.path.join(self.root, "repo")
        sub = os.path.join(repo, "sub")
        os.makedirs(sub)
        self.host_git("init", "-q", repo, cwd=self.root)
        with open(os.path.join(sub, "f"), "w") as f:
            f.write("x\n")
        p = subprocess.Popen([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c",
                              "git rev-parse --show-toplevel; git init -q . ; sleep 3"],
                             cwd=sub, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        try:
            gitdir = os.path.join(sub, ".git")
            deadline = time.time() + 20
            while time.time() < deadline and not os.path.lexists(gitdir):
                time.sleep(0.05)
            self.assertTrue(os.path.isdir(gitdir), "no placeholder while the command runs")
            host = self.host_git("rev-parse", "--show-toplevel", cwd=sub)
            self.assertEqual(host.stdout.strip(), repo, host.stderr)
        finally:
            out, err = p.communicate(timeout=60)
        self.assertEqual(out.splitlines()[0], repo, err)
        self.assertFalse(os.path.lexists(os.path.join(sub, ".git")), "placeholder left behind")

    def test_file_tools_cannot_create_git(self):
        for path, content in ((".git/config", "[core]\n\tfsmonitor = touch %s\n" % self.marker),
                              (".git/HEAD", "ref: refs/heads/main\n"),
                              (".vscode/tasks.json", "{}"), (".idea/workspace.xml", "<x/>")):
            r = self.tool("write_file", {"path": path, "content": content})
            self.assertNotEqual(r.returncode, 0, path)
            self.assertIn("protected", r.stdout + r.stderr)
        patch = ("*** Begin Patch\n*** Add File: .git/HEAD\n+ref: refs/heads/main\n"
                 "*** End Patch\n")
        r = subprocess.run([ZERO_BIN, "tools", "run", "apply_patch", "-", "--permission-mode",
                            "auto"], input=patch, cwd=self.ws, env=self.env, capture_output=True,
                           text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        for name in (".git", ".vscode", ".idea"):
            self.assertFalse(os.path.lexists(os.path.join(self.ws, name)), name)
        self.host_git("status")
        self.assert_never_ran()

    def test_editor_settings_cannot_be_created_or_changed(self):
        r = self.sx("mkdir -p .vscode .idea; echo '{\"python.defaultInterpreterPath\":\"%s\"}' "
                    "> .vscode/settings.json; true" % self.marker)
        self.assertIn("backend=bwrap", r.stderr)
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".vscode")))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".idea")))
        os.makedirs(os.path.join(self.ws, ".vscode"))
        settings = os.path.join(self.ws, ".vscode", "settings.json")
        with open(settings, "w") as f:
            f.write("{}\n")
        self.sx("echo '{\"terminal.integrated.shell.linux\":\"%s\"}' > .vscode/settings.json; "
                "echo x > .vscode/tasks.json; mv .vscode v2; true" % self.marker)
        with open(settings) as f:
            self.assertEqual(f.read(), "{}\n")
        self.assertEqual(os.listdir(os.path.join(self.ws, ".vscode")), ["settings.json"])


class ModelFileTools(FsCase):
    """Hole 1 through the model's own file tools (no sandbox involved): a raw
    (freeform) apply_patch must be judged on the files it names, like the
    JSON form, so it cannot create .git/config or .zero without a word."""

    def test_raw_apply_patch_cannot_create_git_or_zero(self):
        import harness
        patch = ("*** Begin Patch\n*** Add File: .git/config\n+[core]\n"
                 "+\tfsmonitor = touch %s; false\n*** Add File: .git/HEAD\n"
                 "+ref: refs/heads/main\n*** Add File: .zero/config.json\n"
                 "+{\"sandbox\":{\"enabled\":false}}\n*** End Patch\n" % self.marker)
        model = harness.FakeModel([{"tool_calls": [{"name": "apply_patch", "arguments": patch}]},
                                   {"text": "Done."}], self.root)
        try:
            env = dict(self.env, OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="sk-test",
                       OPENAI_MODEL="test-model")
            r = subprocess.run([ZERO_BIN, "exec", "--permission-mode", "auto", "go"], cwd=self.ws,
                               env=env, capture_output=True, text=True, timeout=60)
            sent = model.bodies()
        finally:
            model.stop()
        self.assertEqual(len(sent), 2, r.stderr)  # the tool ran (or was refused) and replied
        self.assertIn("protected", json.dumps(sent[1]["messages"][-1]))
        for name in (".git", ".zero"):
            self.assertFalse(os.path.lexists(os.path.join(self.ws, name)), name)
        self.host_git("status")
        self.assert_never_ran()


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class ExistingGit(FsCase):
    """Hole 1, the rest of the class: git dirs a .git names elsewhere."""

    def test_separate_git_dir_in_the_workspace_is_protected(self):
        # .git is a file: "gitdir: <ws>/.repo" — that dir's config and hooks
        # are what the host's git uses here.
        self.host_git("init", "-q", "--separate-git-dir", os.path.join(self.ws, ".repo"), self.ws)
        cfg = os.path.join(self.ws, ".repo", "config")
        with open(cfg) as f:
            before = f.read()
        r = self.sx(self.plant_fsmonitor(".repo") + "; git config core.fsmonitor 'touch %s'; true"
                    % self.marker)
        self.assertIn("backend=bwrap", r.stderr)
        with open(cfg) as f:
            self.assertEqual(f.read(), before)
        self.host_git("status")
        self.assertFalse(os.path.exists(os.path.join(self.ws, ".repo", "hooks", "post-checkout")))
        self.assert_never_ran()
        with open(os.path.join(self.ws, "f.txt"), "w") as f:
            f.write("x\n")
        r = self.sx("git status --short >/dev/null && git add f.txt && echo GIT-OK")
        self.assertIn("GIT-OK", r.stdout, r.stderr)  # git still works inside

    def test_submodule_git_dir_is_protected(self):
        self.host_git("init", "-q", self.ws)
        sub = os.path.join(self.ws, "sub")
        moddir = os.path.join(self.ws, ".git", "modules", "sub")
        os.makedirs(os.path.dirname(moddir))
        self.host_git("init", "-q", "--separate-git-dir", moddir, sub)
        self.host_git("commit", "-q", "--allow-empty", "-m", "s", cwd=sub)
        with open(os.path.join(moddir, "config")) as f:
            before = f.read()
        r = self.sx(self.plant_fsmonitor(".git/modules/sub") +
                    "; cd sub && git config core.fsmonitor 'touch %s'; true" % self.marker)
        self.assertIn("backend=bwrap", r.stderr)
        with open(os.path.join(moddir, "config")) as f:
            self.assertEqual(f.read(), before)
        self.host_git("status", cwd=sub)
        self.host_git("status")
        self.assert_never_ran()
        r = self.sx("cd sub && git status --short >/dev/null && git -c user.name=t -c "
                    "user.email=t@e commit -q --allow-empty -m t && echo GIT-OK")
        self.assertIn("GIT-OK", r.stdout, r.stderr)  # git still works inside the submodule


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class HardLinks(FsCase):
    """Hole 10: a denied file reached through a second name."""

    def setUp(self):
        super().setUp()
        ssh = os.path.join(self.home, ".ssh")
        os.makedirs(ssh)
        self.key = os.path.join(ssh, "id_ed25519")
        with open(self.key, "w") as f:
            f.write(SECRET + "\n")
        self.alias = os.path.join(self.ws, "notes.txt")
        os.link(self.key, self.alias)
        with open(os.path.join(self.ws, "plain.txt"), "w") as f:
            f.write("nothing secret\n")

    def test_file_tools_refuse_a_hard_link_of_a_hidden_file(self):
        for name, args in (("read_file", {"path": "notes.txt"}),
                           ("grep", {"pattern": "redactor keeps"}),
                           ("grep", {"pattern": "redactor keeps", "path": "notes.txt"}),
                           ("read_file", {"path": self.alias})):
            r = self.tool(name, args)
            self.assertNotIn(SECRET, r.stdout + r.stderr, name)
        r = self.tool("read_file", {"path": "plain.txt"})
        self.assertIn("nothing secret", r.stdout)  # the guard is not a blanket refusal

    def test_file_tools_refuse_a_hard_link_of_a_deny_read_file(self):
        os.makedirs(os.path.join(self.ws, ".zero"))
        os.makedirs(os.path.join(self.ws, "secrets"))
        key = os.path.join(self.ws, "secrets", "prod.env")
        with open(key, "w") as f:
            f.write("DB=" + SECRET + "\n")
        os.makedirs(os.path.join(self.ws, "docs"))
        os.link(key, os.path.join(self.ws, "docs", "example.env"))
        with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
            json.dump({"sandbox": {"denyRead": ["secrets"]}}, f)
        for name, args in (("read_file", {"path": "docs/example.env"}),
                           ("grep", {"pattern": "DB=", "path": "docs"})):
            r = self.tool(name, args)
            self.assertNotIn(SECRET, r.stdout + r.stderr, name)

    def test_check_and_doctor_report_the_linked_file(self):
        r = subprocess.run([ZERO_BIN, "sandbox", "check"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=120)
        self.assertIn(self.key, r.stdout)
        self.assertIn("hard links", r.stdout)
        self.assertNotIn(SECRET, r.stdout + r.stderr)
        r = subprocess.run([ZERO_BIN, "doctor", "--json"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=120)
        rows = [c for c in json.loads(r.stdout)["checks"] if c["check"] == "denyRead"]
        self.assertEqual(len(rows), 1, r.stdout)
        self.assertEqual(rows[0]["status"], "warn")
        self.assertIn(self.key, rows[0]["detail"])


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class RuntimeDir(FsCase):
    """Hole 11: zero's own runtime path."""

    def test_symlinked_runtime_base_is_not_followed(self):
        runtime = os.path.join(self.home, ".cache", "zero", "runtime")
        os.makedirs(runtime)
        os.symlink(self.outside, os.path.join(runtime, "v1"))
        r = self.sx("echo pwn > \"$HOME/pwn\"; true")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("symlink", r.stderr)
        self.assertEqual(os.listdir(self.outside), [])

    def test_symlinked_cache_component_is_not_followed(self):
        cache = os.path.join(self.home, ".cache")
        os.makedirs(cache)
        os.symlink(self.outside, os.path.join(cache, "zero"))
        r = self.sx("true")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(os.path.join(cache, "zero"), r.stderr)
        self.assertEqual(os.listdir(self.outside), [])

    def test_cache_dir_inside_the_workspace_is_not_used(self):
        env = dict(self.env, XDG_CACHE_HOME=os.path.join(self.ws, ".cache"))
        r = self.sx("echo \"$HOME\"", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        home = r.stdout.strip()
        self.assertTrue(home.startswith(os.path.join(self.home, ".cache", "zero", "runtime")), home)
        self.assertFalse(os.path.exists(os.path.join(self.ws, ".cache")))


if __name__ == "__main__":
    unpriv.main(__file__)
