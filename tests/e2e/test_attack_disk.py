"""A full disk must not lose the user's prompt (issue 14, hole 9).

The data directory ($XDG_DATA_HOME, where sessions live) is a 64 KiB tmpfs
filled almost to the brim. `zero exec` must then stop with a clear error and
exit 1 before it sends a prompt it could not record, never exit 0; a tool
whose call could not be recorded never runs (the file it would write is
absent on the host); and once there is room again, `--resume` sends a
history that starts with a user message.

The tmpfs is mounted in a private mount namespace: as root with
`unshare -m`, as uid 65534 (the unprivileged pass, via setpriv like
test_sandbox_attacks.py) with `unshare -rm` (a user namespace), skipped with
the reason when the kernel refuses that.
"""
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ZeroTest  # noqa: E402
import unpriv  # noqa: E402

UNPRIV = os.environ.get("ZERO_E2E_UNPRIV") == "1"
IN_NS = os.environ.get("ZERO_DISK_NS") == "1"
PY = "/usr/bin/python3"
PAGE = 4096


class FullDataDirectory(ZeroTest):
    def setUp(self):
        super().setUp()
        if UNPRIV:
            self.env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
        self.data = os.path.join(self.tmp, "data")
        os.makedirs(self.data)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", self.data],
                       check=True)
        self.env["XDG_DATA_HOME"] = self.data
        self.fill = os.path.join(self.data, "fill")

    def tearDown(self):
        subprocess.run(["umount", "-l", self.data])
        super().tearDown()

    def leave_free(self, pages):
        """Fills the tmpfs so that `pages` pages stay free."""
        st = os.statvfs(self.data)
        size = st.f_bavail * st.f_frsize - pages * PAGE
        with open(self.fill, "ab") as f:
            f.write(b"\0" * max(size, 0))
        st = os.statvfs(self.data)
        self.assertLessEqual(st.f_bavail * st.f_frsize, pages * PAGE)

    def session_id(self, stdout):
        starts = [e for e in self.lines(stdout) if e["type"] == "run_start"]
        return starts[0]["sessionId"]

    def recorded_types(self, sid):
        path = os.path.join(self.data, "zero", "sessions", sid, "events.jsonl")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [(json.loads(l)["type"], json.loads(l)["payload"].get("role"))
                    for l in f if l.strip()]

    def resume_starts_with_the_user(self, sid):
        os.remove(self.fill)
        m = self.serve([{"text": "resumed"}])
        r = self.zero("exec", "--resume", sid, "-o", "stream-json", "the prompt again")
        self.assertEqual(r.returncode, 0, r.stderr)
        msgs = [x for x in m.bodies()[0]["messages"] if x["role"] != "system"]
        self.assertEqual(msgs[0]["role"], "user", msgs)

    def test_prompt_that_cannot_be_recorded_is_never_sent(self):
        # room for the lock and the metadata, not for the 32 KiB prompt
        self.leave_free(3)
        m = self.serve([{"text": "an answer to a prompt the session lost"}])
        prompt = "precious prompt " + "x" * 32768
        r = self.zero("exec", "-o", "stream-json", prompt)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("could not record the session", r.stdout)
        self.assertIn("No space left on device", r.stdout)
        self.assertEqual(m.requests(), [], "the prompt was sent although it was not recorded")
        end = [e for e in self.lines(r.stdout) if e["type"] == "run_end"][0]
        self.assertEqual(end["status"], "error")
        sid = self.session_id(r.stdout)
        self.assertNotIn(("message", "assistant"), self.recorded_types(sid))
        self.model.stop()
        self.model = None
        self.resume_starts_with_the_user(sid)

    def test_full_disk_mid_turn_stops_and_the_tool_never_runs(self):
        # room for the prompt and the answer's start, not for the 40 KiB call
        self.leave_free(3)
        target = os.path.join(self.work, "written.txt")
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "written.txt", "content": "y" * 40960}}], "args_fragment": 8192},
            {"text": "done"},
        ])
        r = self.zero("exec", "-o", "stream-json", "write the file")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("could not record the session", r.stdout)
        self.assertFalse(os.path.exists(target), "a call the session lost still ran")
        self.assertEqual(len(m.requests()), 1)
        sid = self.session_id(r.stdout)
        self.assertEqual(self.recorded_types(sid)[0], ("message", "user"))
        self.model.stop()
        self.model = None
        self.resume_starts_with_the_user(sid)


def run_in_mount_namespace():
    """Runs this module's tests in a private mount namespace (a user namespace
    too when not root); returns the exit code, or 0 with a reason on stderr
    when this kernel does not allow it."""
    ns = ["unshare", "-m", "--propagation", "private"] if os.geteuid() == 0 else ["unshare", "-rm"]
    if not shutil.which("unshare"):
        print("skipped: unshare is not installed", file=sys.stderr)
        return 0
    probe = subprocess.run(ns + ["true"], capture_output=True, text=True)
    if probe.returncode != 0:
        print("skipped as uid %d: %s refused (%s)" % (os.geteuid(), " ".join(ns), probe.stderr.strip()),
              file=sys.stderr)
        return 0
    env = dict(os.environ, ZERO_DISK_NS="1")
    return subprocess.run(ns + [sys.executable, os.path.abspath(__file__)], env=env).returncode


def main():
    if IN_NS:
        unittest.main(verbosity=1)
        return
    code = 0
    if os.geteuid() == 0 and not UNPRIV and shutil.which("setpriv"):
        # The unprivileged pass in a child as uid 65534, from a readable copy.
        child = unpriv.run_unprivileged(__file__)
        if child != 0:
            print("unprivileged pass FAILED (exit %d)" % child, file=sys.stderr)
            code = 1
    if run_in_mount_namespace() != 0:
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
