"""fakeserver.py — start fake_server.py from a test and inspect what it saw.

    from fakeserver import FakeServer
    with FakeServer([{"text": "Hello"}, {"status": 429, "retry_after": 0}]) as fs:
        env["OPENAI_BASE_URL"] = fs.base_url      # http://127.0.0.1:PORT/v1
        ... run zero ...
        reqs = fs.requests()                      # one dict per request
        assert reqs[0]["body"]["stream"] is True

Python 3 standard library only.
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "fake_server.py")


class FakeServer:
    """A fake_server.py subprocess driven by `turns` (the script list)."""

    def __init__(self, turns, models=None, workdir=None, startup_timeout=10.0):
        self.turns = turns
        self.models = models
        self.startup_timeout = startup_timeout
        self._tmp = None if workdir else tempfile.TemporaryDirectory(prefix="zero-fake-")
        self.dir = workdir or self._tmp.name
        self.script_path = os.path.join(self.dir, "script.json")
        self.log_path = os.path.join(self.dir, "requests.jsonl")
        self.stderr_path = os.path.join(self.dir, "server.stderr")
        self.proc = None
        self.port = None

    @property
    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def start(self):
        with open(self.script_path, "w", encoding="utf-8") as f:
            json.dump(self.turns, f)
        open(self.log_path, "w").close()
        cmd = [sys.executable, SERVER, self.script_path, "--log", self.log_path]
        if self.models:
            cmd += ["--models", ",".join(self.models)]
        self._stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self._stderr,
                                     stdin=subprocess.DEVNULL)
        deadline = time.time() + self.startup_timeout
        line = b""
        while time.time() < deadline and not line.endswith(b"\n"):
            r, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if r:
                b = os.read(self.proc.stdout.fileno(), 1)
                if not b:
                    break
                line += b
        if not line.startswith(b"PORT "):
            self.stop()
            with open(self.stderr_path) as f:
                raise RuntimeError("fake server did not start: %r %s" % (line, f.read()))
        self.port = int(line.split()[1])
        return self

    def requests(self, path_suffix=None):
        """Every request logged so far, in arrival order; optionally only
        those whose path ends with path_suffix (e.g. "/chat/completions")."""
        out = []
        with open(self.log_path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    if path_suffix is None or rec["path"].split("?")[0].endswith(path_suffix):
                        out.append(rec)
        return out

    def chat_requests(self):
        return self.requests("/chat/completions")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()
        if getattr(self, "_stderr", None):
            self._stderr.close()
            self._stderr = None

    def cleanup(self):
        self.stop()
        if self._tmp:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()
        return False
