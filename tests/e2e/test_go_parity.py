"""Go zero's headless contract, point by point (issue 18, part B): files and
flags a script written for Go zero uses work with this zero too. One test
class per point; each names the point it proves."""
import json
import os
import stat

from harness import ZeroTest, main


# A grants file as Go zero writes it today (internal/sandbox/grants.go,
# schemaVersion 3 with policyVersion), written by hand from that schema.
GO_V3_GRANTS = {
    "schemaVersion": 3,
    "policyVersion": 2,
    "grants": {
        "write_file": [
            {"toolName": "write_file", "decision": "allow",
             "approvedAt": "2026-06-05T14:30:00Z", "reason": "workspace writes"},
        ],
        "edit_file": [
            {"toolName": "edit_file", "scope": "/srv/app", "scopeKind": "dir",
             "decision": "deny", "approvedAt": "2026-06-05T14:31:00Z"},
        ],
        "web_fetch": [
            {"toolName": "web_fetch", "scope": "example.com", "scopeKind": "host",
             "decision": "allow", "approvedAt": "2026-06-05T14:32:00Z"},
        ],
        "bash": [
            {"toolName": "bash", "decision": "allow", "approvedAt": "2026-06-05T14:33:00Z"},
        ],
    },
    "commandPrefixes": {
        "bash": [
            {"toolName": "bash", "prefix": ["git", "status"],
             "approvedAt": "2026-06-05T14:34:00Z"},
            {"toolName": "bash", "prefix": ["make", "test"], "project": "/srv/app",
             "approvedAt": "2026-06-05T14:35:00Z"},
        ],
    },
}

# schemaVersion 2 (before policyVersion and commandPrefixes): maxAutonomy per grant.
GO_V2_GRANTS = {
    "schemaVersion": 2,
    "grants": {
        "write_file": [
            {"toolName": "write_file", "decision": "allow", "maxAutonomy": "medium",
             "approvedAt": "2026-05-01T10:00:00Z"},
        ],
    },
}


class GoGrantsFile(ZeroTest):
    """Point: sandbox-grants.json schema v2/v3 read, migrated with a backup
    and a one-time notice; an unreadable file ignored for the run."""

    def grants_path(self):
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        return os.path.join(d, "sandbox-grants.json")

    def write_grants(self, doc):
        path = self.grants_path()
        raw = json.dumps(doc, indent=2)
        with open(path, "w") as f:
            f.write(raw)
        os.chmod(path, 0o600)
        return path, raw

    def run_write(self):
        """One run whose model writes a file: allowed only by a saved grant
        under --permission-mode ask."""
        self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "made.txt", "content": "hi\n"}}]},
            {"text": "done"},
        ])
        return self.zero("exec", "--permission-mode", "ask", "-o", "stream-json", "write it")

    def test_go_v3_file_is_migrated_with_backup_and_keeps_its_grants(self):
        path, raw = self.write_grants(GO_V3_GRANTS)
        r = self.run_write()
        self.assertEqual(r.returncode, 0, r.stderr)
        # The grant did its work: the write ran without anyone approving it.
        self.assertTrue(os.path.exists(os.path.join(self.work, "made.txt")), r.stdout)
        self.assertIn("[zero] sandbox grants updated", r.stderr)
        backup = path + ".v3.backup"
        with open(backup) as f:
            self.assertEqual(f.read(), raw)  # byte for byte
        self.assertEqual(stat.S_IMODE(os.stat(backup).st_mode), 0o600)
        with open(path) as f:
            ours = json.load(f)
        self.assertEqual(ours["version"], 1)
        got = {(g["tool"], g["kind"], g.get("value"), g["action"]) for g in ours["grants"]}
        self.assertEqual(got, {
            ("write_file", "tool", None, "allow"),
            ("edit_file", "path", "/srv/app", "deny"),
            ("exec_command", "prefix", "git status", "allow"),
        })
        # Not widened: the host grant, the tool-wide shell allow and the
        # project-scoped prefix are not carried over (the notice counts them).
        self.assertIn("migrated 3, not carried over 3", r.stderr)
        # The notice is given once: the file is ours now.
        r2 = self.run_write()
        self.assertEqual(r2.returncode, 0, r2.stderr)
        self.assertNotIn("sandbox grants updated", r2.stderr)
        self.assertFalse(os.path.exists(backup + ".1"))

    def test_go_v2_file_is_migrated(self):
        path, _ = self.write_grants(GO_V2_GRANTS)
        r = self.run_write()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.work, "made.txt")))
        self.assertIn("schema v2", r.stderr)
        self.assertTrue(os.path.exists(path + ".v2.backup"))
        listed = self.zero("sandbox", "grants", "list", "--json")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn("write_file", listed.stdout)

    def test_unreadable_grants_file_is_reported_and_ignored(self):
        for content in ("{not json", json.dumps({"version": 99, "grants": []})):
            with self.subTest(content=content):
                path = self.grants_path()
                with open(path, "w") as f:
                    f.write(content)
                self.serve([{"text": "fine"}])
                r = self.zero("exec", "-o", "text", "hello")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("fine", r.stdout)
                self.assertIn(path, r.stderr)
                self.assertIn("ignored for this run", r.stderr)
                with open(path) as f:
                    self.assertEqual(f.read(), content)  # never overwritten


if __name__ == "__main__":
    main()
