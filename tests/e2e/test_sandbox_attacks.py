"""Attack and usability suites for the sandbox, through `zero sandbox exec`.

Every attack asserts the real effect on the host (the file outside does not
exist, the host process is alive, the listener saw no connection), not only
an exit code. The whole module runs twice when started as root: once as root
(CI, containers) and once as an unprivileged user (uid 65534, via setpriv,
with /usr/bin/python3 since root's pyenv is not readable by that user), from
a readable copy of the tests and the binary (unpriv.py), so the checkout may
lie anywhere.
"""
import ctypes  # noqa: F401  (used inside sandboxed scripts via python3 -c)
import os
import pty
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
import unittest

import unpriv

HERE = os.path.dirname(os.path.abspath(__file__))
ZERO_BIN = os.path.abspath(os.environ.get("ZERO_BIN") or os.path.join(HERE, "..", "..", "build", "zero"))
UNPRIV = os.environ.get("ZERO_E2E_UNPRIV") == "1"
PY = "/usr/bin/python3"
# The test dirs live outside /tmp: /tmp is a private tmpfs inside the sandbox,
# so a credential or denyRead file under /tmp would be unreadable there
# whether or not zero hides it, and such a test would pass vacuously.
BASE = os.environ.get("ZERO_SBX_BASE") or ("/var/tmp" if os.access("/var/tmp", os.W_OK) else None)


def read(path):
    with open(path) as f:
        return f.read()


def have_bwrap():
    return shutil.which("bwrap") is not None


class Listener:
    """A TCP or Unix listener on the host that records every accepted connection."""

    def __init__(self, unix_path=None):
        if unix_path:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(unix_path)
            os.chmod(unix_path, 0o777)
        else:
            self.sock = socket.socket()
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.accepted = 0
        self.stop = False
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def loop(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.accepted += 1
                c.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.t.join()
        self.sock.close()


def sleeping_child_of(pid):
    """PIDs of `sleep` processes descending from pid (the sandboxed command)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
            with open("/proc/%s/comm" % d) as f:
                comm = f.read().strip()
        except OSError:
            continue
        ppid = int(st.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append((int(d), comm))
    out, todo = [], [pid]
    while todo:
        for c, comm in kids.get(todo.pop(), []):
            todo.append(c)
            if comm == "sleep":
                out.append(c)
    return out


class SandboxCase(unittest.TestCase):
    def setUp(self):
        unpriv.attack_root(self, "zero-sbx-", BASE)
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin" if UNPRIV else os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "LANG": "C.UTF-8",
            "OPENAI_API_KEY": "sk-should-never-be-seen-1234567890",
            # a provider's apiKeyEnv can be any name; other secrets by their names
            "MYCO_LLM_KEY": "sk-should-never-be-seen-apikeyenv",
            "GH_TOKEN": "sk-should-never-be-seen-gh",
            "AWS_SECRET_ACCESS_KEY": "sk-should-never-be-seen-aws",
        }

    def tearDown(self):
        subprocess.run(["chmod", "-R", "u+rwX", self.root], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)

    def sx(self, script, extra=(), stdin=subprocess.DEVNULL, timeout=60):
        """Runs script with /bin/sh in the sandbox; returns CompletedProcess."""
        cmd = [ZERO_BIN, "sandbox", "exec", *extra, "--", "/bin/sh", "-c", script]
        return subprocess.run(cmd, cwd=self.ws, env=self.env, stdin=stdin, capture_output=True,
                              text=True, timeout=timeout)

    def user_config(self, obj):
        import json
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(obj, f)

    def git_init(self):
        subprocess.run(["git", "init", "-q", self.ws], check=True)
        with open(os.path.join(self.ws, ".git", "config")) as f:
            return f.read()


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class Attacks(SandboxCase):
    def test_banner_and_exit_status(self):
        r = self.sx("exit 7")
        self.assertEqual(r.returncode, 7)
        self.assertTrue(r.stderr.startswith("sandbox: backend=bwrap enforcement=full workspace="), r.stderr)
        r = self.sx("kill -TERM $$")
        self.assertEqual(r.returncode, 128 + 15)

    def test_command_lookup_and_exit_statuses(self):
        cmd = [ZERO_BIN, "sandbox", "exec", "--"]
        r = subprocess.run(cmd + ["no-such-command-zero"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 127)
        self.assertIn("cannot run no-such-command-zero: No such file or directory", r.stderr)
        # found on PATH; a script without #! runs through /bin/sh (execvp)
        with open(os.path.join(self.ws, "noshebang"), "w") as f:
            f.write("echo from-sh \"$1\"\n")
        os.chmod(os.path.join(self.ws, "noshebang"), 0o755)
        r = subprocess.run(cmd + ["./noshebang", "arg one"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout), (0, "from-sh arg one\n"), r.stderr)
        r = subprocess.run(cmd + ["sh", "-c", "echo $0 \"$1\"", "x", "two words"], cwd=self.ws,
                           env=self.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.stdout, "x two words\n")
        with open(os.path.join(self.ws, "notexec"), "w") as f:
            f.write("echo no\n")
        r = subprocess.run(cmd + ["./notexec"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 126)
        self.assertIn("Permission denied", r.stderr)

    def test_writes_outside_the_workspace(self):
        targets = [os.path.join(self.outside, "x"), os.path.join(self.root, "parent-x"),
                   os.path.join(self.home, "home-x"), "/etc/zero-escape-%d" % os.getpid(),
                   "/tmp/zero-escape-%d" % os.getpid(), os.path.join(self.ws, "..", "dotdot-x")]
        script = "; ".join("echo pwn > '%s'" % t for t in targets) + "; true"
        self.sx(script)
        for t in targets:
            self.assertFalse(os.path.exists(t), t)

    def test_write_through_symlink(self):
        target = os.path.join(self.outside, "via-link")
        os.symlink(target, os.path.join(self.ws, "link"))
        os.symlink(self.outside, os.path.join(self.ws, "dirlink"))
        self.sx("echo pwn > link; echo pwn > dirlink/f; ln -s %s l2 && echo pwn > l2/g" % self.outside)
        self.assertFalse(os.path.exists(target))
        self.assertEqual(os.listdir(self.outside), [])

    def test_write_through_hard_link(self):
        victim = os.path.join(self.outside, "victim")
        with open(victim, "w") as f:
            f.write("original\n")
        self.sx("ln %s hl; echo pwn >> hl; echo pwn > hl" % victim)
        with open(victim) as f:
            self.assertEqual(f.read(), "original\n")

    def test_git_config_and_hooks_are_read_only(self):
        cfg = self.git_init()
        self.sx("echo '[core]\n\tfsmonitor = touch /tmp/pwn' >> .git/config; "
                "git config core.hooksPath /tmp; printf '#!/bin/sh\\n' > .git/hooks/pre-commit; "
                "chmod +x .git/hooks/pre-commit; rm -rf .git/hooks; mv .git/config .git/c2")
        with open(os.path.join(self.ws, ".git", "config")) as f:
            self.assertEqual(f.read(), cfg)
        self.assertFalse(os.path.exists(os.path.join(self.ws, ".git", "hooks", "pre-commit")))
        self.assertTrue(os.path.isdir(os.path.join(self.ws, ".git", "hooks")))

    def test_git_dir_cannot_be_renamed_or_swapped(self):
        self.git_init()
        head = read(os.path.join(self.ws, ".git", "HEAD"))
        self.sx("mkdir -p forged/hooks && printf '#!/bin/sh\\necho pwn\\n' > forged/hooks/pre-commit; "
                "cp .git/HEAD forged/HEAD; mv .git old-git; mv forged .git; "
                "mv -T forged .git; ln -sfn forged .git; true")
        self.assertTrue(os.path.isdir(os.path.join(self.ws, ".git")))
        self.assertFalse(os.path.exists(os.path.join(self.ws, "old-git")))
        self.assertFalse(os.path.exists(os.path.join(self.ws, ".git", "hooks", "pre-commit")))
        self.assertEqual(read(os.path.join(self.ws, ".git", "HEAD")), head)

    def test_git_commondir_cannot_swap_config_and_hooks(self):
        # .git/commondir names the dir git takes config and hooks from: a
        # planted one is a forged .git without touching .git/config, and its
        # core.fsmonitor runs at the user's next `git status` on the host.
        self.git_init()
        marker = os.path.join(self.outside, "fsmonitor-ran")
        self.sx("mkdir forged && cp -r .git/objects .git/refs .git/HEAD forged/ && mkdir forged/hooks && "
                "printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; false\"\n' "
                "> forged/config; echo ../forged > .git/commondir; rm -f .git/commondir; "
                "mv .git/commondir .git/c2; echo '../forged' >> .git/commondir; true" % marker)
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".git", "commondir")))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".git", "c2")))
        subprocess.run(["git", "status"], cwd=self.ws, capture_output=True,
                       env=dict(self.env, GIT_CONFIG_NOSYSTEM="1"))
        self.assertFalse(os.path.exists(marker))
        # git inside the sandbox still works with the protection in place
        r = self.sx("cat .git/commondir; echo; echo x > t && git add t && "
                    "git -c user.name=T -c user.email=t@example.com commit -qm c && git log --oneline")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[0], ".")

    def test_linked_worktrees_config_cannot_be_redirected(self):
        # A linked worktree elsewhere reads its config through
        # .git/worktrees/<name>/commondir (and config.worktree); rewriting
        # them from the workspace would run a forged core.fsmonitor there.
        self.git_init()
        genv = dict(self.env, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@e",
                    GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@e")
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "i"], cwd=self.ws, env=genv, check=True)
        wt = os.path.join(self.outside, "feature")
        subprocess.run(["git", "worktree", "add", "-q", wt], cwd=self.ws, env=genv, check=True)
        with open(os.path.join(self.ws, ".git", "config.worktree"), "w") as f:
            f.write("[core]\n\tsparseCheckout = false\n")
        admin = os.path.join(self.ws, ".git", "worktrees", "feature")
        before = read(os.path.join(admin, "commondir"))
        marker = os.path.join(self.root, "fsmonitor-ran")
        self.sx("mkdir forged && cp -r .git/objects .git/refs .git/HEAD forged/ && "
                "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch %s; false\"\\n' > forged/config; "
                "echo %s/forged > .git/worktrees/feature/commondir; "
                "printf '[core]\\n\\tfsmonitor = \"touch %s; false\"\\n' > .git/worktrees/feature/config.worktree; "
                "printf '[core]\\n\\tfsmonitor = \"touch %s; false\"\\n' >> .git/config.worktree; true"
                % (marker, self.ws, marker, marker))
        self.assertEqual(read(os.path.join(admin, "commondir")), before)
        self.assertNotIn("fsmonitor", read(os.path.join(self.ws, ".git", "config.worktree")))
        subprocess.run(["git", "status"], cwd=wt, capture_output=True, env=genv)
        self.assertFalse(os.path.exists(marker))

    def test_emptying_git_keeps_config_and_hooks(self):
        cfg = self.git_init()
        self.sx("rm -rf .git; rm -rf .git/*; true")
        self.assertTrue(os.path.isdir(os.path.join(self.ws, ".git")))
        self.assertEqual(read(os.path.join(self.ws, ".git", "config")), cfg)
        self.assertTrue(os.path.isdir(os.path.join(self.ws, ".git", "hooks")))

    def test_git_file_is_protected(self):
        with open(os.path.join(self.ws, ".git"), "w") as f:
            f.write("gitdir: /somewhere\n")
        self.sx("echo 'gitdir: /tmp/evil' > .git; rm -f .git; mv .git g2; true")
        self.assertEqual(read(os.path.join(self.ws, ".git")), "gitdir: /somewhere\n")

    def test_zero_and_agents_cannot_be_created(self):
        self.sx("mkdir .zero; echo '{}' > .zero/config.json; mkdir -p .agents/x; "
                "ln -s %s .agents; ln -s %s .zero; true" % (self.outside, self.outside))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".zero")))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".agents")))

    def test_placeholders_are_held_while_another_command_runs(self):
        # B makes the placeholders; A starts while they exist; B ends first.
        # Removing them then would detach A's mounts and let A create .zero.
        cmd = [ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c"]
        b = subprocess.Popen(cmd + ["sleep 1"], cwd=self.ws, env=self.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ph = os.path.join(self.ws, ".zero")
        for _ in range(200):
            if os.path.lexists(ph):
                break
            time.sleep(0.01)
        self.assertTrue(os.path.lexists(ph), "the placeholder for .zero was not made")
        a = subprocess.Popen(cmd + ["sleep 2; mkdir .zero && echo created; "
                                    "echo x > .agents && echo wrote; true"],
                             cwd=self.ws, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        b.wait(timeout=30)
        out, _ = a.communicate(timeout=30)
        self.assertNotIn("created", out)
        self.assertNotIn("wrote", out)
        self.assertFalse(os.path.lexists(ph))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".agents")))

    def test_placeholders_go_when_the_command_is_killed(self):
        p = subprocess.Popen([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", "sleep 30"],
                             cwd=self.ws, env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        ph = os.path.join(self.ws, ".agents")
        for _ in range(300):
            if os.path.lexists(ph) and sleeping_child_of(p.pid):
                break
            time.sleep(0.01)
        self.assertTrue(os.path.lexists(ph))
        for pid in sleeping_child_of(p.pid):
            os.kill(pid, 9)  # SIGKILL the command itself, inside the sandbox
        self.assertEqual(p.wait(timeout=30), 128 + 9)
        self.assertFalse(os.path.lexists(ph))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, ".zero")))

    def test_placeholders_go_when_zero_is_terminated(self):
        p = subprocess.Popen([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", "sleep 30"],
                             cwd=self.ws, env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        ph = os.path.join(self.ws, ".zero")
        for _ in range(300):
            if os.path.lexists(ph) and sleeping_child_of(p.pid):
                break
            time.sleep(0.01)
        self.assertTrue(os.path.lexists(ph))
        p.terminate()
        self.assertEqual(p.wait(timeout=30), 128 + 15)
        self.assertFalse(os.path.lexists(ph))

    def test_a_leaked_placeholder_is_adopted_and_a_real_file_kept(self):
        # What a zero killed with SIGKILL leaves: an empty file with the mark.
        leaked = os.path.join(self.ws, ".agents")
        with open(leaked, "w"):
            pass
        os.chmod(leaked, 0o1400)
        real = os.path.join(self.ws, ".zero")
        with open(real, "w"):
            pass
        r = self.sx("rm -f .agents .zero; mkdir .agents; true")
        self.assertIn("backend=bwrap", r.stderr)
        self.assertFalse(os.path.lexists(leaked))
        self.assertTrue(os.path.isfile(real))
        self.assertEqual(os.stat(real).st_size, 0)

    def test_placeholder_stash_cannot_be_planted_from_a_sandbox(self):
        # Released placeholders wait in <runtime base>/.placeholders for the
        # next command (no file made and deleted per command). A command whose
        # write roots cover the stash (workspace = $HOME) must not be able to
        # put anything there: zero would later move it into a workspace.
        self.sx("true")
        stash = os.path.join(self.home, ".cache", "zero", "runtime", "v1", ".placeholders")
        self.assertTrue(os.path.isdir(stash))
        before = sorted(os.listdir(stash))
        self.assertTrue(before, "released placeholders were not stashed")
        self.assertEqual(sorted(os.listdir(self.ws)), [])  # the workspace is clean
        r = subprocess.run(
            [ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c",
             "s=.cache/zero/runtime/v1/.placeholders; touch $s/7; echo x > $s/0; "
             "mv $s/0 $s/6; rm -f $s/1; ln -s /etc $s/5; touch .cache/zero/ok; true"],
            cwd=self.home, env=self.env, capture_output=True, text=True, timeout=60)
        self.assertIn("backend=bwrap", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.home, ".cache", "zero", "ok")))
        self.assertEqual(sorted(os.listdir(stash)), before)
        for e in before:
            st = os.lstat(os.path.join(stash, e))
            self.assertEqual((st.st_size, st.st_mode & 0o7777), (0, 0o1400))

    def test_inner_stage_in_the_workspace_is_not_trusted(self):
        # A zero whose inner-stage helper lies inside the workspace: a command
        # replaces the helper with one that skips confinement; the next
        # command must still be confined (zero runs its own inner stage).
        if not os.path.exists(os.path.join(os.path.dirname(ZERO_BIN), "zero-sandbox-inner")):
            self.skipTest("no zero-sandbox-inner built")
        bindir = os.path.join(self.ws, "bin")
        os.makedirs(bindir)
        zero = os.path.join(bindir, "zero")
        shutil.copy(ZERO_BIN, zero)
        shutil.copy(os.path.join(os.path.dirname(ZERO_BIN), "zero-sandbox-inner"), bindir)
        evil = ("#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n")
        r = subprocess.run([zero, "sandbox", "exec", "--", "/bin/sh", "-c",
                            "printf '%s' > bin/zero-sandbox-inner; echo replaced" % evil],
                           cwd=self.ws, env=self.env, capture_output=True, text=True, timeout=60)
        self.assertIn("replaced", r.stdout, r.stderr)
        r = subprocess.run([zero, "sandbox", "exec", "--", PY, "-c",
                            "import ctypes; print('ptrace', ctypes.CDLL(None).ptrace(16, 1, 0, 0))"],
                           cwd=self.ws, env=self.env, capture_output=True, text=True, timeout=60)
        self.assertIn("ptrace -1", r.stdout, r.stderr)
        c = subprocess.run([zero, "sandbox", "check"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertIn("inner stage: zero __sandbox-inner (%s/zero-sandbox-inner lies where"
                      % os.path.realpath(bindir), c.stdout)
        c = subprocess.run([ZERO_BIN, "sandbox", "check"], cwd=self.ws, env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertIn("inner stage: " + os.path.realpath(os.path.dirname(ZERO_BIN)), c.stdout)

    def test_existing_zero_dir_cannot_be_replaced(self):
        os.makedirs(os.path.join(self.ws, ".zero"))
        with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
            f.write("{}\n")
        self.sx("echo '{\"sandbox\":{}}' > .zero/config.json; rm -rf .zero; mv .zero z2; "
                "mkdir z3; mv -T z3 .zero; true")
        self.assertEqual(read(os.path.join(self.ws, ".zero", "config.json")), "{}\n")
        self.assertFalse(os.path.exists(os.path.join(self.ws, "z2")))

    def test_no_remount_mount_or_chroot(self):
        marker = "/etc/zero-remount-%d" % os.getpid()
        r = self.sx("mount -o remount,rw / 2>/dev/null && echo REMOUNTED; touch %s 2>/dev/null; "
                    "mkdir -p m; mount -t tmpfs none m 2>/dev/null && echo MOUNTED; "
                    "chroot / /bin/true 2>/dev/null && echo CHROOTED; "
                    "grep -c ' m tmpfs' /proc/self/mounts; true" % marker)
        self.assertFalse(os.path.exists(marker))
        self.assertNotIn("REMOUNTED", r.stdout)
        self.assertNotIn("MOUNTED", r.stdout)
        self.assertNotIn("CHROOTED", r.stdout)

    def test_no_root_and_no_capabilities_inside(self):
        r = self.sx("id -u; grep CapEff /proc/self/status")
        lines = r.stdout.split()
        self.assertNotEqual(lines[0], "0")
        self.assertIn("0000000000000000", r.stdout)

    def test_terminal_injection_is_refused(self):
        master, slave = pty.openpty()
        try:
            r = self.sx("%s -c 'import fcntl,termios,sys\n"
                        "try:\n fcntl.ioctl(0, termios.TIOCSTI, b\"X\"); print(\"INJECTED\")\n"
                        "except OSError as e: print(\"refused\", e.errno)'" % PY, stdin=slave)
            self.assertNotIn("INJECTED", r.stdout)
            self.assertIn("refused", r.stdout)
            os.set_blocking(slave, False)
            try:
                data = os.read(slave, 100)
            except BlockingIOError:
                data = b""
            self.assertNotIn(b"X", data)
        finally:
            os.close(master)
            os.close(slave)

    def test_credentials_are_hidden(self):
        secret = "TOPSECRET-%d" % os.getpid()
        for rel in (".ssh/id_rsa", ".aws/credentials", ".netrc", ".npmrc", ".git-credentials",
                    ".config/gcloud/creds.json", ".kube/config", ".docker/config.json",
                    ".config/zero/config.json"):
            p = os.path.join(self.home, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(secret)
        r = self.sx("cat %s/.ssh/id_rsa %s/.aws/credentials %s/.netrc %s/.npmrc %s/.git-credentials "
                    "%s/.config/gcloud/creds.json %s/.kube/config %s/.docker/config.json "
                    "%s/.config/zero/config.json 2>&1; env; true" % ((self.home,) * 9))
        self.assertNotIn(secret, r.stdout)
        self.assertNotIn("sk-should-never-be-seen", r.stdout)

    def test_zero_config_dir_is_hidden(self):
        # zero's config dir holds more than config.json: MCP OAuth tokens,
        # saved grants; with XDG_CONFIG_HOME elsewhere it lives there.
        secret = "ZEROCFG-%d" % os.getpid()
        xdg = os.path.join(self.root, "xdg")
        files = [os.path.join(self.home, ".config", "zero", "mcp-oauth", "server"),
                 os.path.join(self.home, ".config", "zero", "credentials.json"),
                 os.path.join(self.home, ".config", "zero", "sandbox-grants.json"),
                 os.path.join(self.home, ".azure", "accessTokens.json"),
                 os.path.join(xdg, "zero", "config.json"),
                 os.path.join(xdg, "zero", "mcp-oauth", "server")]
        for p in files:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write('{"secret": "%s"}' % secret)
        # without XDG_CONFIG_HOME pointing there, xdg/ is just another dir;
        # with it, both xdg/zero and ~/.config/zero are hidden
        for env, hidden in ((self.env, files[:4]), (dict(self.env, XDG_CONFIG_HOME=xdg), files)):
            r = subprocess.run([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c",
                                "cat %s 2>&1; true" % " ".join(hidden)],
                               cwd=self.ws, env=env, capture_output=True, text=True, timeout=60)
            self.assertIn("backend=bwrap", r.stderr)
            self.assertNotIn(secret, r.stdout)

    def test_workspace_of_home_cannot_plant_zero_config(self):
        # Workspace = $HOME (no zero config yet): a command must not create
        # ~/.config/zero/config.json (sandbox.enabled=false for the next run),
        # nor move ~/.config away and make a new one.
        cfgdir = os.path.join(self.home, ".config", "zero")
        shutil.rmtree(os.path.join(self.home, ".config"), ignore_errors=True)
        plant = "echo '{\"sandbox\":{\"enabled\":false}}' > .config/zero/config.json"
        r = subprocess.run([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c",
                            "mkdir -p .config/zero; %s; echo '{\"version\":1,\"grants\":[]}' "
                            "> .config/zero/sandbox-grants.json; mv .config .c2; mv .config/zero .z2; "
                            "rm -rf .config; mkdir -p .config/zero; %s; echo ok > .config/other; "
                            "true" % (plant, plant)],
                           cwd=self.home, env=self.env, capture_output=True, text=True, timeout=60)
        self.assertIn("backend=bwrap", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.home, ".config", "other")), r.stderr)
        self.assertEqual(os.listdir(cfgdir), [])
        self.assertEqual(os.stat(cfgdir).st_mode & 0o777, 0o700)
        r = self.sx("echo $ZERO_SANDBOX_BACKEND")
        self.assertEqual(r.stdout.strip(), "bwrap")

    def test_workspace_of_home_cannot_swap_runtime_dirs(self):
        # With $HOME as the workspace ~/.cache/zero is writable: a command
        # must not replace another workspace's runtime dir (bound read-write
        # into that workspace's sandboxes) or the runtime base (whose old
        # entries zero deletes) with symlinks.
        import json
        self.sx("true")
        pol = subprocess.run([ZERO_BIN, "sandbox", "policy", "--json"], cwd=self.ws, env=self.env,
                             capture_output=True, text=True, timeout=60)
        rt = json.loads(pol.stdout)["runtimeDir"]
        base = os.path.dirname(rt)
        old = os.path.join(self.home, "oldproject")
        os.makedirs(old)
        os.utime(old, (0, 0))
        r = subprocess.run([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c",
                            "rm -rf %s; ln -s %s %s; mv .cache/zero .cache/z.old; "
                            "mv .cache .c2; mv %s %s.x; mkdir -p .cache/zero/runtime; "
                            "ln -s %s .cache/zero/runtime/v1; touch -d 2000-01-01 %s/.gc-stamp; "
                            "echo x > %s/.gc-stamp; true"
                            % (rt, self.outside, rt, base, base, self.home, base, base)],
                           cwd=self.home, env=self.env, capture_output=True, text=True, timeout=60)
        self.assertIn("backend=bwrap", r.stderr)
        st = os.lstat(rt)
        self.assertTrue(stat.S_ISDIR(st.st_mode), "runtime dir replaced")
        self.assertTrue(os.path.isdir(base) and not os.path.islink(base))
        os.utime(os.path.join(base, ".gc-stamp"), (0, 0))  # the next run scans
        r = self.sx("echo pwn > \"$HOME/../pwn\"; true")
        self.assertIn("backend=bwrap", r.stderr)
        self.assertEqual(os.listdir(self.outside), [])
        self.assertTrue(os.path.isdir(old), "the GC removed a directory of the user's")

    def test_host_loopback_listener_is_unreachable(self):
        l = Listener()
        try:
            r = self.sx("%s -c 'import socket\ntry:\n socket.create_connection((\"127.0.0.1\", %d), 2); print(\"CONNECTED\")\n"
                        "except OSError as e: print(\"refused\", e)'; "
                        "(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo BASHTCP; "
                        "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null && echo BASHTCP2; true"
                        % (PY, l.port, l.port, l.port))
            time.sleep(0.3)
            self.assertEqual(l.accepted, 0)
            self.assertNotIn("CONNECTED", r.stdout)
            self.assertNotIn("BASHTCP", r.stdout)
        finally:
            l.close()

    def test_network_flag_reaches_the_host_listener(self):
        l = Listener()
        try:
            r = self.sx("%s -c 'import socket; socket.create_connection((\"127.0.0.1\", %d), 2); print(\"CONNECTED\")'" % (PY, l.port),
                        extra=["--network"])
            time.sleep(0.3)
            self.assertIn("CONNECTED", r.stdout, r.stderr)
            self.assertEqual(l.accepted, 1)
        finally:
            l.close()

    def test_unix_socket_blocked_with_block_unix_sockets(self):
        path = os.path.join(self.outside, "host.sock")
        l = Listener(unix_path=path)
        self.user_config({"sandbox": {"blockUnixSockets": True}})
        try:
            r = self.sx("%s -c 'import socket\ns=socket.socket(socket.AF_UNIX)\ns.connect(\"%s\"); print(\"CONNECTED\")'" % (PY, path))
            time.sleep(0.3)
            self.assertEqual(l.accepted, 0)
            self.assertNotIn("CONNECTED", r.stdout)
        finally:
            l.close()

    def test_user_runtime_dir_sockets_are_hidden(self):
        # A filesystem Unix socket is reachable across network namespaces:
        # the user's runtime dir (systemd --user, the session bus, rootless
        # container engines) would run commands outside the sandbox.
        rt = os.path.join(self.root, "run-user")
        os.makedirs(os.path.join(rt, "systemd"))
        path = os.path.join(rt, "systemd", "private")
        l = Listener(unix_path=path)
        try:
            r = subprocess.run(
                [ZERO_BIN, "sandbox", "exec", "--", PY, "-c",
                 "import socket\ns=socket.socket(socket.AF_UNIX)\n"
                 "try:\n s.connect(%r); print('CONNECTED')\nexcept OSError as e: print('refused', e)" % path],
                cwd=self.ws, env=dict(self.env, XDG_RUNTIME_DIR=rt), capture_output=True, text=True,
                timeout=60)
            time.sleep(0.3)
            self.assertIn("backend=bwrap", r.stderr)
            self.assertIn("refused", r.stdout, r.stderr)
            self.assertEqual(l.accepted, 0)
        finally:
            l.close()

    def test_ptrace_process_vm_readv_io_uring_refused(self):
        r = self.sx("sleep 30 & pid=$!; %s -c '\nimport ctypes,os,sys\nlibc=ctypes.CDLL(None,use_errno=True)\n"
                    "pid=int(sys.argv[1])\n"
                    "r=libc.ptrace(16,pid,0,0); print(\"ptrace\",r,ctypes.get_errno())\n"
                    "r=libc.syscall(310,pid,0,0,0,0,0); print(\"vm_readv\",r,ctypes.get_errno())\n"
                    "p=ctypes.create_string_buffer(120); r=libc.syscall(425,4,p); print(\"uring\",r,ctypes.get_errno())\n"
                    "r=libc.syscall(250,0,0,0,0,0); print(\"keyctl\",r,ctypes.get_errno())\n"
                    "r=libc.syscall(321,0,0,0); print(\"bpf\",r,ctypes.get_errno())\n"
                    "' $pid; kill $pid" % PY)
        for name in ("ptrace", "vm_readv", "uring", "keyctl", "bpf"):
            line = [l for l in r.stdout.splitlines() if l.startswith(name + " ")]
            self.assertTrue(line, r.stdout + r.stderr)
            _, ret, errno_ = line[0].split()
            self.assertEqual((ret, errno_), ("-1", "1"), line[0])

    def test_host_processes_are_invisible(self):
        mark = "HOSTMARK%d" % os.getpid()
        host = subprocess.Popen(["sleep", "60"], env={"SECRET_MARK": mark})
        try:
            r = self.sx("kill -9 %d 2>&1; cat /proc/%d/environ 2>&1; ls /proc | grep -c '^[0-9]'; true"
                        % (host.pid, host.pid))
            self.assertIsNone(host.poll(), "host process was killed from the sandbox")
            self.assertNotIn(mark, r.stdout)
        finally:
            host.kill()
            host.wait()

    def test_inherited_markers_are_not_trusted(self):
        env = dict(self.env, ZERO_SANDBOXED="1", ZERO_SANDBOX_BACKEND="none")
        target = os.path.join(self.outside, "marker-x")
        r = subprocess.run([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c",
                            "echo $ZERO_SANDBOX_BACKEND; echo x > %s; true" % target],
                           cwd=self.ws, env=env, capture_output=True, text=True)
        self.assertEqual(r.stdout.split()[0], "bwrap")
        self.assertFalse(os.path.exists(target))


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class Usability(SandboxCase):
    def test_edit_and_delete_workspace_files(self):
        with open(os.path.join(self.ws, "a.txt"), "w") as f:
            f.write("one\n")
        r = self.sx("echo two >> a.txt && sed -i s/one/uno/ a.txt && echo x > b.txt && rm b.txt && "
                    "mkdir -p d/e && mv a.txt d/e/a.txt && echo done")
        self.assertIn("done", r.stdout, r.stderr)
        self.assertEqual(read(os.path.join(self.ws, "d", "e", "a.txt")), "uno\ntwo\n")
        self.assertFalse(os.path.exists(os.path.join(self.ws, "b.txt")))

    def test_git_status_add_commit(self):
        self.git_init()
        r = self.sx("echo hi > f && git status --short && git add f && "
                    "git -c user.name=T -c user.email=t@example.com commit -qm first && git log --oneline")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("first", r.stdout)
        log = subprocess.run(["git", "-C", self.ws, "log", "--oneline"], capture_output=True, text=True,
                             env=dict(self.env, GIT_CONFIG_NOSYSTEM="1"))
        self.assertIn("first", log.stdout)

    def test_git_on_the_host_works_while_a_command_runs(self):
        # Regression: a missing .git/commondir is blocked by a placeholder on
        # the host for as long as the command runs (the hook runner: the whole
        # run), and an empty one stopped every git command in the repository
        # ("failed to read .git/commondir"); zero's own git worktree add and
        # the user's git status in another terminal alike.
        self.git_init()
        subprocess.run(["git", "-C", self.ws, "-c", "user.name=T", "-c", "user.email=t@t",
                        "commit", "-q", "--allow-empty", "-m", "first"], check=True)
        p = subprocess.Popen([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", "sleep 30"],
                             cwd=self.ws, env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        try:
            ph = os.path.join(self.ws, ".git", "commondir")
            for _ in range(300):
                if os.path.lexists(ph) and sleeping_child_of(p.pid):
                    break
                time.sleep(0.01)
            self.assertTrue(os.path.lexists(ph), "the commondir placeholder was not made")
            genv = dict(self.env, GIT_CONFIG_NOSYSTEM="1")
            for args in (["status", "--short"], ["rev-parse", "--verify", "HEAD"],
                         ["worktree", "list"]):
                r = subprocess.run(["git"] + args, cwd=self.ws, capture_output=True,
                                   text=True, env=genv)
                self.assertEqual(r.returncode, 0, (args, r.stderr))
        finally:
            p.terminate()
            p.wait(timeout=30)
        self.assertFalse(os.path.lexists(ph))

    def test_make_and_cc(self):
        with open(os.path.join(self.ws, "m.c"), "w") as f:
            f.write("#include <stdio.h>\nint main(void){puts(\"built\");return 0;}\n")
        with open(os.path.join(self.ws, "Makefile"), "w") as f:
            f.write("m: m.c\n\tcc -o m m.c\n")
        r = self.sx("make -s && ./m")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("built", r.stdout)

    def test_package_caches_go_to_the_runtime_dir(self):
        r = self.sx("mkdir -p \"$npm_config_cache\" \"$PIP_CACHE_DIR\" && echo x > \"$npm_config_cache/probe\" && "
                    "echo x > \"$PIP_CACHE_DIR/probe\" && echo x > \"$HOME/.probe\" && echo $npm_config_cache")
        self.assertEqual(r.returncode, 0, r.stderr)
        cache = r.stdout.strip()
        self.assertTrue(cache.startswith(os.path.join(self.home, ".cache", "zero", "runtime", "v1")), cache)
        self.assertTrue(os.path.exists(os.path.join(cache, "probe")))
        self.assertFalse(cache.startswith(self.ws))
        rt = os.path.dirname(os.path.dirname(cache))
        self.assertEqual(os.stat(rt).st_mode & 0o777, 0o700)

    def test_npm_writes_its_cache(self):
        if not shutil.which("npm", path=self.env["PATH"]):
            self.skipTest("npm not installed")
        r = self.sx("npm config get cache && npm cache verify >/dev/null && ls \"$(npm config get cache)\"",
                    timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_python_venv(self):
        r = self.sx("%s -m venv venv && ./venv/bin/python -c 'print(\"venv ok\")'" % PY, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("venv ok", r.stdout)

    def test_loopback_server_and_client_inside(self):
        r = self.sx("%s -c '\nimport socket,threading\ns=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen()\n"
                    "def srv():\n c,_=s.accept(); c.sendall(b\"pong\"); c.close()\n"
                    "threading.Thread(target=srv).start()\n"
                    "c=socket.create_connection(s.getsockname()); print(c.recv(4).decode())'" % PY)
        self.assertIn("pong", r.stdout, r.stderr)

    def test_tmp_is_private_and_writable(self):
        r = self.sx("echo x > /tmp/private && echo $TMPDIR && ls /tmp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split()[0], "/tmp")
        self.assertFalse(os.path.exists("/tmp/private"))


@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class Fallbacks(SandboxCase):
    def test_landlock_fallback_confines_writes_and_says_downgraded(self):
        self.env["ZERO_SANDBOX_FORCE_BACKEND"] = "landlock"
        target = os.path.join(self.outside, "ll-x")
        r = self.sx("echo ok > inside && echo x > %s; cat inside" % target)
        self.assertIn("backend=landlock enforcement=partial", r.stderr)
        self.assertIn("DOWNGRADED:", r.stderr)
        self.assertFalse(os.path.exists(target))
        self.assertTrue(os.path.exists(os.path.join(self.ws, "inside")))

    def test_deny_lists_refuse_without_a_full_sandbox(self):
        self.env["ZERO_SANDBOX_FORCE_BACKEND"] = "none"
        self.user_config({"sandbox": {"denyRead": [self.outside]}})
        r = self.sx("echo ran")
        self.assertNotIn("ran", r.stdout)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("denyRead", r.stderr)

    def test_deny_read_hides_a_path(self):
        with open(os.path.join(self.outside, "s"), "w") as f:
            f.write("SECRET-DR")
        self.user_config({"sandbox": {"denyRead": [self.outside]}})
        r = self.sx("cat %s/s; true" % self.outside)
        self.assertNotIn("SECRET-DR", r.stdout)

    def test_deny_write_of_a_missing_path_cannot_be_created(self):
        # denyWrite names paths that may not exist yet; the command must not
        # create them (nor a missing parent of one) while it runs.
        self.user_config({"sandbox": {"denyWrite": [os.path.join(self.ws, "vendor"),
                                                    os.path.join(self.ws, "a", "b", "lock")]}})
        with open(os.path.join(self.ws, "keep"), "w") as f:
            f.write("k")
        r = self.sx("mkdir vendor; echo x > vendor; mkdir -p a/b && echo x > a/b/lock; "
                    "echo ok > other; true")
        self.assertIn("backend=bwrap", r.stderr)
        self.assertFalse(os.path.lexists(os.path.join(self.ws, "vendor")))
        self.assertFalse(os.path.lexists(os.path.join(self.ws, "a")))
        self.assertEqual(sorted(os.listdir(self.ws)), ["keep", "other"])

    def test_allow_read_below_a_denied_path_and_deny_wins_on_equal(self):
        priv = os.path.join(self.outside, "priv")
        os.makedirs(os.path.join(priv, "pub"))
        with open(os.path.join(priv, "s"), "w") as f:
            f.write("SECRET-DR")
        with open(os.path.join(priv, "pub", "p"), "w") as f:
            f.write("PUBLIC-AR")
        self.user_config({"sandbox": {"denyRead": [priv, self.ws + "/x"],
                                      "allowRead": [os.path.join(priv, "pub"), self.ws + "/x"]}})
        with open(os.path.join(self.ws, "x"), "w") as f:
            f.write("EQUAL-DENIED")
        r = self.sx("cat %s/s %s/pub/p x 2>&1; true" % (priv, priv))
        self.assertNotIn("SECRET-DR", r.stdout)
        self.assertNotIn("EQUAL-DENIED", r.stdout)
        self.assertIn("PUBLIC-AR", r.stdout)

    def test_project_config_with_a_bad_network_value_is_an_error(self):
        os.makedirs(os.path.join(self.ws, ".zero"))
        with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
            f.write('{"sandbox":{"network":"maybe"}}')
        r = self.sx("echo ran")
        self.assertEqual(r.returncode, 2)
        self.assertNotIn("ran", r.stdout)
        self.assertIn('sandbox.network must be "allow", "scoped" or "deny"', r.stderr)

    def test_project_config_cannot_loosen(self):
        os.makedirs(os.path.join(self.ws, ".zero"))
        with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
            f.write('{"sandbox":{"network":"allow","additionalWriteRoots":["%s"]}}' % self.outside)
        r = self.sx("echo x > %s/loosened; true" % self.outside)
        self.assertIn("network=deny", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.outside, "loosened")))


# The confinement steps again with zero's own inner stage (`zero
# __sandbox-inner`, used where the zero-sandbox-inner helper is missing).
@unittest.skipUnless(have_bwrap(), "bubblewrap not installed")
class BuiltinInnerStage(SandboxCase):
    def setUp(self):
        super().setUp()
        self.env["ZERO_SANDBOX_INNER"] = "builtin"

    for name in ("test_writes_outside_the_workspace", "test_no_remount_mount_or_chroot",
                 "test_terminal_injection_is_refused", "test_unix_socket_blocked_with_block_unix_sockets",
                 "test_ptrace_process_vm_readv_io_uring_refused", "test_host_processes_are_invisible",
                 "test_zero_and_agents_cannot_be_created", "test_landlock_fallback_confines_writes_and_says_downgraded",
                 "test_banner_and_exit_status", "test_command_lookup_and_exit_statuses"):
        locals()[name] = getattr(Attacks, name, None) or getattr(Fallbacks, name)
    del name


if __name__ == "__main__":
    unpriv.main(__file__)  # root pass here; the uid 65534 pass from a readable copy
