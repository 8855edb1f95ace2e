"""Extensions through the real binary and the fake model server (issue 16):
hooks (veto, afterTool formatter, hang, records), skills (listed, loaded by
the tool), custom slash commands (zero exec "/name args"), plugins (a tool
called by the model, a tampered executable refused), workspace trust and the
CLI (zero hooks|skills|commands|plugins|backends)."""
import json
import os
import stat
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import ZeroTest  # noqa: E402


def tool_messages(body):
    return [x for x in body["messages"] if x["role"] == "tool"]


class ExtCase(ZeroTest):
    def config_dir(self):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        return d

    def write(self, path, text, mode=None):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        if mode:
            os.chmod(path, mode)

    def user_hooks(self, hooks):
        self.write(os.path.join(self.config_dir(), "hooks.json"),
                   json.dumps({"enabled": True, "hooks": hooks}))

    def script(self, name, body):
        """An executable shell script in the workspace."""
        path = os.path.join(self.work, name)
        self.write(path, "#!/bin/sh\n" + body, 0o755)
        return path


class HookTests(ExtCase):
    def test_before_tool_hook_vetoes_a_write_and_the_model_sees_the_reason(self):
        veto = self.script("veto.sh", "cat > /dev/null\n"
                           "echo '{\"decision\":\"block\",\"reason\":\"no writes on Fridays\"}'\n")
        self.user_hooks([{"id": "guard", "event": "beforeTool", "command": veto,
                          "args": [], "matcher": "write_file"}])
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt",
                                                                  "content": "hi"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "write it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "x.txt")))
        self.assertIn("no writes on Fridays", tool_messages(m.bodies()[1])[-1]["content"])
        events = self.lines(r.stdout)
        hooks = [e for e in events if e["type"] == "hook"]
        self.assertEqual(len(hooks), 1, events)
        self.assertEqual(hooks[0]["hookId"], "guard")
        self.assertEqual(hooks[0]["decision"], "block")
        self.assertEqual(hooks[0]["event"], "beforeTool")
        sid = self.session_ids()[0]
        recs = [e for e in self.session_events(sid) if e.get("type") == "hook"]
        self.assertEqual(len(recs), 1)

    def test_claude_code_shape_and_exit_2_block(self):
        veto = self.script("veto2.sh", "echo 'denied by policy' >&2\nexit 2\n")
        self.write(os.path.join(self.config_dir(), "hooks.json"), json.dumps(
            {"hooks": {"PreToolUse": [{"matcher": "write_file|edit_file",
                                       "hooks": [{"type": "command", "command": veto}]}]}}))
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "y.txt",
                                                                  "content": "hi"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "write it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "y.txt")))
        self.assertIn("denied by policy", tool_messages(m.bodies()[1])[-1]["content"])

    def test_after_tool_formatter_hook_edits_the_file(self):
        fmt = self.script("fmt.sh", "cat > /dev/null\ntr a-z A-Z < f.txt > f.tmp && mv f.tmp f.txt\n")
        self.user_hooks([{"id": "fmt", "event": "afterTool", "command": fmt, "args": [],
                          "matcher": "write_file"}])
        self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "f.txt",
                                                                  "content": "hello\n"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "write it")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.work, "f.txt")) as f:
            self.assertEqual(f.read(), "HELLO\n")

    def test_hanging_hook_is_killed_and_fails_closed(self):
        hang = self.script("hang.sh", "sleep 60\n")
        self.user_hooks([{"id": "slow", "event": "beforeTool", "command": hang, "args": [],
                          "timeoutMs": 500}])
        m = self.serve([
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "z.txt",
                                                                  "content": "hi"}}]},
            {"text": "ok"},
        ])
        t0 = time.monotonic()
        r = self.zero("exec", "-o", "stream-json", "write it")
        self.assertLess(time.monotonic() - t0, 30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "z.txt")))
        self.assertIn("timed out", tool_messages(m.bodies()[1])[-1]["content"])
        hooks = [e for e in self.lines(r.stdout) if e["type"] == "hook"]
        self.assertEqual(hooks[0]["decision"], "failed_closed")
        self.assertTrue(hooks[0]["timedOut"])

    def test_user_prompt_submit_adds_context_and_stop_is_bounded(self):
        ctx = self.script("ctx.sh", "cat > /dev/null\n"
                          "echo '{\"additionalContext\":\"ticket ABC-42\"}'\n")
        more = self.script("more.sh", "cat > /dev/null\n"
                           "echo '{\"decision\":\"block\",\"reason\":\"keep going\"}'\n")
        self.user_hooks([{"id": "ctx", "event": "UserPromptSubmit", "command": ctx, "args": []},
                         {"id": "more", "event": "stop", "command": more, "args": []}])
        m = self.serve([{"text": "a"}, {"text": "b"}, {"text": "c"}, {"text": "d"},
                        {"text": "e"}])
        r = self.zero("exec", "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        self.assertIn("ticket ABC-42", json.dumps(bodies[0]["messages"]))
        self.assertEqual(len(bodies), 4)  # the answer, then three continuations at most
        self.assertIn("keep going", json.dumps(bodies[1]["messages"]))

    def test_unknown_event_and_malformed_file_are_reported_not_fatal(self):
        self.write(os.path.join(self.config_dir(), "hooks.json"), json.dumps(
            {"hooks": [{"id": "bad", "event": "beforeLunch", "command": "true"},
                       {"id": "good", "event": "afterTool", "command": "true"}]}))
        r = self.zero("hooks", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual([h["id"] for h in out["hooks"]], ["good"])
        self.assertIn("beforeLunch", out["problems"][0])
        self.assertIn("hooks.json", out["problems"][0])
        self.write(os.path.join(self.config_dir(), "hooks.json"), "{not json")
        r = self.zero("hooks", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("hooks.json", json.loads(r.stdout)["problems"][0])

    def test_hooks_test_runs_the_matching_hooks(self):
        echo = self.script("echo.sh", "cat\n")
        self.user_hooks([{"id": "e", "event": "beforeTool", "command": echo, "args": []}])
        payload = os.path.join(self.tmp, "p.json")
        self.write(payload, json.dumps({"toolName": "exec_command", "toolInput": {"cmd": "ls"}}))
        r = self.zero("hooks", "test", "PreToolUse", "--payload", payload, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(out["runs"][0]["hookId"], "e")
        self.assertEqual(out["runs"][0]["answer"]["toolName"], "exec_command")


class TrustTests(ExtCase):
    def test_untrusted_workspace_hooks_do_not_run_until_trusted(self):
        marker = os.path.join(self.work, "ran.txt")
        self.write(os.path.join(self.work, ".zero", "hooks.json"), json.dumps(
            {"hooks": [{"id": "m", "event": "sessionStart", "command": "/bin/sh",
                        "args": ["-c", "cat > /dev/null; echo ran > ran.txt"]}]}))
        self.serve([{"text": "ok"}, {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(marker))
        warns = [e for e in self.lines(r.stdout) if e.get("code") == "workspace_untrusted"]
        self.assertEqual(len(warns), 1)
        self.assertIn(".zero/hooks.json", warns[0]["message"])
        self.assertIn("--trust-workspace", warns[0]["message"])
        r = self.zero("exec", "--trust-workspace", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(marker))


class SkillCommandTests(ExtCase):
    def test_skill_listed_loaded_by_the_tool_and_body_reaches_the_request(self):
        self.write(os.path.join(self.work, ".zero", "skills", "deploy", "SKILL.md"),
                   "---\nname: deploy\ndescription: Ship the service to staging\n---\n"
                   "Run make deploy-staging, then check the health page.\n")
        self.write(os.path.join(self.work, ".agents", "skills", "broken", "SKILL.md"),
                   "---\nname: [unclosed\n---\nbody\n")
        m = self.serve([
            {"tool_calls": [{"name": "skill", "arguments": {"name": "deploy"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "deploy please")
        self.assertEqual(r.returncode, 0, r.stderr)
        bodies = m.bodies()
        system = bodies[0]["messages"][0]["content"]
        self.assertIn("deploy: Ship the service to staging", system)
        self.assertNotIn("make deploy-staging", system)
        self.assertIn("skill", [t["function"]["name"] for t in bodies[0]["tools"]])
        self.assertIn("make deploy-staging", tool_messages(bodies[1])[-1]["content"])
        r = self.zero("skills", "list", "--json")
        out = json.loads(r.stdout)
        self.assertEqual([s["name"] for s in out["skills"]], ["deploy"])
        self.assertIn("broken/SKILL.md", out["problems"][0])
        self.assertIn("line", out["problems"][0])

    def test_exec_runs_a_custom_command_with_arguments(self):
        self.write(os.path.join(self.config_dir(), "commands", "git", "pr.md"),
                   "---\ndescription: Open a PR\nargument-hint: BRANCH TITLE\n---\n"
                   "Open a pull request from $1 titled \"$2\" (all: $ARGUMENTS).\n")
        m = self.serve([{"text": "ok"}])
        r = self.zero("exec", "/git:pr feature-x Hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        user = m.bodies()[0]["messages"][-1]["content"]
        self.assertIn('Open a pull request from feature-x titled "Hello" '
                      '(all: feature-x Hello).', json.dumps(user) if not isinstance(user, str)
                      else user)
        r = self.zero("backends", "--json")
        self.assertEqual(json.loads(r.stdout)["commands"][0]["name"], "git:pr")

    def test_a_command_never_shadows_a_built_in(self):
        self.write(os.path.join(self.config_dir(), "commands", "help.md"), "mine\n")
        r = self.zero("backends", "--json")
        out = json.loads(r.stdout)
        self.assertEqual(out["commands"], [])
        self.assertIn("built-in", out["problems"][0])

    def test_untrusted_workspace_command_is_refused_with_the_fix(self):
        self.write(os.path.join(self.work, ".zero", "commands", "ship.md"), "Ship it\n")
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "/ship now")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--trust-workspace", r.stderr)


class PluginTests(ExtCase):
    def make_plugin(self):
        d = os.path.join(self.config_dir(), "plugins", "shout")
        self.write(os.path.join(d, "upper.sh"), "#!/bin/sh\ntr a-z A-Z\n", 0o755)
        self.write(os.path.join(d, "plugin.json"), json.dumps({
            "schemaVersion": 1, "id": "shout", "name": "Shout", "version": "1.0.0",
            "tools": [{"name": "upper", "description": "upper-cases its input",
                       "inputSchema": {"type": "object",
                                       "properties": {"text": {"type": "string"}}},
                       "command": "./upper.sh", "args": [], "timeoutMs": 5000}]}))
        return d

    def test_plugin_tool_called_by_the_model_returns_its_result(self):
        self.make_plugin()
        r = self.zero("plugins", "enable", "shout")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = self.serve([
            {"tool_calls": [{"name": "plugin_shout_upper", "arguments": {"text": "quiet"}}]},
            {"text": "done"},
        ])
        r = self.zero("exec", "shout")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('{"TEXT":"QUIET"}', tool_messages(m.bodies()[1])[-1]["content"])

    def test_disabled_plugin_contributes_nothing(self):
        self.make_plugin()
        m = self.serve([{"text": "done"}])
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = [t["function"]["name"] for t in m.bodies()[0].get("tools", [])]
        self.assertNotIn("plugin_shout_upper", names)

    def test_unknown_schema_version_is_reported(self):
        d = os.path.join(self.config_dir(), "plugins", "future")
        self.write(os.path.join(d, "plugin.json"), json.dumps({"schemaVersion": 9, "id": "f"}))
        r = self.zero("plugins", "list", "--json")
        out = json.loads(r.stdout)
        self.assertEqual(out["plugins"], [])
        self.assertIn("schemaVersion", out["problems"][0])


class PluginInstallTests(ExtCase):
    def source(self, name="src"):
        d = os.path.join(self.tmp, name)
        self.write(os.path.join(d, "upper.sh"), "#!/bin/sh\ntr a-z A-Z\n", 0o755)
        self.write(os.path.join(d, "plugin.json"), json.dumps({
            "schemaVersion": 1, "id": "shout", "version": "2.0.0",
            "tools": [{"name": "upper", "description": "upper-cases", "command": "./upper.sh"}]}))
        return d

    def installed(self):
        return os.path.join(self.config_dir(), "plugins", "shout")

    def leftovers(self):
        root = os.path.join(self.config_dir(), "plugins")
        return [n for n in os.listdir(root) if n.startswith(".install")] \
            if os.path.isdir(root) else []

    def test_install_from_a_folder_then_enable_and_use_then_remove(self):
        r = self.zero("plugins", "install", self.source())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("zero plugins enable shout", r.stdout)
        self.assertTrue(os.access(os.path.join(self.installed(), "upper.sh"), os.X_OK))
        out = json.loads(self.zero("plugins", "list", "--json").stdout)
        self.assertEqual([(p["id"], p["enabled"]) for p in out["plugins"]], [("shout", False)])
        self.assertEqual(self.zero("plugins", "enable", "shout").returncode, 0)
        m = self.serve([{"tool_calls": [{"name": "plugin_shout_upper",
                                         "arguments": {"text": "hi"}}]}, {"text": "done"}])
        r = self.zero("exec", "go")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('{"TEXT":"HI"}', tool_messages(m.bodies()[1])[-1]["content"])
        # installing it again is refused; removing it leaves nothing
        r = self.zero("plugins", "install", self.source("src2"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("already installed", r.stderr)
        r = self.zero("plugins", "remove", "shout")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(self.installed()))
        with open(os.path.join(self.config_dir(), "plugins.json")) as f:
            self.assertNotIn("shout", f.read())
        self.assertEqual(self.leftovers(), [])

    def test_install_from_a_git_url(self):
        src = self.source()
        env = dict(self.env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@x")
        import subprocess
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "p"]):
            subprocess.run(cmd, cwd=src, env=env, check=True)
        r = self.zero("plugins", "install", "file://" + src)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.installed(), "plugin.json")))
        r = self.zero("plugins", "install", "file://" + self.tmp + "/nothing-here.git")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("git clone", r.stderr)
        self.assertEqual(self.leftovers(), [])

    def test_bad_sources_are_refused_and_leave_nothing(self):
        src = self.source()
        os.symlink("/etc/passwd", os.path.join(src, "passwd"))
        r = self.zero("plugins", "install", src)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("symbolic link", r.stderr)
        os.unlink(os.path.join(src, "passwd"))
        os.unlink(os.path.join(src, "plugin.json"))
        r = self.zero("plugins", "install", src)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("holds no plugin", r.stderr)
        self.write(os.path.join(src, "plugin.json"),
                   json.dumps({"schemaVersion": 1, "id": "../escape"}))
        r = self.zero("plugins", "install", src)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot name a folder", r.stderr)
        r = self.zero("plugins", "install", os.path.join(self.tmp, "absent"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(self.leftovers(), [])
        self.assertFalse(os.path.exists(os.path.join(self.config_dir(), "escape")))

    def test_a_workspace_plugin_is_not_removed(self):
        d = os.path.join(self.work, ".zero", "plugins", "ws")
        self.write(os.path.join(d, "plugin.json"), json.dumps({"schemaVersion": 1, "id": "ws"}))
        r = self.zero("plugins", "remove", "ws", "--trust-workspace")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("did not install", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(d, "plugin.json")))

    def test_claude_code_plugin_layout(self):
        src = os.path.join(self.tmp, "cc")
        self.write(os.path.join(src, ".claude-plugin", "plugin.json"),
                   json.dumps({"name": "cc", "version": "0.3.0", "description": "d"}))
        self.write(os.path.join(src, "commands", "hello.md"),
                   "---\ndescription: says hello\n---\nSay hello to $ARGUMENTS\n")
        self.write(os.path.join(src, "skills", "greet", "SKILL.md"),
                   "---\nname: greet\ndescription: greets people\n---\nWave.\n")
        self.write(os.path.join(src, "guard.sh"), "#!/bin/sh\ncat >/dev/null\n"
                   "echo 'no writes from cc' >&2\nexit 2\n", 0o755)
        self.write(os.path.join(src, "hooks", "hooks.json"), json.dumps({"hooks": {
            "PreToolUse": [{"matcher": "write_file", "hooks": [
                {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}]}]}}))
        r = self.zero("plugins", "install", src)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.zero("plugins", "enable", "cc").returncode, 0)
        out = json.loads(self.zero("backends", "--json").stdout)
        self.assertEqual(out["problems"], [])
        self.assertIn("greet", [x["name"] for x in out["skills"]])
        self.assertIn("hello", [x["name"] for x in out["commands"]])
        hook = out["hooks"][0]
        self.assertEqual(hook["event"], "beforeTool")
        self.assertIn(os.path.join(self.config_dir(), "plugins", "cc", "guard.sh"),
                      json.dumps(hook["command"]))
        m = self.serve([{"tool_calls": [{"name": "write_file", "arguments": {
            "path": "w.txt", "content": "x"}}]}, {"text": "done"}])
        r = self.zero("exec", "/hello world")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Say hello to world", json.dumps(m.bodies()[0]["messages"]))
        self.assertFalse(os.path.exists(os.path.join(self.work, "w.txt")))
        self.assertIn("no writes from cc", tool_messages(m.bodies()[1])[-1]["content"])


MINI_MCP = r"""
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m, r = msg.get("method"), None
    if m == "initialize":
        r = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "mini", "version": "1"}}
    elif m == "tools/list":
        r = {"tools": [{"name": "ping", "description": "answers pong",
                        "inputSchema": {"type": "object", "properties": {}}}]}
    elif m == "tools/call":
        r = {"content": [{"type": "text", "text": "pong from the plugin's server"}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": r}) + "\n")
    sys.stdout.flush()
"""


class PluginMcpTests(ExtCase):
    def test_an_enabled_plugins_mcp_server_starts_and_its_tool_answers(self):
        d = os.path.join(self.config_dir(), "plugins", "mp")
        self.write(os.path.join(d, "server.py"), MINI_MCP)
        self.write(os.path.join(d, "plugin.json"), json.dumps({
            "schemaVersion": 1, "id": "mp",
            "mcpServers": {"mini": {"command": "/usr/bin/python3", "args": ["server.py"]}}}))
        m = self.serve([{"text": "done"}])
        self.zero("exec", "hi")  # disabled: no server
        self.assertFalse([t for t in m.bodies()[0].get("tools", [])
                          if t["function"]["name"].endswith("_ping")])
        self.assertEqual(self.zero("plugins", "enable", "mp").returncode, 0)
        m = self.serve([{"text": "probe"}])
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = [t["function"]["name"] for t in m.bodies()[0].get("tools", [])]
        tool = [n for n in names if n.endswith("ping")]
        self.assertEqual(len(tool), 1, names)
        self.assertIn("mp_mini", tool[0])
        m = self.serve([{"tool_calls": [{"name": tool[0], "arguments": {}}]}, {"text": "done"}])
        r = self.zero("exec", "--skip-permissions-unsafe", "ping it")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pong from the plugin's server",
                      tool_messages(m.bodies()[1])[-1]["content"])

    def test_mcp_list_shows_an_enabled_plugins_server_marked_as_the_plugins(self):
        d = os.path.join(self.config_dir(), "plugins", "mp")
        self.write(os.path.join(d, "server.py"), MINI_MCP)
        self.write(os.path.join(d, "plugin.json"), json.dumps({
            "schemaVersion": 1, "id": "mp",
            "mcpServers": {"mini": {"command": "/usr/bin/python3", "args": ["server.py"]}}}))
        r = self.zero("mcp", "list", "--json")
        self.assertEqual(json.loads(r.stdout), [])  # disabled: contributes nothing
        self.assertEqual(self.zero("plugins", "enable", "mp").returncode, 0)
        r = self.zero("mcp", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        servers = json.loads(r.stdout)
        self.assertEqual([s["name"] for s in servers], ["mp_mini"])
        self.assertTrue(servers[0]["plugin"])
        self.assertEqual(servers[0]["origin"], os.path.join(d, "plugin.json"))
        self.assertEqual(servers[0]["command"], ["/usr/bin/python3", "server.py"])
        r = self.zero("mcp", "list")
        self.assertIn("mp_mini [stdio] /usr/bin/python3 server.py  (plugin: %s)"
                      % os.path.join(d, "plugin.json"), r.stdout)


class BackendsTests(ExtCase):
    def test_backends_doctor_flags_an_mcp_server_without_url(self):
        self.write(os.path.join(self.config_dir(), "config.json"),
                   json.dumps({"mcpServers": {"web": {"type": "http"}}}))
        r = self.zero("backends", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertIn("mcpServers", out)
        r = self.zero("backends", "doctor")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # zero doctor says so too (it used to say all was well)
        self.serve([{"text": "unused"}])
        r = self.zero("doctor", "--json")
        row = [c for c in json.loads(r.stdout)["checks"] if c["check"] == "backends"][0]
        self.assertEqual(row["status"], "fail", row)
        self.assertIn("needs \"url\"", row["detail"])
        self.assertNotEqual(r.returncode, 0)

    def test_doctor_counts_the_extensions_and_warns_on_a_problem(self):
        self.user_hook_file = os.path.join(self.config_dir(), "hooks.json")
        self.write(self.user_hook_file, json.dumps(
            {"hooks": [{"id": "a", "event": "afterTool", "command": "true"},
                       {"id": "b", "event": "beforeLunch", "command": "true"}]}))
        self.write(os.path.join(self.config_dir(), "skills", "s1", "SKILL.md"),
                   "---\nname: s1\ndescription: one\n---\nbody\n")
        self.write(os.path.join(self.config_dir(), "commands", "c1.md"), "do it\n")
        self.serve([{"text": "unused"}])
        r = self.zero("doctor", "--json")
        row = [c for c in json.loads(r.stdout)["checks"] if c["check"] == "backends"][0]
        self.assertEqual(row["status"], "warn", row)
        self.assertIn("0 MCP servers, 1 hooks, 1 skills, 1 commands, 0 plugins", row["detail"])
        self.assertIn("beforeLunch", row["detail"])
        self.assertIn("zero backends doctor", row["next"])
        os.unlink(self.user_hook_file)
        r = self.zero("doctor")
        self.assertRegex(r.stdout, r"ok +backends +0 MCP servers, 0 hooks, 1 skills")


class SubcommandWordTests(ExtCase):
    """The words after hooks / skills / plugins / backends: the default, help,
    an unknown one (named with the command's choices, exit 2) and the usage
    errors of a subcommand, pinned before they moved onto one table."""

    def test_no_word_lists(self):
        for cmd, empty in (("hooks", "no hooks"), ("skills", "no skills"),
                           ("plugins", "no plugins")):
            r = self.zero(cmd)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, empty + "\n")
        r = self.zero("backends")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("mcpServers: 0", r.stdout)

    def test_unknown_word_names_the_choices(self):
        for cmd, choices in (("hooks", "list, test"), ("skills", "list"),
                             ("plugins", "list, enable, disable, install, remove"),
                             ("backends", "doctor")):
            r = self.zero(cmd, "frob")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr, "zero %s: unknown subcommand frob (%s)\n"
                             % (cmd, choices))
            self.assertEqual(r.stdout, "")

    def test_help_anywhere(self):
        for args in (("hooks", "--help"), ("plugins", "enable", "-h"), ("backends", "--help")):
            r = self.zero(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith("Usage: zero hooks list|test EVENT"), r.stdout)

    def test_subcommand_usage_errors(self):
        r = self.zero("plugins", "install")
        self.assertEqual((r.returncode, r.stderr),
                         (2, "zero plugins install: name a folder or a git URL\n"))
        r = self.zero("plugins", "enable", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn('zero plugins: no plugin "nope"', r.stderr)
        r = self.zero("hooks", "test")
        self.assertEqual((r.returncode, r.stderr),
                         (2, "zero hooks test: name an event (e.g. beforeTool); unknown: (none)\n"))
        r = self.zero("skills", "a", "b", "c", "d", "e")
        self.assertEqual((r.returncode, r.stderr), (2, "zero skills: too many arguments\n"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
