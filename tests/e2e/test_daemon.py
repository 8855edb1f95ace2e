"""`zero daemon` (issue 21, part A): every command, every control message,
the worker pool's retries, queue and drain, the replay buffer, the
single-instance lock, and the protocol's bad input, against the real binary.

Sessions run either real `zero exec` workers against the fake model server,
or the scripted worker tests/e2e/daemon_worker.py (ZERO_DAEMON_WORKER_EXE)
where a test needs a worker that crashes, waits or reports on itself.
ZERO_DAEMON_RETRY_UNIT_MS=20 shrinks the retry schedule's second to 20 ms.
Every daemon a test starts is killed by pid at the end.
"""
import json
import os
import signal
import socket
import stat
import struct
import subprocess
import time

from harness import ZERO_BIN, ZeroTest, main

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "daemon_worker.py")
UNIT_MS = 20


def frame(obj=None, kind=1, raw=None):
    payload = raw if raw is not None else json.dumps(obj).encode()
    return struct.pack(">IB", len(payload), kind) + payload


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(sock):
    """The next control message as a dict, or None at end of stream."""
    h = recv_exact(sock, 5)
    if h is None:
        return None
    n, kind = struct.unpack(">IB", h)
    body = recv_exact(sock, n)
    assert kind == 1, kind
    return json.loads(body)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def group_alive(pgid):
    """Whether any live process is in process group pgid."""
    for d in os.listdir("/proc"):
        if not d.isdigit() or not alive(int(d)):
            continue
        try:
            if os.getpgid(int(d)) == pgid:
                return True
        except ProcessLookupError:
            pass
    return False


class DaemonCase(ZeroTest):
    def setUp(self):
        super().setUp()
        self.run_dir = os.path.join(self.tmp, "run")
        os.makedirs(self.run_dir, mode=0o700)
        self.env["XDG_RUNTIME_DIR"] = self.run_dir
        self.env["ZERO_DAEMON_RETRY_UNIT_MS"] = str(UNIT_MS)
        self.zdir = os.path.join(self.run_dir, "zero")
        self.sock_path = os.path.join(self.zdir, "daemon.sock")
        self.daemon_pids = set()

    def tearDown(self):
        pid = self.status_pid()
        if pid:
            self.daemon_pids.add(pid)
        for pid in self.daemon_pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        super().tearDown()

    def status_pid(self):
        try:
            with open(os.path.join(self.zdir, "daemon.status")) as f:
                return json.load(f)["pid"]
        except (OSError, ValueError):
            return None

    def start(self, scripted=True, **env):
        if scripted:
            self.env["ZERO_DAEMON_WORKER_EXE"] = WORKER
        self.env.update(env)
        r = self.zero("daemon", "start")
        self.assertEqual(r.returncode, 0, r.stderr + self.log())
        self.assertIn("zero daemon started", r.stdout)
        pid = self.status_pid()
        self.assertTrue(pid and alive(pid))
        self.daemon_pids.add(pid)
        return pid

    def log(self):
        try:
            with open(os.path.join(self.zdir, "daemon.log")) as f:
                return f.read()
        except OSError:
            return ""

    def run_session(self, sid, spec, *extra, timeout=60):
        return self.zero("daemon", "run", "--session", sid, "--prompt", json.dumps(spec), *extra,
                         timeout=timeout)

    def spawn_session(self, sid, spec):
        return self.spawn("daemon", "run", "--session", sid, "--prompt", json.dumps(spec))

    def status(self):
        r = self.zero("daemon", "status", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def session(self, sid):
        for s in self.status()["sessions"]:
            if s["id"] == sid:
                return s
        return None

    def wait_for(self, cond, timeout=20, what="condition"):
        end = time.time() + timeout
        while time.time() < end:
            v = cond()
            if v:
                return v
            time.sleep(0.05)
        self.fail("timed out waiting for " + what + "\n" + self.log())

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(20)
        s.connect(self.sock_path)
        return s

    def hello(self, version=1):
        s = self.connect()
        s.sendall(frame({"type": "hello", "version": version}))
        return s, read_frame(s)


class Lifecycle(DaemonCase):
    def test_start_status_stop_and_the_runtime_files(self):
        r = self.zero("daemon", "status")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "zero daemon is not running"))
        self.assertEqual(json.loads(self.zero("daemon", "status", "--json").stdout),
                         {"running": False})
        pid = self.start()
        for name, mode in (("", 0o700), ("daemon.sock", 0o600), ("daemon.status", 0o600),
                           ("daemon.log", 0o600), ("daemon.lock", 0o600)):
            st = os.lstat(os.path.join(self.zdir, name))
            self.assertEqual(stat.S_IMODE(st.st_mode), mode, name)
        self.assertTrue(stat.S_ISSOCK(os.lstat(self.sock_path).st_mode))
        with open(os.path.join(self.zdir, "daemon.status")) as f:
            doc = json.load(f)
        self.assertEqual(sorted(doc), ["pid", "socket", "startedAt", "version"])
        self.assertEqual((doc["pid"], doc["socket"], doc["version"]), (pid, self.sock_path, 1))
        st = self.status()
        self.assertTrue(st["running"])
        self.assertEqual((st["pid"], st["poolSize"], st["sessions"], st["queueDepth"]),
                         (pid, 4, [], 0))
        text = self.zero("daemon", "status").stdout
        self.assertIn("daemon pid=%d version=1 socket=%s" % (pid, self.sock_path), text)
        self.assertIn("pool size=4 busy=0 queue=0", text)
        again = self.zero("daemon", "start")
        self.assertEqual(again.returncode, 0)
        self.assertIn("already running (pid %d)" % pid, again.stdout)
        r = self.zero("daemon", "stop")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "zero daemon stopped"), r.stderr)
        self.assertFalse(alive(pid))
        self.assertFalse(os.path.exists(self.sock_path))
        self.assertFalse(os.path.exists(os.path.join(self.zdir, "daemon.status")))
        self.assertEqual(self.zero("daemon", "stop").stdout.strip(), "zero daemon is not running")
        self.assertIn("stopped", self.log())

    def test_sigterm_stops_the_daemon_cleanly(self):
        pid = self.start()
        os.kill(pid, signal.SIGTERM)
        self.wait_for(lambda: not alive(pid), what="the daemon to exit")
        self.assertFalse(os.path.exists(self.sock_path))

    def test_the_daemon_takes_none_of_the_starting_commands_signals(self):
        """`zero daemon start` from a shell that blocks SIGTERM and ignores
        SIGHUP and SIGINT (nohup, a CI runner): the daemon outlives that
        command, so it starts with nothing blocked and only its own SIGPIPE
        ignored, and `zero daemon stop` still stops it."""
        self.env["ZERO_DAEMON_WORKER_EXE"] = WORKER

        def as_a_careless_parent():
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)

        r = subprocess.run([ZERO_BIN, "daemon", "start"], cwd=self.work, env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                           preexec_fn=as_a_careless_parent)
        self.assertEqual(r.returncode, 0, r.stderr + self.log())
        pid = self.status_pid()
        self.daemon_pids.add(pid)
        with open("/proc/%d/status" % pid) as f:
            masks = dict(l.split(":\t") for l in f.read().splitlines() if l.startswith("Sig"))
        self.assertEqual(masks["SigBlk"], "0000000000000000")
        self.assertEqual(masks["SigIgn"], "%016x" % (1 << (signal.SIGPIPE - 1)))
        r = self.zero("daemon", "stop")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "zero daemon stopped"), r.stderr)
        self.assertFalse(alive(pid))

    def test_a_socket_path_over_the_limit_is_refused_up_front(self):
        long_dir = os.path.join(self.tmp, "r" * 100)
        os.makedirs(long_dir, mode=0o700)
        self.env["XDG_RUNTIME_DIR"] = long_dir
        r = self.zero("daemon", "start", "--foreground")
        self.assertEqual(r.returncode, 1)
        self.assertIn("socket path too long", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(long_dir, "zero")))

    def test_without_xdg_runtime_dir_the_home_directory_is_used(self):
        del self.env["XDG_RUNTIME_DIR"]
        self.zdir = os.path.join(self.home, ".zero")
        self.sock_path = os.path.join(self.zdir, "daemon.sock")
        self.start()
        self.assertTrue(stat.S_ISSOCK(os.lstat(self.sock_path).st_mode))

    def test_usage_errors(self):
        for args, msg in ((["daemon"], "which command"), (["daemon", "frob"], "unknown daemon"),
                          (["daemon", "run", "--prompt", "x"], "requires --session"),
                          (["daemon", "run", "--session", "a"], "requires --prompt"),
                          (["daemon", "attach"], "requires a <session>"),
                          (["daemon", "status", "--foreground"], "does not apply"),
                          (["daemon", "run", "--session", "a", "--remote", "h:1"], "remote")):
            r = self.zero(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(msg, r.stderr, args)
        r = self.zero("daemon", "run", "--session", "a", "--prompt", "x")
        self.assertEqual(r.returncode, 1)
        self.assertIn("zero daemon is not running (start it with `zero daemon start`)", r.stderr)


class Lock(DaemonCase):
    def test_two_foreground_starts_race_and_one_wins(self):
        self.env["ZERO_DAEMON_WORKER_EXE"] = WORKER
        procs = [subprocess.Popen([ZERO_BIN, "daemon", "start", "--foreground"], env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        self.daemon_pids.update(p.pid for p in procs)
        loser = None
        end = time.time() + 20
        while loser is None and time.time() < end:
            loser = next((p for p in procs if p.poll() is not None), None)
            time.sleep(0.02)
        self.assertIsNotNone(loser, "neither start gave up")
        winner = procs[1] if loser is procs[0] else procs[0]
        err = loser.stderr.read()
        self.assertEqual(loser.returncode, 1, err)
        self.assertIn("already running (pid %d)" % winner.pid, err)
        self.wait_for(lambda: self.status_pid() == winner.pid, what="the winner's status file")
        self.assertEqual(self.status()["pid"], winner.pid)
        time.sleep(0.3)
        self.assertIsNone(winner.poll())
        self.assertEqual(self.zero("daemon", "stop").returncode, 0)
        winner.wait(20)
        for p in procs:
            p.stdout.close()
            p.stderr.close()

    def test_two_background_starts_leave_one_daemon(self):
        self.env["ZERO_DAEMON_WORKER_EXE"] = WORKER
        procs = [self.spawn("daemon", "start") for _ in range(2)]
        outs = [p.communicate(timeout=30) for p in procs]
        for p, (out, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        pid = self.status_pid()
        self.daemon_pids.add(pid)

        def daemons():
            found = []
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open("/proc/%s/cmdline" % d, "rb") as f:
                        cmd = f.read()
                    with open("/proc/%s/environ" % d, "rb") as f:
                        env = f.read()
                except OSError:
                    continue
                if b"daemon\0start\0--foreground" in cmd and \
                        ("XDG_RUNTIME_DIR=" + self.run_dir).encode() in env and alive(int(d)):
                    found.append(int(d))
            return found
        # The loser ends at once, but `start` returns when the winner answers:
        # under ASan on a loaded machine its exit can lag behind.
        self.wait_for(lambda: daemons() == [pid], timeout=30, what="one daemon, pid %d" % pid)

    def test_a_stale_lock_of_a_dead_pid_is_reclaimed(self):
        dead = subprocess.Popen(["true"])
        dead.wait()
        os.makedirs(self.zdir, mode=0o700)
        with open(os.path.join(self.zdir, "daemon.lock"), "w") as f:
            f.write("%d\n" % dead.pid)
        # and a stale socket file left by the dead daemon
        s = socket.socket(socket.AF_UNIX)
        s.bind(self.sock_path)
        s.close()
        pid = self.start()
        with open(os.path.join(self.zdir, "daemon.lock")) as f:
            self.assertEqual(int(f.read()), pid)


class Sessions(DaemonCase):
    def test_run_with_real_zero_exec_workers_against_the_fake_model(self):
        model = self.serve([{"text": "first answer"}, {"text": "second answer"}])
        self.start(scripted=False)
        r = self.zero("daemon", "run", "--session", "a", "--prompt", "say one")
        self.assertEqual(r.returncode, 0, r.stderr + self.log())
        events = self.lines(r.stdout)
        self.assert_stream_json_valid(events)
        self.assertEqual(events[0]["type"], "run_start")
        self.assertIn("first answer", json.dumps([e for e in events if e["type"] == "final"]))
        self.assertEqual(events[0]["cwd"], os.path.realpath(self.work))
        r2 = self.zero("daemon", "run", "--session", "b", "--prompt", "say two",
                       "--max-turns", "3")
        self.assertEqual(r2.returncode, 0, r2.stderr)
        self.assertIn("second answer", r2.stdout)
        self.assertEqual(len(model.bodies()), 2)
        # attach to a finished session replays its history, then ends
        a = self.zero("daemon", "attach", "a")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, r.stdout)
        st = self.session("a")
        self.assertEqual((st["state"], st["lines"], st["exitCode"]), ("done", len(events), 0))

    def test_worker_argv_cwd_environment_and_process_group(self):
        sub = os.path.join(self.work, "sub")
        os.makedirs(sub)
        self.start(ZERO_SANDBOXED="1", ZERO_SANDBOX_BACKEND="none", ZERO_SANDBOX_NETWORK="deny")
        spec = {"report": True}
        r = self.run_session("w", spec, "--cwd", "sub", "--model", "m1", "--max-turns", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.lines(r.stdout)[0]
        self.assertEqual(rep["argv"], ["exec", "--output-format", "stream-json", "--model", "m1",
                                       "--max-turns", "2", "--prompt", json.dumps(spec)])
        self.assertEqual(rep["cwd"], os.path.realpath(sub))
        # the markers are gone, so the worker sets up its own sandbox; the policy stays
        self.assertEqual(rep["env"], {"ZERO_SANDBOX_NETWORK": "deny"})
        self.assertEqual(rep["pgid"], rep["pid"])
        self.assertEqual(rep["sid"], rep["pid"])
        # stdin, stdout, stderr (and the fd listdir opened): none of the daemon's
        self.assertLessEqual(len(rep["fds"]), 4, rep["fds"])
        self.assertEqual(rep["fds"][:3], [0, 1, 2])
        self.assertNotEqual(rep["pgid"], os.getpgid(self.status_pid()))

    def test_a_duplicate_session_id_is_refused(self):
        self.start()
        self.assertEqual(self.run_session("d", {}).returncode, 0)
        r = self.run_session("d", {})
        self.assertEqual(r.returncode, 1)
        self.assertIn("session d already exists", r.stderr)

    def test_attach_replays_history_then_streams_live(self):
        self.start()
        gate = os.path.join(self.tmp, "gate")
        p = self.spawn_session("live", {"lines": ['{"n":1}', '{"n":2}'], "wait_file": gate})
        self.wait_for(lambda: (self.session("live") or {}).get("lines", 0) >= 3,
                      what="the first lines")
        att = self.spawn("daemon", "attach", "live")
        first = [att.stdout.readline() for _ in range(3)]
        self.assertEqual([json.loads(l) for l in first],
                         [{"n": 1}, {"n": 2}, {"type": "waiting"}])
        open(gate, "w").close()
        rest, err = att.communicate(timeout=30)
        self.assertEqual(att.returncode, 0, err)
        self.assertEqual([json.loads(l)["type"] for l in rest.splitlines()],
                         ["released", "run_end"])
        out, _ = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(out, "".join(first) + rest)
        r = self.zero("daemon", "attach", "nope")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no session nope", r.stderr)

    def test_the_replay_buffer_keeps_the_newest_1024_lines(self):
        self.start()
        lines = ['{"i":%d}' % i for i in range(1500)]
        r = self.run_session("big", {"lines": lines})
        self.assertEqual(r.returncode, 0)
        self.assertEqual(len(r.stdout.splitlines()), 1501)  # live: everything
        a = self.zero("daemon", "attach", "big").stdout.splitlines()
        self.assertEqual(len(a), 1024)
        self.assertEqual(a[0], '{"i":477}')
        self.assertEqual(json.loads(a[-1])["type"], "run_end")
        self.assertEqual(self.session("big")["lines"], 1501)

    def test_sessions_queue_when_every_slot_is_busy(self):
        self.start(ZERO_DAEMON_WORKERS="1")
        gate = os.path.join(self.tmp, "gate")
        p1 = self.spawn_session("q1", {"wait_file": gate})
        self.wait_for(lambda: (self.session("q1") or {}).get("state") == "running", what="q1")
        p2 = self.spawn_session("q2", {})
        self.wait_for(lambda: self.session("q2"), what="q2")
        st = self.status()
        self.assertEqual([(s["id"], s["state"]) for s in st["sessions"]],
                         [("q1", "running"), ("q2", "queued")])
        self.assertEqual((st["poolSize"], st["queueDepth"], len(st["workers"])), (1, 1, 1))
        open(gate, "w").close()
        for p in (p1, p2):
            p.communicate(timeout=30)
            self.assertEqual(p.returncode, 0)
        self.assertEqual([s["state"] for s in self.status()["sessions"]], ["done", "done"])


class Retries(DaemonCase):
    def starts(self, log):
        with open(log) as f:
            return [float(l.split()[1]) for l in f if l.startswith("start")]

    def test_a_crashing_worker_is_retried_with_growing_backoff_then_succeeds(self):
        self.start()
        log = os.path.join(self.tmp, "starts")
        r = self.run_session("flaky", {"log": log, "fail_first": 3, "exit": 1})
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.starts(log)
        self.assertEqual(len(t), 4)
        gaps = [b - a for a, b in zip(t, t[1:])]
        # min(1 unit * 2^n, 300 units) * jitter in [0.5, 1.5): 20, 40, 80 ms nominal
        for n, g in enumerate(gaps):
            self.assertGreaterEqual(g, 0.5 * UNIT_MS * 2 ** n / 1000 - 0.005, gaps)
        st = self.session("flaky")
        self.assertEqual((st["state"], st["attempts"]), ("done", 4))

    def test_a_crash_looping_worker_is_failed_with_the_reason(self):
        self.start()
        log = os.path.join(self.tmp, "starts")
        r = self.run_session("loop", {"log": log, "exit": 9})
        self.assertEqual(r.returncode, 9)
        self.assertIn("session loop failed: worker failed 5 times in a row, last exit 9: "
                      "crash-looping, not retried", r.stderr)
        self.assertEqual(len(self.starts(log)), 5)
        st = self.session("loop")
        self.assertEqual((st["state"], st["attempts"], st["exitCode"]), ("failed", 5, 9))
        self.assertIn("crash-looping", st["reason"])
        time.sleep(0.5)
        self.assertEqual(len(self.starts(log)), 5)  # never started again

    def test_exit_76_is_permanent(self):
        self.start()
        log = os.path.join(self.tmp, "starts")
        r = self.run_session("perm", {"log": log, "exit": 76})
        self.assertEqual(r.returncode, 76)
        self.assertIn("failed permanently (exit 76)", r.stderr)
        self.assertEqual(len(self.starts(log)), 1)

    def test_exit_75_is_retried_after_the_cool_off(self):
        self.start()
        log = os.path.join(self.tmp, "starts")
        r = self.run_session("temp", {"log": log, "fail_first": 1, "exit": 75})
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.starts(log)
        self.assertEqual(len(t), 2)
        self.assertGreaterEqual(t[1] - t[0], 30 * UNIT_MS / 1000 - 0.005)  # 30 "seconds"

    def test_a_worker_that_cannot_start_is_a_crash(self):
        self.start(ZERO_DAEMON_WORKER_EXE="/nonexistent/zero")
        r = self.run_session("nostart", {})
        self.assertEqual(r.returncode, 127)
        self.assertIn("crash-looping", r.stderr)


class Drain(DaemonCase):
    def test_stop_drains_finishing_workers_and_kills_stragglers_after_5s(self):
        pid = self.start(ZERO_DAEMON_WORKERS="2")
        slow = self.spawn_session("slow", {"report": True, "child_sleep": 120, "sleep": 120})
        self.wait_for(lambda: (self.session("slow") or {}).get("state") == "running", what="slow")
        report = json.loads(slow.stdout.readline())
        quick = self.spawn_session("quick", {"sleep": 3})  # ends inside the 5 s grace
        self.wait_for(lambda: (self.session("quick") or {}).get("state") == "running",
                      what="quick")
        queued = self.spawn_session("queued", {})
        self.wait_for(lambda: (self.session("queued") or {}).get("state") == "queued",
                      what="a queued session")
        t0 = time.time()
        r = self.zero("daemon", "stop", timeout=60)
        took = time.time() - t0
        self.assertEqual(r.returncode, 0, r.stderr + self.log())
        self.assertGreaterEqual(took, 4.5)
        self.assertLess(took, 15)
        self.assertFalse(alive(pid))
        self.assertFalse(alive(report["pid"]))
        self.assertFalse(group_alive(report["pgid"]))  # nothing of the straggler's group
        _, err = slow.communicate(timeout=10)
        self.assertEqual(slow.returncode, 137)  # the worker's status: SIGKILL
        self.assertIn("the daemon stopped before the session finished", err)
        qout, qerr = quick.communicate(timeout=10)
        self.assertEqual(quick.returncode, 0, qerr)
        qout, qerr = queued.communicate(timeout=10)
        self.assertEqual(queued.returncode, 1)
        self.assertIn("the daemon stopped before the session could run", qerr)
        self.assertEqual(qout, "")
        self.assertIn("still running after 5000 ms: killed", self.log())


    def test_workers_die_with_a_killed_daemon(self):
        pid = self.start()
        p = self.spawn_session("orphan", {"report": True, "child_sleep": 120, "sleep": 120})
        report = json.loads(p.stdout.readline())
        os.kill(pid, signal.SIGKILL)
        self.wait_for(lambda: not alive(report["pid"]), what="the worker to die with the daemon")
        self.wait_for(lambda: not group_alive(report["pgid"]), what="the worker's group to die")
        p.communicate(timeout=10)
        self.assertEqual(p.returncode, 1)  # the connection broke


class Protocol(DaemonCase):
    def test_handshake_and_every_command_over_the_raw_socket(self):
        self.start()
        s, ok = self.hello(1)
        self.assertEqual(ok, {"type": "hello_ok", "version": 1})
        s.sendall(frame({"type": "status"}))
        res = read_frame(s)
        self.assertEqual(res["type"], "status_result")
        self.assertEqual(res["status"]["pid"], self.status_pid())
        self.assertIsNone(read_frame(s))  # one command per connection
        s.close()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "run", "session": "raw", "prompt": json.dumps({"lines": ["x"]}),
                         "args": ["--model", "m"]}))
        msgs = []
        while True:
            m = read_frame(s)
            if m is None:
                break
            msgs.append(m)
        self.assertEqual(msgs[0], {"type": "ack", "session": "raw"})
        self.assertEqual(msgs[1], {"type": "data", "line": "x"})
        self.assertEqual(msgs[-1], {"type": "end", "session": "raw", "exitCode": 0})
        s.close()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "attach", "session": "raw"}))
        self.assertEqual(read_frame(s), {"type": "ack", "session": "raw"})
        self.assertEqual(read_frame(s), {"type": "data", "line": "x"})
        s.close()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "frobnicate"}))
        self.assertEqual(read_frame(s), {"type": "error", "message": "unknown command \"frobnicate\""})
        s.close()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "run", "session": "bad", "prompt": "x", "args": [1]}))
        self.assertEqual(read_frame(s)["message"], "args must be an array of strings")
        s.close()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "run", "session": "bad2", "prompt": "x", "cwd": "relative"}))
        self.assertIn("not an existing absolute directory", read_frame(s)["message"])
        s.close()
        pid = self.status_pid()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "shutdown"}))
        self.assertEqual(read_frame(s), {"type": "ack", "message": "shutting down"})
        self.assertIsNone(read_frame(s))  # closed when the daemon is gone
        self.wait_for(lambda: not alive(pid), what="the daemon to exit")

    def test_a_session_goes_on_when_its_client_goes_away(self):
        self.start()
        s, _ = self.hello(1)
        s.sendall(frame({"type": "run", "session": "gone", "prompt": json.dumps({"sleep": 0.3})}))
        s.close()  # before the ack
        self.wait_for(lambda: (self.session("gone") or {}).get("state") == "done",
                      what="the detached session to finish")
        a = self.zero("daemon", "attach", "gone")
        self.assertEqual((a.returncode, json.loads(a.stdout)["type"]), (0, "run_end"))

    def test_a_client_that_never_sends_a_command_is_closed(self):
        self.start(ZERO_DAEMON_HANDSHAKE_MS="300")
        s = self.connect()
        t0 = time.time()
        self.assertEqual(read_frame(s), {"type": "error", "message": "handshake timed out"})
        self.assertIsNone(read_frame(s))
        s.close()
        s, ok = self.hello(1)  # hello alone does not hold the connection open either
        self.assertEqual(ok["type"], "hello_ok")
        self.assertEqual(read_frame(s)["message"], "handshake timed out")
        s.close()
        self.assertGreaterEqual(time.time() - t0, 0.25)
        self.assertIn("sent no command within 300 ms", self.log())

    def test_other_protocol_versions(self):
        self.start()
        s, reply = self.hello(99)  # a newer client: negotiated down
        self.assertEqual(reply, {"type": "hello_ok", "version": 1})
        s.close()
        for v in (0, -1, "1", None):
            s, reply = self.hello(v)
            self.assertEqual(reply["type"], "error", v)
            self.assertIn("unsupported protocol version", reply["message"])
            self.assertIsNone(read_frame(s))
            s.close()
        s = self.connect()
        s.sendall(frame({"type": "status"}))
        self.assertEqual(read_frame(s), {"type": "error", "message": "expected hello"})
        s.close()

    def assert_alive(self):
        st = self.status()
        self.assertTrue(st["running"])

    def test_a_frame_over_the_cap_is_refused_before_it_is_read(self):
        self.start()
        s = self.connect()
        # the header alone: 1 MiB + 1 announced, no payload sent
        s.sendall(struct.pack(">IB", (1 << 20) + 1, 1))
        reply = read_frame(s)
        self.assertEqual(reply["type"], "error")
        self.assertIn("exceeds the 1048576-byte cap", reply["message"])
        self.assertIsNone(read_frame(s))
        s.close()
        # exactly at the cap is a frame like any other (here: not JSON)
        s = self.connect()
        s.sendall(frame(raw=b" " * (1 << 20)))
        self.assertIn("not a JSON object", read_frame(s)["message"])
        s.close()
        self.assert_alive()

    def test_truncated_and_malformed_frames(self):
        self.start()
        s = self.connect()
        s.sendall(struct.pack(">IB", 100, 1) + b'{"type":')
        s.shutdown(socket.SHUT_WR)
        self.assertIsNone(read_frame(s))  # dropped, nothing answered
        s.close()
        self.wait_for(lambda: "truncated" in self.log(), what="the log line")
        for raw, kind, msg in ((b"[1,2]", 1, "not a JSON object"),
                               (b'{"type":1}', 1, "string \"type\""),
                               (b'{"type":"hello","version":1}', 0, "unexpected frame kind 0"),
                               (b'{"type":"hello","version":1}', 7, "unexpected frame kind 7")):
            s = self.connect()
            s.sendall(frame(raw=raw, kind=kind))
            self.assertIn(msg, read_frame(s)["message"])
            s.close()
        self.assert_alive()


if __name__ == "__main__":
    main()
