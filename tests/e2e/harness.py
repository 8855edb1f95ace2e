"""Shared helpers for the end-to-end tests: an isolated home for every test,
the fake model server started from a script, and the real zero binary run
against it.

Every test gets its own HOME / XDG directories and workspace, so nothing a
developer has configured leaks in and tests can run in parallel.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ZERO_BIN = os.environ.get("ZERO_BIN") or os.path.join(HERE, "..", "..", "build", "zero")
FAKE_SERVER = os.path.join(HERE, "fake_server.py")


class FakeModel:
    """The loopback fake model server running `turns` (see tests/e2e/README.md)."""

    def __init__(self, turns, workdir):
        fd, self.script = tempfile.mkstemp(prefix="script-", suffix=".json", dir=workdir)
        os.close(fd)
        self.log = self.script[:-len(".json")] + "-requests.jsonl"
        with open(self.script, "w") as f:
            json.dump(turns, f)
        self.proc = subprocess.Popen(
            [sys.executable, FAKE_SERVER, self.script, "--log", self.log],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError("fake server did not start: %r %s" % (line, self.proc.stderr.read()))
        self.port = int(line.split()[1])
        self.base_url = "http://127.0.0.1:%d/v1" % self.port

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(l) for l in f if l.strip()]

    def bodies(self):
        return [r["body"] for r in self.requests() if r.get("method") == "POST"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        for s in (self.proc.stdout, self.proc.stderr):
            if s:
                s.close()


class ZeroTest(unittest.TestCase):
    """Base class: self.home, self.work (the workspace), self.env."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="zero-e2e-")
        self.home = os.path.join(self.tmp, "home")
        self.work = os.path.join(self.tmp, "work")
        os.makedirs(self.home)
        os.makedirs(self.work)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_DATA_HOME": os.path.join(self.home, ".local", "share"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "TMPDIR": self.tmp,
            "LANG": "C.UTF-8",
            "ZERO_RETRY_BASE_MS": "20",
        }
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                self.env[k] = os.environ[k]
        self.model = None

    def tearDown(self):
        if self.model:
            self.model.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def serve(self, turns, model="test-model"):
        """Starts the fake server and points zero at it through the environment.
        A server started earlier in the same test is stopped first."""
        if self.model:
            self.model.stop()
        self.model = FakeModel(turns, self.tmp)
        self.env["OPENAI_BASE_URL"] = self.model.base_url
        self.env["OPENAI_API_KEY"] = "sk-test-key-for-fake-server"
        self.env["OPENAI_MODEL"] = model
        return self.model

    def user_config(self, doc):
        """Writes doc as the user config (~/.config/zero/config.json)."""
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(doc, f)

    def zero(self, *args, input=None, timeout=60, cwd=None):
        """Runs zero to completion; returns CompletedProcess (text)."""
        # No inherited stdin: zero exec appends piped standard input to the prompt.
        feed = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        return subprocess.run([ZERO_BIN] + list(args), cwd=cwd or self.work, env=self.env,
                              capture_output=True, text=True, timeout=timeout, **feed)

    def spawn(self, *args, cwd=None):
        return subprocess.Popen([ZERO_BIN] + list(args), cwd=cwd or self.work, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    @staticmethod
    def lines(stdout):
        return [json.loads(l) for l in stdout.splitlines() if l.strip()]

    def sessions_dir(self):
        return os.path.join(self.env["XDG_DATA_HOME"], "zero", "sessions")

    def session_ids(self):
        d = self.sessions_dir()
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def session_events(self, sid):
        with open(os.path.join(self.sessions_dir(), sid, "events.jsonl")) as f:
            return [json.loads(l) for l in f if l.strip()]

    def assert_stream_json_valid(self, events, run_id=None):
        """Every line carries schemaVersion 2, a type and the same runId; the
        last one is run_end."""
        self.assertTrue(events, "no stream-json output")
        rid = run_id or events[0].get("runId")
        for ev in events:
            self.assertEqual(ev.get("schemaVersion"), 2, ev)
            self.assertIn("type", ev)
            self.assertEqual(ev.get("runId"), rid, ev)
        self.assertEqual(events[-1]["type"], "run_end")


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picked it),
    for a server a test starts on a port it must name in advance."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    unittest.main(verbosity=2)
