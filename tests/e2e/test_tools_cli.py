"""zero tools list|run: the tools from the command line, through the
permission engine and output processing; and every process a session left
running is stopped when zero exits, SIGINT included."""
import json
import os
import signal
import time

from harness import ZeroTest, main


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


class ToolsCli(ZeroTest):
    def test_list_shows_every_tool_with_schema(self):
        r = self.zero("tools", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        tools = {t["name"]: t for t in json.loads(r.stdout)}
        for name in ("apply_patch", "edit_file", "exec_command", "glob", "grep",
                     "list_directory", "read_file", "write_file", "write_stdin"):
            self.assertIn(name, tools)
            self.assertEqual(tools[name]["parameters"]["type"], "object")
        r = self.zero("tools", "list")
        self.assertIn("grep", r.stdout)
        r = self.zero("tools", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Examples:", r.stdout)

    def test_run_reads_and_patches_through_the_permission_engine(self):
        with open(os.path.join(self.work, "a.txt"), "w") as f:
            f.write("one\ntwo\n")
        r = self.zero("tools", "run", "read_file", '{"path":"a.txt"}', "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        res = json.loads(r.stdout)
        self.assertTrue(res["ok"])
        self.assertIn("2 | two", res["output"])
        patch = "*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+2\n*** End Patch\n"
        # the default is ask, as documented: nobody can approve a write here
        r = self.zero("tools", "run", "apply_patch", "-", input=patch)
        self.assertEqual(r.returncode, 1)
        self.assertIn("permission denied", r.stderr)
        r = self.zero("tools", "list", "--json")
        perms = {t["name"]: t["permission"] for t in json.loads(r.stdout)}
        self.assertEqual((perms["read_file"], perms["apply_patch"]), ("allow", "prompt"))
        r = self.zero("tools", "list", "--json", "--auto", "low")
        perms = {t["name"]: t["permission"] for t in json.loads(r.stdout)}
        self.assertEqual(perms["apply_patch"], "allow")
        # ask mode has nobody to approve a write: denied, file unchanged
        r = self.zero("tools", "run", "apply_patch", "-", "--permission-mode", "ask", input=patch)
        self.assertEqual(r.returncode, 1)
        self.assertIn("permission denied", r.stderr)
        r = self.zero("tools", "run", "apply_patch", "-", "--permission-mode", "auto", input=patch)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("M a.txt", r.stdout)
        with open(os.path.join(self.work, "a.txt")) as f:
            self.assertEqual(f.read(), "one\n2\n")

    def test_run_write_file_overwrites_when_asked(self):
        # One call has no earlier read_file: overwrite: true is enough here
        # (the read-before-overwrite rule is for a model's session).
        path = os.path.join(self.work, "a.txt")
        with open(path, "w") as f:
            f.write("old\n")
        args = '{"path":"a.txt","content":"new\\n"}'
        r = self.zero("tools", "run", "write_file", args, "--permission-mode", "auto")
        self.assertEqual(r.returncode, 1)
        self.assertIn("overwrite: true", r.stderr)
        args = '{"path":"a.txt","content":"new\\n","overwrite":true}'
        r = self.zero("tools", "run", "write_file", args, "--permission-mode", "auto")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Overwrote a.txt", r.stdout)
        with open(path) as f:
            self.assertEqual(f.read(), "new\n")

    def test_env_file_values_are_redacted_by_read_file_and_grep(self):
        with open(os.path.join(self.work, ".env"), "w") as f:
            f.write("DB_PASSWORD=hunter2hunter2\nDEBUG=1\n")
        r = self.zero("tools", "run", "read_file", '{"path":".env"}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 | DB_PASSWORD=[REDACTED:env-secret]", r.stdout)
        self.assertIn("2 | DEBUG=1", r.stdout)
        r = self.zero("tools", "run", "grep",
                      '{"pattern":"PASSWORD","path":".env","output_mode":"content"}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("hunter2", r.stdout)

    def test_run_redacts_secrets_and_usage_errors(self):
        with open(os.path.join(self.work, ".env"), "w") as f:
            f.write("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
        r = self.zero("tools", "run", "read_file", '{"path":".env"}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("ghp_abc", r.stdout)
        self.assertIn("[REDACTED:", r.stdout)
        r = self.zero("tools", "run", "nope", "{}")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown tool", r.stderr)
        r = self.zero("tools", "run", "read_file", '{"bad":1}')
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown property", r.stderr)

    def test_sigint_stops_every_session_process(self):
        p = self.spawn("tools", "run", "exec_command",
                       '{"cmd":"sleep 1000 & echo $! > gc.pid; echo $$ > leader.pid; exec sleep 1000",'
                       '"yield_time_ms":30000}', "--skip-permissions-unsafe")
        gc_file = os.path.join(self.work, "gc.pid")
        leader_file = os.path.join(self.work, "leader.pid")
        for _ in range(200):
            if os.path.exists(gc_file) and os.path.exists(leader_file) and \
                    os.path.getsize(leader_file) > 0:
                break
            time.sleep(0.02)
        time.sleep(0.1)
        with open(gc_file) as f:
            gc = int(f.read())
        with open(leader_file) as f:
            leader = int(f.read())
        self.assertTrue(alive(gc))
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=10)
        self.assertEqual(p.returncode, 1)  # the tool reports the cancellation
        for pid in (gc, leader):
            for _ in range(100):
                if not alive(pid):
                    break
                time.sleep(0.02)
            self.assertFalse(alive(pid), "pid %d survived zero's exit" % pid)


if __name__ == "__main__":
    main()
