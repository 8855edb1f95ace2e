"""Nothing zero started outlives zero, even when zero is killed with SIGKILL
(no chance to clean up): a command from exec_command with the background job
it started, a terminal (tty) command, and an MCP stdio server with a child of
its own — unconfined (unsafe mode) and sandboxed. The assertions look at
/proc for the real processes, not at exit codes."""
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import main  # noqa: E402

FAKE_MCP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "fake_mcp_server.py")


def live_pids_with_arg(token):
    """PIDs of live (not zombie) processes with `token` as an argument."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                args = f.read().split(b"\0")
            if token.encode() not in args:
                continue
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            found.append(int(d))
    return found


class ChildLifetime(harness.ZeroTest):
    def tokens(self, n):
        """Unique `sleep` durations: a process is found by its argument."""
        base = random.randint(100000, 899999)
        return ["%d.%d" % (base, i) for i in range(n)]

    def wait_running(self, tokens, timeout=15):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if all(live_pids_with_arg(t) for t in tokens):
                return
            time.sleep(0.05)
        self.fail("not all of %s started: %s" % (tokens, [live_pids_with_arg(t) for t in tokens]))

    def assert_gone_within(self, tokens, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            left = {t: live_pids_with_arg(t) for t in tokens}
            if not any(left.values()):
                return
            time.sleep(0.02)
        left = {t: live_pids_with_arg(t) for t in tokens}
        for pids in left.values():  # do not leave them behind for other tests
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self.fail("still running %.1f s after zero was killed: %s" % (seconds, left))

    def kill_zero_mid_command(self, mode_args, tty=False, with_mcp=False):
        t = self.tokens(3)
        cmd = "sleep %s & sleep %s; wait" % (t[0], t[1])
        if with_mcp:
            d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump({"mcp": {"servers": {"kid": {
                    "command": "sh",
                    "args": ["-c", 'sleep %s & exec "$0" "$1" hang /dev/null' % t[2],
                             sys.executable, FAKE_MCP]}}}}, f)
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": cmd, "tty": tty, "yield_time_ms": 30000}}]}, {"text": "never"}])
        p = self.spawn("exec", *mode_args, "-o", "stream-json", "run it")
        try:
            self.wait_running(t if with_mcp else t[:2])
            p.send_signal(signal.SIGKILL)
            p.wait(10)
            self.assert_gone_within(t, 1.0)
        finally:
            if p.poll() is None:
                p.kill()
            p.communicate(timeout=10)

    def test_unsafe_command_and_its_background_job_die_with_zero(self):
        self.kill_zero_mid_command(["--permission-mode", "unsafe"])

    def test_unsafe_tty_command_dies_with_zero(self):
        self.kill_zero_mid_command(["--auto", "high"], tty=True)

    def test_unsafe_mcp_server_and_its_child_die_with_zero(self):
        self.kill_zero_mid_command(["--permission-mode", "unsafe"], with_mcp=True)

    def test_sandboxed_command_dies_with_zero(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        self.kill_zero_mid_command(["--permission-mode", "auto"])

    def test_sandboxed_tty_command_and_mcp_server_die_with_zero(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        self.kill_zero_mid_command(["--permission-mode", "auto"], tty=True, with_mcp=True)

    def test_normal_exit_leaves_no_watchdog_behind(self):
        """The watchdog that does the killing ends with zero too."""
        t = self.tokens(1)
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "sleep %s" % t[0], "yield_time_ms": 300}}]}, {"text": "done"}])
        # The session is left running on purpose: the completion gate would
        # nudge the model about it, so it is off for this run.
        p = self.spawn("exec", "--permission-mode", "unsafe", "--no-completion-gate", "-o",
                       "stream-json", "run it")
        self.wait_running(t)
        kids = []
        with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
            kids = [int(x) for x in f.read().split()]
        helper = os.path.join(os.path.dirname(os.path.abspath(harness.ZERO_BIN)),
                              "zero-sandbox-inner")
        if os.path.exists(helper):
            # the watchdog is the small static helper, not a fork of zero
            # (which kept ~3 MiB of zero's memory resident)
            lines = []
            for k in kids:
                try:
                    with open("/proc/%d/cmdline" % k, "rb") as f:
                        lines.append(f.read())
                except OSError:
                    pass
            self.assertIn(b"zero-sandbox-inner\0--reap\0", lines)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        self.assert_gone_within(t, 1.0)
        end = time.monotonic() + 2
        while time.monotonic() < end and any(os.path.exists("/proc/%d/stat" % k) for k in kids):
            time.sleep(0.02)
        for k in kids:
            try:
                with open("/proc/%d/comm" % k) as f:
                    self.assertNotIn(f.read().strip(), ("zero-reaper", "zero-sandbox-in"))
            except OSError:
                pass

    @unittest.skipUnless(shutil.which("tmux"), "needs tmux (scripts/install-deps.sh installs it)")
    @unittest.skipUnless(shutil.which("bwrap"), "needs bwrap")
    def test_tui_command_outlives_its_turn_but_not_zero(self):
        """The TUI runs each turn on a worker thread that ends with the turn,
        and its commands run sandboxed (it maps unsafe to auto): bwrap's
        --die-with-parent follows the thread that forked, so a command left
        running as a session was killed when its turn ended. It must survive
        that, and still die when zero is killed."""
        t = self.tokens(2)
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "sleep %s & sleep %s; wait" % (t[0], t[1]), "yield_time_ms": 300}}]},
            {"text": "Left it running."}])
        sock = os.path.join(self.tmp, "tmux.sock")
        script = os.path.join(self.tmp, "run.sh")
        with open(script, "w") as f:
            for k, v in self.env.items():
                f.write("export %s=%s\n" % (k, shlex.quote(v)))
            f.write("cd %s\n" % shlex.quote(self.work))
            f.write("exec %s --permission-mode auto\n" % shlex.quote(harness.ZERO_BIN))
        tmux = [shutil.which("tmux"), "-S", sock]
        env = dict(self.env, TERM="xterm-256color")
        r = subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-x", "100", "-y",
                                   "30", "-s", "t", "sh " + script],
                           env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        try:
            def screen():
                return subprocess.run(tmux + ["capture-pane", "-p", "-t", "t"], env=env,
                                      capture_output=True, text=True).stdout

            def wait_for(text):
                end = time.monotonic() + 15
                while time.monotonic() < end:
                    if text in screen():
                        return
                    time.sleep(0.05)
                self.fail("%r did not appear:\n%s" % (text, screen()))

            wait_for("Ask anything")
            zero_pid = int(subprocess.run(tmux + ["display", "-p", "-t", "t", "#{pane_pid}"],
                                          env=env, capture_output=True, text=True).stdout)
            subprocess.run(tmux + ["send-keys", "-t", "t", "-l", "start it"], env=env)
            subprocess.run(tmux + ["send-keys", "-t", "t", "Enter"], env=env)
            wait_for("Left it running.")
            time.sleep(0.5)  # the turn's thread has ended
            self.wait_running(t, timeout=2)
            os.kill(zero_pid, signal.SIGKILL)
            self.assert_gone_within(t, 1.0)
        finally:
            subprocess.run(tmux + ["kill-server"], env=env, capture_output=True)


class CtrlC(harness.ZeroTest):
    """write_stdin "\\u0003" to a command started without a terminal sends
    SIGINT to the command, sandboxed or not, and the command lives on to
    handle it."""
    PROG = ("import signal, time\n"
            "caught = []\n"
            "def on_int(*a):\n"
            "    caught.append(1)\n"
            "    print('caught SIGINT', flush=True)\n"
            "signal.signal(signal.SIGINT, on_int)\n"
            "print('ready', flush=True)\n"
            "end = time.monotonic() + 20\n"
            "while not caught and time.monotonic() < end:\n"
            "    time.sleep(0.02)\n"
            "print('after the interrupt', flush=True)\n")

    def tool_messages(self, body):
        return [m for m in body["messages"] if m.get("role") == "tool"]

    def interrupt(self, mode):
        with open(os.path.join(self.work, "prog.py"), "w") as f:
            f.write(self.PROG)
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "exec python3 prog.py", "yield_time_ms": 1500}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "\u0003", "yield_time_ms": 5000}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "--permission-mode", mode, "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertIn("ready", self.tool_messages(bodies[1])[-1]["content"])
        after = self.tool_messages(bodies[2])[-1]["content"]
        self.assertIn("caught SIGINT", after)
        self.assertIn("after the interrupt", after)  # handled, not killed
        self.assertNotIn("killed by signal", after)
        self.assertIn("exit code: 0", after)

    def test_unconfined(self):
        self.interrupt("unsafe")

    def test_sandboxed_command_without_a_handler_stops(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        m = self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "sleep 30; echo not interrupted", "yield_time_ms": 1000}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {
                "session_id": 1000, "chars": "\u0003", "yield_time_ms": 10000}}]},
            {"text": "Done."},
        ])
        t0 = time.monotonic()
        r = self.zero("exec", "--permission-mode", "auto", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.monotonic() - t0, 9)
        after = self.tool_messages(m.bodies()[2])[-1]["content"]
        self.assertNotIn("still running", after)
        self.assertNotIn("not interrupted", after)

    def test_sandboxed(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        self.interrupt("auto")


class GracefulStop(harness.ZeroTest):
    """Stopping a command is SIGTERM, a grace period, then SIGKILL — for a
    sandboxed command too (the SIGTERM went to bwrap, whose death SIGKILLed
    the sandbox: the command never saw the SIGTERM)."""

    def stop_at_timeout(self, mode):
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "trap 'echo cleaned > cleaned.txt; exit 0' TERM; echo started; "
                   "sleep 30 & wait", "timeout_ms": 1500}}]}, {"text": "Done."}])
        r = self.zero("exec", "--permission-mode", mode, "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        path = os.path.join(self.work, "cleaned.txt")
        self.assertTrue(os.path.exists(path), "the command did not get SIGTERM:\n" + r.stdout)

    def test_unconfined(self):
        self.stop_at_timeout("unsafe")

    def test_sandboxed(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        self.stop_at_timeout("auto")


class ManyRoots(harness.ZeroTest):
    """Any number of --add-dir roots works, with either inner stage (the
    small helper, or zero itself when the helper lies in a writable root:
    that one held at most 63 write roots, about 53 --add-dir)."""
    N = 100

    def dirs(self):
        ds = []
        for i in range(self.N):
            d = os.path.join(self.tmp, "extra", "d%03d" % i)
            os.makedirs(d)
            ds.append(d)
        return ds

    def check_sandbox_exec(self, inner, backend=None):
        if not shutil.which("bwrap") and backend != "landlock":
            self.skipTest("needs bwrap")
        ds = self.dirs()
        args = []
        for d in ds:
            args += ["--add-dir", d]
        env = dict(self.env, ZERO_SANDBOX_INNER=inner)
        if backend:
            env["ZERO_SANDBOX_FORCE_BACKEND"] = backend
        target = os.path.join(ds[-1], "written")
        r = subprocess.run([harness.ZERO_BIN, "sandbox", "exec"] + args +
                           ["--", "sh", "-c", "echo hi > %s" % target],
                           cwd=self.work, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(target), r.stderr)
        outside = os.path.join(self.tmp, "extra", "outside")
        r = subprocess.run([harness.ZERO_BIN, "sandbox", "exec"] + args +
                           ["--", "sh", "-c", "echo hi > %s" % outside],
                           cwd=self.work, env=env, capture_output=True, text=True, timeout=60)
        # (under bwrap /tmp is private: the write may land there, never here)
        self.assertFalse(os.path.exists(outside))

    def test_sandbox_exec_builtin_inner(self):
        self.check_sandbox_exec("builtin")

    def test_sandbox_exec_helper(self):
        self.check_sandbox_exec("")

    def test_landlock_backend_builtin_inner(self):
        self.check_sandbox_exec("builtin", backend="landlock")

    def test_exec_command_with_many_add_dirs(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        ds = self.dirs()
        target = os.path.join(ds[-1], "written")
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "echo hi > %s && echo wrote" % target}}]}, {"text": "Done."}])
        args = []
        for d in ds:
            args += ["--add-dir", d]
        self.env["ZERO_SANDBOX_INNER"] = "builtin"
        r = self.zero("exec", "--permission-mode", "auto", *args, "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(target), r.stdout)


if __name__ == "__main__":
    main()
