"""Attack tests for the daemon's control socket (issue 21): whoever can talk
to the socket can run prompts as its owner, and whoever owns the socket a
client talks to receives those prompts. Each test asserts the real effect:
no session was created in the daemon, nothing was sent over a refused
socket (a fake listener saw no connection), the daemon did not start in a
directory it does not own. Runs as root and as uid 65534 (unpriv.main); the
cross-user cases need root and are skipped in the unprivileged pass.
"""
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import ZeroTest  # noqa: E402
import unpriv  # noqa: E402
from test_daemon import WORKER, alive, frame, read_frame  # noqa: E402
from test_sandbox_attacks import Listener  # noqa: E402

NOBODY = 65534
BASE = "/var/tmp" if os.access("/var/tmp", os.W_OK) else "/tmp"


class DaemonAttacks(ZeroTest):
    def setUp(self):
        super().setUp()
        # Under /var/tmp, readable by the other user of a cross-user test.
        self.root = tempfile.mkdtemp(prefix="zero-dmn-", dir=BASE)
        os.chmod(self.root, 0o755)
        self.run_dir = os.path.join(self.root, "run")
        os.makedirs(self.run_dir, mode=0o700)
        self.env["XDG_RUNTIME_DIR"] = self.run_dir
        self.env["ZERO_DAEMON_WORKER_EXE"] = WORKER
        self.zdir = os.path.join(self.run_dir, "zero")
        self.sock_path = os.path.join(self.zdir, "daemon.sock")
        self.pid = None

    def tearDown(self):
        if self.pid and alive(self.pid):
            os.kill(self.pid, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)
        super().tearDown()

    def start(self):
        r = self.zero("daemon", "start")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.zdir, "daemon.status")) as f:
            self.pid = json.load(f)["pid"]

    def sessions(self):
        """The daemon's sessions, asked over a fresh, legitimate connection."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.sock_path)
        s.sendall(frame({"type": "hello", "version": 1}))
        read_frame(s)
        s.sendall(frame({"type": "status"}))
        st = read_frame(s)["status"]
        s.close()
        return st["sessions"]

    def test_a_socket_others_may_use_is_refused_by_the_client(self):
        self.start()
        os.chmod(self.sock_path, 0o666)
        r = self.zero("daemon", "run", "--session", "x", "--prompt", "{}")
        self.assertEqual(r.returncode, 1)
        self.assertIn("refusing the daemon socket", r.stderr)
        self.assertIn("mode 0666", r.stderr)
        os.chmod(self.sock_path, 0o600)
        self.assertEqual(self.sessions(), [])  # nothing was sent

    def test_a_runtime_directory_others_may_write_is_refused(self):
        self.start()
        os.chmod(self.zdir, 0o777)
        for args in (("status",), ("stop",), ("attach", "x")):
            r = self.zero("daemon", *args)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn("refusing the daemon directory", r.stderr)
        self.assertTrue(alive(self.pid))  # stop was refused too
        os.chmod(self.zdir, 0o700)
        self.assertEqual(self.sessions(), [])

    def assert_planted_socket_gets_no_prompt(self, mode, owner, reason):
        """An attacker's listener at the socket path (mode, owner): the
        client refuses it and never connects, so no prompt leaks to it."""
        os.makedirs(self.zdir, mode=0o700)
        fake = Listener(self.sock_path)
        try:
            os.chmod(self.sock_path, mode)
            if owner is not None:
                os.chown(self.sock_path, owner, owner)
            r = self.zero("daemon", "run", "--session", "x", "--prompt", "secret task")
            self.assertEqual(r.returncode, 1)
            self.assertIn("refusing the daemon socket", r.stderr)
            self.assertIn(reason, r.stderr)
            time.sleep(0.3)
            self.assertEqual(fake.accepted, 0)
        finally:
            fake.close()

    def test_a_planted_socket_with_wide_modes_gets_no_prompt(self):
        self.assert_planted_socket_gets_no_prompt(0o777, None, "mode 0777")

    @unittest.skipIf(unpriv.UNPRIV or os.geteuid() != 0, "needs root to act as another user")
    def test_another_user_cannot_connect(self):
        self.start()
        probe = ("import socket,sys\n"
                 "s=socket.socket(socket.AF_UNIX)\n"
                 "try:\n"
                 "    s.connect(sys.argv[1])\n"
                 "except OSError as e:\n"
                 "    print('refused', e.errno); sys.exit(0)\n"
                 "print('connected')\n")
        r = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                            "--clear-groups", "/usr/bin/python3", "-c", probe, self.sock_path],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.stdout.split()[0], "refused", r.stdout + r.stderr)
        # zero itself as the other user, pointed at this daemon: refused too
        env = dict(self.env, HOME="/tmp")
        z = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                            "--clear-groups", unpriv.zero_bin(), "daemon", "run", "--session",
                            "evil", "--prompt", "{}"], env=env, capture_output=True, text=True,
                           timeout=30, cwd="/")
        self.assertNotEqual(z.returncode, 0)
        self.assertEqual(self.sessions(), [])

    @unittest.skipIf(unpriv.UNPRIV or os.geteuid() != 0, "needs root to act as another user")
    def test_the_daemon_turns_away_another_user_even_past_the_file_modes(self):
        """Defence in depth: with the directory and socket opened up by mistake,
        the daemon still refuses a peer of another uid (SO_PEERCRED)."""
        self.start()
        os.chmod(self.run_dir, 0o755)
        os.chmod(self.zdir, 0o755)
        os.chmod(self.sock_path, 0o666)
        probe = ("import socket,struct,sys,json\n"
                 "s=socket.socket(socket.AF_UNIX); s.settimeout(10)\n"
                 "s.connect(sys.argv[1])\n"
                 "p=json.dumps({'type':'hello','version':1}).encode()\n"
                 "q=json.dumps({'type':'run','session':'evil','prompt':'{}'}).encode()\n"
                 "try:\n"
                 "    s.sendall(struct.pack('>IB',len(p),1)+p+struct.pack('>IB',len(q),1)+q)\n"
                 "    print('reply', repr(s.recv(100)))\n"
                 "except OSError as e:\n"
                 "    print('reply', 'error', e.errno)\n")
        r = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                            "--clear-groups", "/usr/bin/python3", "-c", probe, self.sock_path],
                           capture_output=True, text=True, timeout=30)
        self.assertIn("reply", r.stdout, r.stderr)
        self.assertNotIn("hello_ok", r.stdout)
        os.chmod(self.sock_path, 0o600)
        self.assertEqual(self.sessions(), [])
        with open(os.path.join(self.zdir, "daemon.log")) as f:
            self.assertIn("connection refused (another user)", f.read())

    @unittest.skipIf(unpriv.UNPRIV or os.geteuid() != 0, "needs root to chown")
    def test_a_socket_owned_by_another_user_is_refused(self):
        self.assert_planted_socket_gets_no_prompt(0o600, NOBODY, "owner uid 65534")

    @unittest.skipIf(unpriv.UNPRIV or os.geteuid() != 0, "needs root to chown")
    def test_the_daemon_will_not_run_in_another_users_directory(self):
        os.makedirs(self.zdir, mode=0o700)
        os.chown(self.zdir, NOBODY, NOBODY)
        r = self.zero("daemon", "start", "--foreground", timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("belongs to uid 65534", r.stderr)
        self.assertEqual(os.listdir(self.zdir), [])
        self.assertEqual(stat.S_IMODE(os.stat(self.zdir).st_mode), 0o700)


if __name__ == "__main__":
    unpriv.main(__file__)
