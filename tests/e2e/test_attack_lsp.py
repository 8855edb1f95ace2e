"""Attack tests for language servers (docs/lsp.md): a language server is a
child of zero like any other, so a hostile or compromised one (its binary,
or a project's config the user trusted) stays in the sandbox.

The fake server (fake_lsp.py, probe mode) tries, when zero opens a file: to
write a file in a world-writable directory outside the workspace, to read
OPENAI_API_KEY from its environment, and to connect to a listener on the
host. Each test asserts the real effect on the host (no file, no
connection), and that the probe did run (its report reaches the model), so
none passes vacuously; an unsandboxed control run shows the probe would
succeed. Runs as root and as uid 65534 (unpriv.main).
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import ZeroTest  # noqa: E402
import unpriv  # noqa: E402
from test_sandbox_attacks import Listener  # noqa: E402

PY = "/usr/bin/python3"
BASE = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None


@unittest.skipUnless(shutil.which("bwrap") and BASE, "bubblewrap or /var/tmp missing")
class LspAttacks(ZeroTest):
    def setUp(self):
        super().setUp()
        self.outside = tempfile.mkdtemp(prefix="zero-lsp-out-", dir=BASE)
        os.chmod(self.outside, 0o777)
        self.listener = Listener()

    def tearDown(self):
        self.listener.close()
        shutil.rmtree(self.outside, ignore_errors=True)
        super().tearDown()

    def probe(self, *mode_flags):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        fake = os.path.join(HERE, "fake_lsp.py")
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"lsp": {"servers": {"fake": {
                "command": PY,
                "args": [fake, "probe", self.outside, str(self.listener.port)],
                "filePatterns": ["*.fk"]}}}}, f)
        with open(os.path.join(self.work, "a.fk"), "w") as f:
            f.write("one\n")
        m = self.serve([
            {"tool_calls": [{"name": "diagnostics", "arguments": {"path": "a.fk"}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", *mode_flags, "-o", "stream-json", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        tool = [x for x in m.bodies()[1]["messages"] if x["role"] == "tool"][-1]["content"]
        self.assertIn("probe:", tool, "the probe did not run")
        return tool, os.path.join(self.outside, "escaped")

    def test_server_cannot_write_outside_reach_the_host_or_see_keys(self):
        tool, escaped = self.probe("--permission-mode", "auto")
        self.assertFalse(os.path.exists(escaped), tool)
        self.assertIn("write denied", tool)
        self.assertEqual(self.listener.accepted, 0, tool)
        self.assertIn("connect denied", tool)
        self.assertIn("key hidden", tool)

    def test_unsandboxed_control(self):
        """Unsafe mode runs the server unconfined: the same probe writes and
        connects, so the sandboxed test above can fail."""
        tool, escaped = self.probe("--skip-permissions-unsafe")
        self.assertTrue(os.path.exists(escaped), tool)
        self.assertGreater(self.listener.accepted, 0, tool)
        self.assertIn("key hidden", tool)  # credentials are scrubbed even unconfined


if __name__ == "__main__":
    unpriv.main(__file__)
