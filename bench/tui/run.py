#!/usr/bin/env python3
"""bench/tui/run.py — figures for the interactive UI, measured in a real
pseudo-terminal against the loopback fake model server.

  python3 bench/tui/run.py [--zero build/zero] [--quick]

1. Keystroke to screen: one printable key is written to the terminal; the
   time until zero's redraw arrives on the master side. Median and p99 over
   300 keys, side by side with the floor of any program here: `cat` on a raw
   terminal echoing the same key (ratio zero / cat).
2. Streaming: 10,000 tokens (4-character deltas) of markdown at full speed,
   1,000 tokens at 100 tokens/s, and one long fenced code block (the worst
   case: the unfinished block grows to the whole answer) at full speed; zero's CPU time (utime + stime from
   /proc/PID/stat, 10 ms ticks) over the wall time, and frames drawn (one
   synchronized-output block each) per token: "no dropped frames" means
   every delta at 100 tokens/s reached the screen in its own frame.
3. Idle CPU: ticks used in 5 s with nothing happening (target 0).
4. Peak RSS (VmHWM) after 500 turns in one session (target < 32 MiB).

Only zero's own process is accounted; the fake server is another process.
"""
import argparse
import json
import os
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import termios
import time
import tty

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE = os.path.join(ROOT, "tests", "e2e", "fake_server.py")
TICK = os.sysconf("SC_CLK_TCK")


def start_server(turns, tmp):
    script = os.path.join(tmp, "script-%d.json" % time.monotonic_ns())
    with open(script, "w") as f:
        json.dump(turns, f)
    p = subprocess.Popen([sys.executable, FAKE, script], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    port = int(p.stdout.readline().split()[1])
    return p, "http://127.0.0.1:%d/v1" % port


class Pty:
    """A program on a fresh pseudo-terminal of 100x40."""

    def __init__(self, argv, env, cwd):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        import fcntl
        import struct
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
        self.out = bytearray()

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return b""
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:
            return b""
        self.out += data
        return data

    def wait_for(self, needle, timeout=30):
        deadline = time.monotonic() + timeout
        while needle.encode() not in self.out:
            if time.monotonic() > deadline:
                raise RuntimeError("timed out waiting for %r" % needle)
            self.read(0.2)

    def drain(self, quiet=0.05):
        while self.read(quiet):
            pass

    def cpu_ticks(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def hwm_kib(self):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        try:
            os.kill(self.pid, 15)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.fd)


def key_latency(p, n):
    """Median / p99 microseconds from writing a key to the first output byte."""
    p.drain()
    lat = []
    for i in range(n):
        ch = b"abcdefghij"[i % 10:i % 10 + 1]
        t0 = time.perf_counter_ns()
        os.write(p.fd, ch)
        if not p.read(2.0):
            raise RuntimeError("no echo for a key")
        lat.append((time.perf_counter_ns() - t0) / 1000)
        p.drain(0.002)
        if i % 50 == 49:  # keep the composer short
            os.write(p.fd, b"\x15")  # Ctrl+U
            p.drain(0.02)
    lat.sort()
    return statistics.median(lat), lat[int(len(lat) * 0.99) - 1]


def markdown_tokens(n):
    words = ("The **renderer** keeps `final` blocks in the scrollback and redraws only "
             "the tail; ").split(" ")
    out, i = [], 0
    while len(out) < n:
        out.append(words[i % len(words)] + " ")
        i += 1
        if i % 40 == 0:
            out.append("\n\n")
        if i % 200 == 0:
            out.append("```c\nint x = %d; // code\n```\n\n" % i)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zero", default=os.path.join(ROOT, "build", "zero"))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    zero = os.path.abspath(args.zero)
    tmp = tempfile.mkdtemp(prefix="zero-bench-tui-")
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "XDG_DATA_HOME": os.path.join(tmp, "data"), "XDG_CONFIG_HOME": os.path.join(tmp, "cfg"),
           "OPENAI_API_KEY": "sk-bench", "OPENAI_MODEL": "bench-model"}
    results = []
    servers = []
    try:
        # 1. keystroke latency, zero vs cat on a raw terminal
        n_keys = 100 if args.quick else 300
        srv, url = start_server([], tmp)
        servers.append(srv)
        p = Pty([zero], dict(env, OPENAI_BASE_URL=url), work)
        p.wait_for("Ask anything")
        z_med, z_p99 = key_latency(p, n_keys)
        idle0 = p.cpu_ticks()
        time.sleep(5)
        idle_ticks = p.cpu_ticks() - idle0
        p.close()
        c = Pty(["/bin/sh", "-c", "stty raw -echo; echo ready; exec cat"], env, work)
        c.wait_for("ready")
        c_med, c_p99 = key_latency(c, n_keys)
        c.close()
        results.append(("keystroke → screen, median", "%.0f µs" % z_med, "%.0f µs" % c_med,
                        "%.1f×" % (z_med / c_med), "< 2 ms"))
        results.append(("keystroke → screen, p99", "%.0f µs" % z_p99, "%.0f µs" % c_p99,
                        "%.1f×" % (z_p99 / c_p99), ""))
        results.append(("idle CPU over 5 s", "%d ticks" % idle_ticks, "", "", "0"))

        # 2. streaming
        long_code = "```python\n" + "".join("value_%d = compute(%d)  # step %d\n" % (i, i, i)
                                              for i in range(1000 if args.quick else 4000)) + "```"
        for label, ntok, delay, text in (
                ("10,000 tokens at full speed", 2000 if args.quick else 10000, 0, None),
                ("1,000 tokens at 100 tokens/s", 300 if args.quick else 1000, 10, None),
                ("one %d KB code block at full speed" % (len(long_code) // 1024), 0, 0, long_code)):
            text = text or markdown_tokens(ntok)
            turn = {"text": text + "\n\nEND-OF-ANSWER", "text_piece": 4, "delay_ms": delay}
            srv, url = start_server([turn], tmp)
            servers.append(srv)
            p = Pty([zero], dict(env, OPENAI_BASE_URL=url), work)
            p.wait_for("Ask anything")
            p.drain()
            os.write(p.fd, b"go\r")
            mark = len(p.out)
            c0, t0 = p.cpu_ticks(), time.monotonic()
            p.wait_for("END-OF-ANSWER", timeout=600)
            p.wait_for("Shift+Tab mode", timeout=60)
            wall = time.monotonic() - t0
            cpu = (p.cpu_ticks() - c0) / TICK
            frames = p.out[mark:].count(b"\x1b[?2026h")
            deltas = (len(text) + 14 + 3) // 4
            p.close()
            results.append(("stream %s: CPU" % label, "%.2f s / %.1f s = %.1f%%" % (cpu, wall, 100 * cpu / wall),
                            "", "", "< 5% at 100 tok/s" if delay else ""))
            results.append(("stream %s: frames / deltas" % label, "%d / %d" % (frames, deltas), "", "",
                            "no drops at 100 tok/s" if delay else ""))

        # 4. RSS after many turns
        turns = 100 if args.quick else 500
        srv, url = start_server([{"text": "Answer %d: some *markdown* with `code` and a list:\n\n- a\n- b" % i}
                                 for i in range(turns)], tmp)
        servers.append(srv)
        p = Pty([zero], dict(env, OPENAI_BASE_URL=url), work)
        p.wait_for("Ask anything")
        for i in range(turns):
            os.write(p.fd, b"question %d\r" % i)
            p.wait_for("Answer %d:" % i)
            p.wait_for("Shift+Tab mode")
            p.out = p.out[-4096:]
        hwm = p.hwm_kib()
        p.close()
        results.append(("peak RSS after %d turns" % turns, "%.1f MiB" % (hwm / 1024), "", "", "< 32 MiB"))
    finally:
        for s in servers:
            s.terminate()
            s.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    print("| measure | zero | cat (raw tty) | ratio | target |")
    print("|---|---|---|---|---|")
    for r in results:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
