#!/usr/bin/env python3
"""bench/mcp/serve_http.py — `zero serve --mcp --http` on loopback (issue 20):

 1. N (1,000) sequential `tools/call` of a read-only tool (read_file of a
    small file) on one keep-alive connection: zero's own CPU per call, read
    from the server's threads' /proc schedstat before and after, so the
    client's work does not count;
    target < 0.3 ms a call. The median wall time of a call is shown too.
 2. S (50) concurrent sessions, each on its own open connection, each
    having called a tool and holding its standalone GET stream open: the
    server's RSS (VmRSS) then, and its peak (VmHWM); target < 20 MiB.

Usage: bench/mcp/serve_http.py [--zero build/zero] [--calls N] [--sessions S]
Prints Markdown; exits 1 when a target is missed."""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "mcp"))
import serve_client as sc  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """CPU time of the server's live threads (schedstat: nanoseconds), which
    include the connection's thread that answers the calls; /proc/PID/stat's
    clock ticks (10 ms) are too coarse for 1,000 calls of ~0.1 ms."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except OSError:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def status_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zero", default=os.path.join(ROOT, "build", "zero"))
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--sessions", type=int, default=50)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="zero-bench-serve-")
    try:
        with open(os.path.join(work, "small.txt"), "w") as f:
            f.write("".join("line %d of a small file\n" % i for i in range(40)))
        env = {"PATH": "/usr/bin:/bin", "HOME": work, "XDG_CONFIG_HOME": os.path.join(work, ".c"),
               "LANG": "C.UTF-8"}
        proc, _, port = sc.start(a.zero, ["--http", "0"], work, env)
        if not port:
            sys.exit("zero serve did not start: " + sc.stop(proc)[1])
        try:
            ok = run(proc.pid, port, a)
        finally:
            sc.stop(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if ok else 1)


def run(pid, port, a):
    c = sc.Conn(port)
    _, sid = sc.initialize(c)
    call = {"name": "read_file", "arguments": {"path": "small.txt"}}
    for _ in range(20):  # warm-up: first-use allocations, page faults
        sc.rpc(c, sid, "tools/call", call)
    walls = []
    cpu0 = cpu_seconds(pid)
    for _ in range(a.calls):
        t = time.perf_counter()
        r = sc.rpc(c, sid, "tools/call", call)
        walls.append(time.perf_counter() - t)
        assert r.status == 200 and b'"isError":false' in r.body, r.body[:200]
    cpu_ms = (cpu_seconds(pid) - cpu0) * 1000 / a.calls
    c.close()

    conns = []
    for _ in range(a.sessions):
        s = sc.Conn(port)
        _, ssid = sc.initialize(s)
        sc.rpc(s, ssid, "tools/call", call)
        s.send_raw(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    "Mcp-Session-Id: %s\r\n\r\n" % ssid).encode())
        conns.append(s)
    time.sleep(0.5)
    rss, hwm = status_kib(pid, "VmRSS"), status_kib(pid, "VmHWM")
    threads = status_kib(pid, "Threads")
    for s in conns:
        s.close()

    cpu_ok, rss_ok = cpu_ms < 0.3, hwm < 20 * 1024
    print("## zero serve --mcp --http (loopback)\n")
    print("| measure | value | target |")
    print("| --- | --- | --- |")
    print("| zero's CPU per tools/call (read_file, %d sequential) | %.3f ms | < 0.3 ms %s |"
          % (a.calls, cpu_ms, "ok" if cpu_ok else "MISSED"))
    print("| wall time per call, median (client included) | %.3f ms | |"
          % (statistics.median(walls) * 1000))
    print("| RSS with %d sessions open (GET streams held) | %.1f MiB | |" % (a.sessions, rss / 1024))
    print("| peak RSS (VmHWM) | %.1f MiB | < 20 MiB %s |" % (hwm / 1024, "ok" if rss_ok else "MISSED"))
    print("| server threads then | %d | |" % threads)
    return cpu_ok and rss_ok


if __name__ == "__main__":
    main()
