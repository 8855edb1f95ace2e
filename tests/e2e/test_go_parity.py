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


class GoAutoMember(ZeroTest):
    """Point: `--auto member` beside low|medium|high: write tools and the
    sandboxed shell run; the network and leaving the sandbox are denied."""

    def test_member_writes_but_gets_no_network(self):
        self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "m.txt",
                                                                 "content": "x\n"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "curl https://example.com"}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {
                "cmd": "ls", "sandbox_permissions": "require_escalated",
                "justification": "needs it"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "--auto", "member", "-o", "stream-json", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.lines(r.stdout)
        dec = [e for e in evs if e["type"] == "permission_decision"]
        self.assertEqual([(e["name"], e["action"], e["code"]) for e in dec], [
            ("write_file", "allow", "allowed"),
            ("exec_command", "deny", "network"),
            ("exec_command", "deny", "escalation")])
        self.assertEqual(dec[0]["autonomy"], "member")
        self.assertTrue(os.path.exists(os.path.join(self.work, "m.txt")))
        bad = self.zero("exec", "--auto", "members", "x")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("member", bad.stderr)


class GoConfigCommand(ZeroTest):
    """Points: `zero config [get KEY|list] [--json]` with sources and secrets
    redacted; unknown keys reported by `zero config` and `zero doctor` with
    "did you mean"; doctor failing on a blank / unknown / other provider's
    model; models.json overrides."""

    def write_user_config(self, doc):
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(doc, f)
        return os.path.join(d, "config.json")

    def test_config_lists_sources_and_redacts_secrets(self):
        user = self.write_user_config({
            "activeProvider": "main", "maxTurns": 50,
            "providers": [{"name": "main", "provider_kind": "openai", "model": "gpt-5",
                           "apiKey": "sk-live-abcdefghijklmnopqrstuvwxyz0123",
                           "customHeaders": {"X-Api-Token": "tok-123456"}}]})
        os.makedirs(os.path.join(self.work, ".zero"))
        project = os.path.join(self.work, ".zero", "config.json")
        with open(project, "w") as f:
            json.dump({"maxTurns": 20}, f)
        self.env["ZERO_COMPACTION_MODEL"] = "main"
        r = self.zero("config", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("sk-live", r.stdout)
        self.assertNotIn("tok-123456", r.stdout)
        got = {s["key"]: (s["value"], s["source"]) for s in json.loads(r.stdout)["settings"]}
        self.assertEqual(got["maxTurns"], (20, project))  # the project file wins
        self.assertEqual(got["activeProvider"], ("main", user))
        self.assertEqual(got["providers.main.model"], ("gpt-5", user))
        self.assertEqual(got["providers.main.apiKey"][0], "[REDACTED]")
        self.assertEqual(got["providers.main.customHeaders.X-Api-Token"][0], "[REDACTED]")
        self.assertEqual(got["preferences.compactionModel"],
                         ("main", "environment (ZERO_COMPACTION_MODEL)"))
        for args, want in ((("config", "get", "maxTurns"), "20\n"),
                           (("config", "list"), "maxTurns = 20")):
            r = self.zero(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(want, r.stdout)
        r = self.zero("config", "get", "providers.main.model", "--json")
        self.assertEqual(json.loads(r.stdout),
                         {"key": "providers.main.model", "value": "gpt-5", "source": user})
        self.assertEqual(self.zero("config", "get", "nothing.here").returncode, 1)
        self.assertEqual(self.zero("config", "frob").returncode, 2)

    def test_config_words_and_their_usage_errors(self):
        """The words after `zero config` (pinned when they moved onto the
        subcommand table): each wrong shape is a usage error, exit 2."""
        short = "Usage: zero config [list|get KEY] [--json]  (zero config --help lists every flag)\n"
        for args, msg in ((("frob",), 'unknown config subcommand "frob"'),
                          (("get",), "get needs one KEY"),
                          (("get", "a", "b"), "get needs one KEY"),
                          (("list", "x"), 'unknown config subcommand "list"')):
            r = self.zero("config", *args)
            self.assertEqual((r.returncode, r.stdout, r.stderr),
                             (2, "", "zero config: %s\n%s" % (msg, short)), args)
        r = self.zero("config", "get", "maxTurns", "--bogus")
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith("zero config: unknown"), r.stderr)
        for args in (("list",), ()):
            r = self.zero("config", *args, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("settings", json.loads(r.stdout))
        r = self.zero("config", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("Usage: zero config"), r.stdout)

    def test_unknown_keys_are_reported_with_did_you_mean(self):
        self.write_user_config({
            "modle": "gpt-5", "maxTurn": 3,
            "providers": [{"name": "p", "provider_kind": "openai", "modle": "gpt-5",
                           "apiKeyEnv": "OPENAI_API_KEY"}],
            "preferences": {"compactionModle": "main"}, "someFutureKey": 1})
        self.env["OPENAI_API_KEY"] = "sk-test-aaaaaaaaaaaaaaaaaaaa"
        rows = [
            ('"maxTurn"', '"maxTurns"'),
            ('"providers[0].modle"', '"model"'),
            ('"preferences.compactionModle"', '"compactionModel"'),
        ]
        r = self.zero("config")
        self.assertEqual(r.returncode, 0, r.stderr)
        for key, near in rows:
            self.assertIn("unknown key %s (did you mean %s?)" % (key, near), r.stderr)
        self.assertIn('unknown key "someFutureKey" (zero does not read it)', r.stderr)
        j = json.loads(self.zero("config", "--json").stdout)
        self.assertEqual(len(j["unknownKeys"]), 5, j["unknownKeys"])
        d = self.zero("doctor", "--json")
        checks = json.loads(d.stdout)["checks"]
        warned = [c for c in checks if c["check"] == "config" and c["status"] == "warn"]
        self.assertEqual(len(warned), 5, checks)
        self.assertTrue(any("did you mean \"model\"" in str(c) for c in warned), warned)

    def test_doctor_fails_on_blank_unknown_or_foreign_model(self):
        self.env["OPENAI_API_KEY"] = "sk-test-aaaaaaaaaaaaaaaaaaaa"
        rows = [("gpt-5", 0, "ok"), ("gemini-2.5-pro", 3, "a google model"),
                ("gpt-9-ultra", 3, "not among the openai models"), (" ", 3, "blank model")]
        for model, code, text in rows:
            with self.subTest(model=model):
                self.write_user_config({"providers": [
                    {"name": "openai", "provider_kind": "openai", "model": model,
                     "apiKeyEnv": "OPENAI_API_KEY"}]})
                r = self.zero("doctor", "--json")
                self.assertEqual(r.returncode, code, r.stdout)
                row = [c for c in json.loads(r.stdout)["checks"] if c["check"] == "model"][0]
                self.assertIn(text, json.dumps(row))

    def test_models_json_describes_newer_models(self):
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "models.json"), "w") as f:
            json.dump({"gpt-7": {"provider": "openai", "contextWindow": 2000000,
                                 "maxOutputTokens": 200000, "inputPrice": 3,
                                 "outputPrice": 30}}, f)
        r = self.zero("models", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        models = {m["id"]: m for m in json.loads(r.stdout)}
        self.assertEqual(models["gpt-7"]["contextWindow"], 2000000)
        # the registry is current, newest first per vendor
        ids = [m["id"] for m in json.loads(r.stdout)]
        for newer, older in (("gpt-5.1", "gpt-5"), ("claude-opus-4-5", "claude-opus-4-1"),
                             ("gemini-3-pro-preview", "gemini-2.5-pro"),
                             ("gpt-6.2-sol", "gpt-5.1"), ("claude-opus-5-5", "claude-opus-5"),
                             ("claude-fable-5-1", "claude-opus-4-5")):
            self.assertLess(ids.index(newer), ids.index(older))
        self.assertEqual(models["claude-opus-4-5"]["inputPrice"], 5.0)
        # doctor accepts a model models.json describes
        self.env["OPENAI_API_KEY"] = "sk-test-aaaaaaaaaaaaaaaaaaaa"
        self.env["OPENAI_MODEL"] = "gpt-7"
        self.assertEqual(self.zero("doctor").returncode, 0)


class GoProvidersJson(ZeroTest):
    """Point: `providers use|remove|rename --json`; a provider defined only by
    environment variables is named as such in errors."""

    def test_use_rename_remove_answer_json(self):
        self.assertEqual(self.zero("providers", "add", "local", "--preset", "ollama").returncode, 0)
        rows = [
            (("use", "local"), 0, {"ok": True, "action": "use", "provider": "local"}),
            (("rename", "local", "loc"), 0, {"ok": True, "action": "rename", "provider": "loc"}),
            (("remove", "nope"), 2, {"ok": False, "action": "remove"}),
            (("remove", "loc"), 0, {"ok": True, "action": "remove", "provider": "loc"}),
        ]
        for args, code, want in rows:
            with self.subTest(args=args):
                r = self.zero("providers", *args, "--json")
                self.assertEqual(r.returncode, code, r.stderr)
                got = json.loads(r.stdout)
                for k, v in want.items():
                    self.assertEqual(got[k], v, got)
                if not got["ok"]:
                    self.assertEqual(got["error"]["code"], "usage_error")

    def test_environment_only_provider_is_named_as_such(self):
        self.env["OPENAI_API_KEY"] = "sk-test-aaaaaaaaaaaaaaaaaaaa"
        for op in (("remove", "openai"), ("rename", "openai", "o2")):
            with self.subTest(op=op):
                r = self.zero("providers", *op)
                self.assertEqual(r.returncode, 2)
                self.assertIn("defined only by environment variables (OPENAI_API_KEY", r.stderr)
                self.assertNotIn("no provider named", r.stderr)
        r = self.zero("providers", "use", "openai", "--json")  # a valid choice
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(json.loads(r.stdout)["ok"])


class GoSessionsRewind(ZeroTest):
    """Point: `zero sessions rewind-plan`, rewind's --sequence, --event and
    --exclude-target; an invalid --kind is an error."""

    def make_session(self):
        turns = [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt",
                                                                 "content": "one\n"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt",
                                                                 "content": "two\n"}}]},
            {"text": "done"},
        ]
        self.serve(turns)
        r = self.zero("exec", "-o", "json", "write files")
        self.assertEqual(r.returncode, 0, r.stderr)
        sid = self.session_ids()[0]
        evs = self.session_events(sid)
        # the model's call that wrote b.txt (its checkpoint follows it)
        b_call = [e for e in evs if e["type"] == "tool_call"][1]["sequence"]
        return sid, evs, b_call

    def plan_paths(self, r):
        self.assertEqual(r.returncode, 0, r.stderr)
        plan = json.loads(r.stdout)
        return sorted(os.path.basename(x["path"]) for x in plan["restore"])

    def test_rewind_plan_and_target_flags(self):
        sid, evs, b_cp = self.make_session()
        # the same target spelled four ways, each a plan that changes nothing
        for args in (("--to", str(b_cp)), ("--sequence", str(b_cp)),
                     ("--event", "%s:%d" % (sid, b_cp))):
            with self.subTest(args=args):
                r = self.zero("sessions", "rewind-plan", sid, *args, "--json")
                self.assertEqual(self.plan_paths(r), ["b.txt"])
                r = self.zero("sessions", "rewind", sid, *args, "--dry-run", "--json")
                self.assertEqual(self.plan_paths(r), ["b.txt"])
        self.assertEqual(self.session_events(sid), evs)  # nothing changed
        # --exclude-target: the target event goes too
        r = self.zero("sessions", "rewind-plan", sid, "--sequence", str(b_cp),
                      "--exclude-target", "--json")
        self.assertEqual(json.loads(r.stdout)["removedEvents"], len(evs) - b_cp + 1)
        r = self.zero("sessions", "rewind-plan", sid, "--sequence", str(b_cp), "--json")
        self.assertEqual(json.loads(r.stdout)["removedEvents"], len(evs) - b_cp)
        r = self.zero("sessions", "rewind", sid, "--sequence", str(b_cp), "--exclude-target")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "b.txt")))
        self.assertTrue(os.path.exists(os.path.join(self.work, "a.txt")))
        # two targets, or none, are usage errors
        self.assertEqual(self.zero("sessions", "rewind-plan", sid, "--to", "1",
                                   "--sequence", "1").returncode, 2)
        self.assertEqual(self.zero("sessions", "rewind-plan", sid).returncode, 2)

    def test_invalid_kind_is_an_error(self):
        rows = [(("list", "--kind", "fork"), 0, ""),
                (("list", "--kind", "spec"), 0, ""),
                (("list", "--kind", "forks"), 2, 'did you mean "fork"'),
                (("list", "--kind", "banana"), 2, "expected regular, fork, side, child or spec")]
        for args, code, text in rows:
            with self.subTest(args=args):
                r = self.zero("sessions", *args)
                self.assertEqual(r.returncode, code, r.stderr)
                self.assertIn(text, r.stderr)


# ---- a stream-json consumer written against Go zero's schema --------------------------

# Go zero's internal/streamjson Event: every field a consumer decodes, with the
# JSON type Go's decoder demands (a field of another type fails the whole line).
STR, INT, BOOL, NUM, LIST, OBJ, ANY = "str", "int", "bool", "num", "list", "obj", "any"
GO_EVENT_FIELDS = {
    "schemaVersion": INT, "type": STR, "runId": STR, "sessionId": STR, "cwd": STR,
    "provider": STR, "model": STR, "apiModel": STR, "delta": STR, "id": STR, "name": STR,
    "args": ANY, "action": STR, "permission": STR, "permissionGranted": BOOL,
    "permissionMode": STR, "autonomy": STR, "sideEffect": STR, "reason": STR,
    "decisionReason": STR, "risk": OBJ, "violation": OBJ, "grantMatched": BOOL, "grant": OBJ,
    "status": STR, "output": STR, "truncated": BOOL, "redacted": BOOL, "changedFiles": LIST,
    "display": OBJ, "checkpoint": OBJ, "meta": OBJ, "promptTokens": INT,
    "completionTokens": INT, "totalTokens": INT, "costUsd": NUM, "text": STR, "message": STR,
    "code": STR, "recoverable": BOOL, "exitCode": INT,
}
# Nested objects Go decodes into structs: their typed fields.
GO_NESTED = {
    "risk": {"level": STR, "categories": LIST, "reason": STR},
    "grant": {"toolName": STR, "scope": STR, "scopeKind": STR, "decision": STR,
              "approvedAt": STR, "reason": STR, "session": BOOL},
    "display": {"summary": STR, "kind": STR},
    "checkpoint": {"sequence": INT, "tool": STR, "files": LIST, "filesRestored": INT,
                   "filesDeleted": INT, "skipped": LIST},
}
# What Go zero's writer always sends per event type: a consumer reads these
# without checking.
GO_REQUIRED = {
    "run_start": ["runId", "cwd", "provider", "model"],
    "text": ["delta"],
    "tool_call": ["id", "name", "sideEffect"],
    "permission_request": ["id", "name", "action", "permissionGranted", "permissionMode",
                           "sideEffect", "reason", "risk"],
    "permission_decision": ["id", "name", "action", "permissionGranted", "permissionMode",
                            "sideEffect", "reason", "risk"],
    "permission": ["id", "name", "action", "permissionGranted"],
    "tool_result": ["id", "name", "status", "truncated"],
    "checkpoint": ["checkpoint"],
    "usage": ["promptTokens", "completionTokens", "totalTokens"],
    "final": [],
    "warning": ["message"],
    "error": ["code", "message", "recoverable"],
    "run_end": ["status", "exitCode"],
}
GO_ERROR_CODES = {"usage_error", "provider_error", "max_turns", "interrupted", "sandbox_error",
                  "mcp_error", "guardrail_halt", "internal_error"}


def go_type_ok(kind, v):
    if kind == STR:
        return isinstance(v, str)
    if kind == INT:
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == BOOL:
        return isinstance(v, bool)
    if kind == NUM:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == LIST:
        return isinstance(v, list)
    if kind == OBJ:
        return isinstance(v, dict)
    return True


class GoStreamJsonConsumer(ZeroTest):
    """Point: a consumer written against Go zero's documented schema v2 parses
    a run of ours: every line decodes into Go's Event, every field it reads
    is there with its type, and the error codes are Go's."""

    def consume(self, stdout):
        """Go's consumer: decode each line; unknown keys and event types are
        ignored (as encoding/json and a type switch's default do)."""
        seen = []
        for line in stdout.splitlines():
            ev = json.loads(line)
            self.assertEqual(ev["schemaVersion"], 2, ev)
            for key, v in ev.items():
                kind = GO_EVENT_FIELDS.get(key)
                if kind:
                    self.assertTrue(go_type_ok(kind, v), (key, v, ev))
                if key in GO_NESTED and isinstance(v, dict):
                    for nk, nv in v.items():
                        nkind = GO_NESTED[key].get(nk)
                        if nkind:
                            self.assertTrue(go_type_ok(nkind, nv), (key, nk, nv))
                if key == "meta":  # map[string]string
                    for mv in v.values():
                        self.assertIsInstance(mv, str, ev)
            for key in GO_REQUIRED.get(ev["type"], []):
                self.assertIn(key, ev, ev)
            if ev["type"] == "error":
                self.assertIn(ev["code"], GO_ERROR_CODES, ev)
            seen.append(ev["type"])
        return seen

    def test_a_tool_run_parses_as_go_zeros_stream(self):
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("one\n")
        self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "notes.txt", "content": "two\n", "overwrite": True}}]},
            {"tool_calls": [{"name": "update_plan", "arguments": {"plan": [
                {"content": "write notes", "status": "done"}]}}]},
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "rm -rf notes.txt"}}]},
            {"text": "done", "usage": {"prompt_tokens": 10, "completion_tokens": 2}},
        ])
        r = self.zero("exec", "-o", "stream-json", "edit notes")
        self.assertEqual(r.returncode, 0, r.stderr)
        seen = self.consume(r.stdout)
        for t in ("run_start", "tool_call", "permission_decision", "tool_result", "checkpoint",
                  "usage", "final", "run_end"):
            self.assertIn(t, seen)

    def test_max_turns_is_go_zeros_code_and_exit_4(self):
        self.serve([{"tool_calls": [{"name": "list_directory", "arguments": {}}]}] * 3)
        r = self.zero("exec", "--max-turns", "1", "-o", "stream-json", "loop")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.consume(r.stdout)
        evs = self.lines(r.stdout)
        err = [e for e in evs if e["type"] == "error"]
        self.assertEqual(err[0]["code"], "max_turns")
        self.assertEqual(evs[-1]["status"], "incomplete")
        self.assertEqual(evs[-1]["exitCode"], 4)

    def test_usage_error_code(self):
        r = self.zero("exec", "-o", "stream-json", "--max-turns", "zero", "x")
        self.assertEqual(r.returncode, 2)
        self.consume(r.stdout)
        self.assertEqual(self.lines(r.stdout)[0]["code"], "usage_error")


if __name__ == "__main__":
    main()
