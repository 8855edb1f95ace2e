#!/usr/bin/env python3
"""The daemon's own cost (issue 21): a daemon with 4 workers serves 100
one-turn sessions (real `zero exec` workers against the fake model server),
4 clients submitting one session after another over the control socket so
the pool stays full. Measured from /proc: the daemon process's own CPU
(utime + stime, its workers excluded) per session, and its RSS before the
first session and after every 25.

Budget (issue 21): under 2 ms of daemon CPU per session, RSS flat.

Usage: ZERO_BIN=build/zero python3 bench/daemon/bench.py [sessions]
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
from harness import FakeModel  # noqa: E402
from test_daemon import frame, read_frame  # noqa: E402  (the protocol's framing)

ZERO = os.path.abspath(os.environ.get("ZERO_BIN", "build/zero"))
TICK = os.sysconf("SC_CLK_TCK")


def run_session(sock_path, sid, cwd):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.sendall(frame({"type": "hello", "version": 1}))
    read_frame(s)
    s.sendall(frame({"type": "run", "session": sid, "cwd": cwd, "prompt": "say ok"}))
    lines = 0
    while True:
        m = read_frame(s)
        if m is None or m["type"] in ("end", "error"):
            break
        lines += m["type"] == "data"
    s.close()
    assert m and m["type"] == "end", m
    return lines


def own_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime: not the children's


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    tmp = tempfile.mkdtemp(prefix="zero-bench-daemon-")
    work = os.path.join(tmp, "work")
    run = os.path.join(tmp, "run")
    os.makedirs(work)
    os.makedirs(run, mode=0o700)
    model = FakeModel([{"text": "ok"}] * (n + 8), tmp)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
           "XDG_CONFIG_HOME": os.path.join(tmp, ".config"),
           "XDG_DATA_HOME": os.path.join(tmp, ".local", "share"),
           "XDG_RUNTIME_DIR": run, "TMPDIR": tmp, "LANG": "C.UTF-8",
           "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "sk-bench",
           "OPENAI_MODEL": "test-model"}
    if os.environ.get("BENCH_WORKER"):  # e.g. /bin/true: the daemon's cost without zero exec
        env["ZERO_DAEMON_WORKER_EXE"] = os.environ["BENCH_WORKER"]
    r = subprocess.run([ZERO, "daemon", "start"], env=env, cwd=work, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(run, "zero", "daemon.status")) as f:
        pid = json.load(f)["pid"]
    sock_path = os.path.join(run, "zero", "daemon.sock")
    try:
        cpu0, rss = own_cpu_s(pid), [(0, rss_kib(pid))]
        done = [0]
        lock = threading.Lock()
        ids = iter(range(n))

        def client():
            while True:
                with lock:
                    i = next(ids, None)
                if i is None:
                    return
                run_session(sock_path, "s%d" % i, work)
                with lock:
                    done[0] += 1
                    if done[0] % 25 == 0:
                        rss.append((done[0], rss_kib(pid)))

        t0 = time.time()
        threads = [threading.Thread(target=client) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.time() - t0
        cpu = own_cpu_s(pid) - cpu0
        print(json.dumps({
            "sessions": n, "workers": 4, "wall_s": round(wall, 2),
            "daemon_cpu_ms_per_session": round(cpu * 1000 / n, 3),
            "daemon_cpu_total_ms": round(cpu * 1000, 1),
            "daemon_rss_kib": rss,
        }, indent=2))
    finally:
        subprocess.run([ZERO, "daemon", "stop"], env=env, capture_output=True, timeout=60)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        model.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
