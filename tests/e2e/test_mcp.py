"""MCP end to end: the real zero binary, the fake model, and REAL MCP servers
from npm (@modelcontextprotocol/server-everything over stdio, Streamable HTTP
and HTTP+SSE; @modelcontextprotocol/server-filesystem over stdio), plus
misbehaving servers for the fault cases. The model calls an MCP tool; the
result must reach the next model request."""
import base64
import json
import tempfile
import shutil
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp"))
import harness  # noqa: E402
from npm_setup import require_npm  # noqa: E402

FAKE_MCP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "fake_mcp_server.py")


class McpTest(harness.ZeroTest):
    def write_config(self, servers):
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": servers}}, f)

    def everything(self, nm):
        return {"command": "node",
                "args": [os.path.join(nm, "@modelcontextprotocol/server-everything/dist/index.js"),
                         "stdio"]}

    def tool_messages(self, body):
        return [m for m in body["messages"] if m.get("role") == "tool"]

    def run_tool(self, tool, args, extra=()):
        """One model turn calling tool, then a final answer; returns (result, events, model)."""
        model = self.serve([{"tool_calls": [{"name": tool, "arguments": args}]}, {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", *extra, "use the tool", timeout=120)
        events = self.lines(r.stdout)
        return r, events, model


class RealServers(McpTest):
    def setUp(self):
        super().setUp()
        self.nm = require_npm(self)

    def test_stdio_everything_tools_reach_the_model_and_results_come_back(self):
        self.write_config({"ev": self.everything(self.nm)})
        self.assertEqual(self.zero("mcp", "grant", "ev").returncode, 0)
        r, events, model = self.run_tool("mcp_ev_get-sum", {"a": 2, "b": 3})
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        first = model.bodies()[0]
        names = [t["function"]["name"] for t in first["tools"]]
        self.assertIn("mcp_ev_echo", names)
        self.assertIn("mcp_ev_get-sum", names)
        schema = [t for t in first["tools"] if t["function"]["name"] == "mcp_ev_get-sum"][0]
        self.assertIn("a", schema["function"]["parameters"]["properties"])
        tool_msgs = self.tool_messages(model.bodies()[1])
        self.assertIn("The sum of 2 and 3 is 5", tool_msgs[0]["content"])
        res = [e for e in events if e["type"] == "tool_result"][0]
        self.assertEqual(res["status"], "success" if res["status"] != "ok" else "ok")

    def test_stdio_echo_image_progress_and_resource(self):
        self.write_config({"ev": self.everything(self.nm)})
        self.zero("mcp", "grant", "ev")
        model = self.serve([
            {"tool_calls": [{"name": "mcp_ev_echo", "arguments": {"message": "hello mcp"}},
                            {"name": "mcp_ev_get-tiny-image", "arguments": {}},
                            {"name": "mcp_ev_trigger-long-running-operation",
                             "arguments": {"duration": 1, "steps": 3}},
                            {"name": "mcp_read_resource",
                             "arguments": {"server": "ev", "uri": "demo://resource/dynamic/text/1"}}]},
            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        outs = [m["content"] for m in self.tool_messages(model.bodies()[1])]
        self.assertIn("Echo: hello mcp", outs[0])
        self.assertIn("[image: image/png", outs[1])
        self.assertIn("Long running operation completed", outs[2])
        self.assertIn("demo://resource/dynamic/text/1", outs[3])

    def test_results_are_redacted_before_the_model_sees_them(self):
        # get-env returns the server's environment: a secret in it must not
        # reach the model, the stream or the session (issue 8: "through the
        # same redaction and output budget as built-in tools").
        secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
        cfg = self.everything(self.nm)
        cfg["env"] = {"GITHUB_TOKEN": secret}
        self.write_config({"ev": cfg})
        self.zero("mcp", "grant", "ev")
        r, events, model = self.run_tool("mcp_ev_get-env", {})
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        out = self.tool_messages(model.bodies()[1])[0]["content"]
        # The configured "env" reaches the server inside the sandbox too (the
        # sandbox scrubs secret-looking names from zero's own environment).
        self.assertIn("GITHUB_TOKEN", out)
        self.assertIn("[REDACTED", out)
        self.assertNotIn(secret, json.dumps(model.bodies()))
        self.assertNotIn(secret, r.stdout)
        for sid in self.session_ids():
            self.assertNotIn(secret, json.dumps(self.session_events(sid)))

    def test_image_result_reaches_the_model_and_survives_resume(self):
        # An MCP tool's image used to reach the model only as the text
        # "[image: image/png, N bytes]"; it now goes with the result as
        # view_image's does (a browser's screenshot tool is the typical case).
        self.write_config({"ev": self.everything(self.nm)})
        self.zero("mcp", "grant", "ev")
        model = self.serve([{"tool_calls": [{"name": "mcp_ev_get-tiny-image", "arguments": {}}]},
                            {"text": "the MCP logo"}], model="gpt-4o-mini")
        r = self.zero("exec", "-o", "json", "show me", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        second = model.bodies()[1]
        self.assertIn("[image: image/png", self.tool_messages(second)[0]["content"])
        urls = [p["image_url"]["url"] for m in second["messages"]
                if m["role"] == "user" and isinstance(m["content"], list)
                for p in m["content"] if p.get("type") == "image_url"]
        self.assertEqual(len(urls), 1)
        self.assertTrue(urls[0].startswith("data:image/png;base64,iVBORw0KGgo"), urls[0][:60])
        sid = json.loads(r.stdout)["sessionId"]
        m2 = self.serve([{"text": "still the logo"}], model="gpt-4o-mini")
        r = self.zero("exec", "--resume", sid, "and now?", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        again = [p["image_url"]["url"] for m in m2.bodies()[0]["messages"]
                 if m["role"] == "user" and isinstance(m["content"], list)
                 for p in m["content"] if p.get("type") == "image_url"]
        self.assertEqual(again, urls)

    def test_filesystem_server_over_stdio(self):
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("filesystem server says hi\n")
        self.write_config({"fs": {"command": "node", "args": [
            os.path.join(self.nm, "@modelcontextprotocol/server-filesystem/dist/index.js"),
            self.work]}})
        self.zero("mcp", "grant", "fs", "read_text_file")
        r, events, model = self.run_tool("mcp_fs_read_text_file",
                                         {"path": os.path.join(self.work, "notes.txt")})
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("filesystem server says hi", self.tool_messages(model.bodies()[1])[0]["content"])

    def start_node_server(self, transport):
        port = harness.free_port()
        env = dict(self.env, PORT=str(port))
        p = subprocess.Popen(["node", os.path.join(self.nm, "@modelcontextprotocol/server-everything/dist/index.js"),
                              transport], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stderr.close()))
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return port
            except OSError:
                time.sleep(0.1)
        self.fail("server-everything (%s) did not start" % transport)

    def test_streamable_http_everything(self):
        port = self.start_node_server("streamableHttp")
        self.write_config({"evh": {"type": "http", "url": "http://127.0.0.1:%d/mcp" % port}})
        self.zero("mcp", "grant", "evh")
        model = self.serve([
            {"tool_calls": [{"name": "mcp_evh_get-sum", "arguments": {"a": 20, "b": 22}},
                            {"name": "mcp_evh_trigger-long-running-operation",
                             "arguments": {"duration": 1, "steps": 2}},
                            {"name": "mcp_evh_get-tiny-image", "arguments": {}}]},
            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        outs = [m["content"] for m in self.tool_messages(model.bodies()[1])]
        self.assertIn("The sum of 20 and 22 is 42", outs[0])
        self.assertIn("Long running operation completed", outs[1])
        self.assertIn("[image: image/png", outs[2])

    SDK_RESUMABLE_SERVER = """
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "%(sdk)s/dist/esm/server/mcp.js";
import { StreamableHTTPServerTransport } from "%(sdk)s/dist/esm/server/streamableHttp.js";
import { InMemoryEventStore } from "%(sdk)s/dist/esm/examples/shared/inMemoryEventStore.js";
const sleep = ms => new Promise(r => setTimeout(r, ms));
const transports = {};
function makeServer() {
  const server = new McpServer({ name: "sdk-resumable", version: "1.0.0" });
  server.registerTool("polled", { description: "closes its reply stream, then answers" },
    async (extra) => {
      if (!extra.closeSSEStream) throw new Error("no closeSSEStream: no event store?");
      extra.closeSSEStream();
      await sleep(300);
      return { content: [{ type: "text", text: "answered after the reply stream was closed" }] };
    });
  server.registerTool("kick", { description: "closes the GET stream, then adds a tool" },
    async (extra) => {
      extra.closeStandaloneSSEStream?.();
      await sleep(600);
      server.registerTool("late", { description: "added after the stream was closed" },
        async () => ({ content: [{ type: "text", text: "late ran" }] }));
      await sleep(400);
      return { content: [{ type: "text", text: "kicked" }] };
    });
  return server;
}
http.createServer(async (req, res) => {
  const sid = req.headers["mcp-session-id"];
  let t = sid && transports[sid];
  if (!t) {
    t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(), eventStore: new InMemoryEventStore(),
      retryInterval: 100, onsessioninitialized: id => { transports[id] = t; } });
    await makeServer().connect(t);
  }
  await t.handleRequest(req, res);
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
"""

    def test_official_sdk_server_closing_its_streams_early(self):
        # The official SDK server with an event store: "polled" closes its
        # reply stream before the answer (the client must resume it with
        # Last-Event-ID); "kick" closes the GET stream, then announces a new
        # tool there (the client must reopen it to hear about it).
        script = os.path.join(self.tmp, "resumable.mjs")
        with open(script, "w") as f:
            f.write(self.SDK_RESUMABLE_SERVER % {"sdk": os.path.join(self.nm,
                                                                     "@modelcontextprotocol/sdk")})
        port = harness.free_port()
        p = subprocess.Popen(["node", script], env=dict(self.env, PORT=str(port)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stdout.close(), p.stderr.close()))
        if p.stdout.readline().strip() != "ready":
            self.fail("the SDK server did not start: " + p.stderr.read())
        self.env["ZERO_MCP_STREAM_RETRY_MS"] = "50"
        self.write_config({"s": {"type": "http", "url": "http://127.0.0.1:%d/mcp" % port,
                                 "timeoutMs": 20000}})
        r = self.zero("mcp", "call", "s", "polled", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("answered after the reply stream was closed", r.stdout)
        self.zero("mcp", "grant", "s")
        model = self.serve([{"tool_calls": [{"name": "mcp_s_kick", "arguments": {}}]},
                            {"tool_calls": [{"name": "mcp_s_late", "arguments": {}}]},
                            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = [[t["function"]["name"] for t in b["tools"]] for b in model.bodies()]
        self.assertNotIn("mcp_s_late", names[0])
        self.assertIn("mcp_s_late", names[1])
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertEqual([e["output"] for e in results], ["kicked", "late ran"])

    def test_legacy_sse_everything_and_mcp_call_command(self):
        port = self.start_node_server("sse")
        self.write_config({"evs": {"type": "sse", "url": "http://127.0.0.1:%d/sse" % port}})
        r = self.zero("mcp", "call", "evs", "get-sum", '{"a":1,"b":2}', timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("The sum of 1 and 2 is 3", r.stdout)
        r = self.zero("mcp", "call", "evs", "trigger-long-running-operation",
                      '{"duration":1,"steps":2}', timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("progress 2/2", r.stderr)

    def test_headless_without_grant_is_denied_with_how_to_grant(self):
        self.write_config({"ev": self.everything(self.nm)})
        r, events, model = self.run_tool("mcp_ev_echo", {"message": "x"})
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        out = self.tool_messages(model.bodies()[1])[0]["content"]
        self.assertIn("zero mcp grant ev echo", out)
        self.assertIn("--skip-permissions-unsafe", out)
        decisions = [e for e in events if e["type"] == "permission_decision"]
        self.assertEqual(decisions[0]["action"], "deny")
        # Go zero's permission fields, for an MCP tool too
        self.assertIs(decisions[0]["permissionGranted"], False)
        self.assertEqual(decisions[0]["autonomy"], "low")
        self.assertIsInstance(decisions[0]["decisionReason"], str)
        self.assertIn(decisions[0]["risk"]["level"], ("low", "medium", "high", "critical"))
        self.assertIsInstance(decisions[0]["risk"]["categories"], list)
        # --skip-permissions-unsafe allows it.
        r, events, model = self.run_tool("mcp_ev_echo", {"message": "x"}, ("--skip-permissions-unsafe",))
        self.assertIn("Echo: x", self.tool_messages(model.bodies()[1])[0]["content"])

    def test_project_servers_need_a_trusted_workspace(self):
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "config.json"), "w") as f:
            json.dump({"mcpServers": {"proj": self.everything(self.nm)}}, f)
        r = self.zero("mcp", "tools", "proj")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not trusted", r.stderr)
        self.assertEqual(self.zero("mcp", "trust").returncode, 0)
        r = self.zero("mcp", "tools", "proj", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("get-sum", r.stdout)


class Faults(McpTest):
    def fault_run(self, mode, **extra):
        self.write_config({"bad": dict({"command": sys.executable, "args": [FAKE_MCP, mode]}, **extra)})
        model = self.serve([{"text": "still here"}])
        r = self.zero("exec", "-o", "stream-json", "hi", timeout=60)
        events = self.lines(r.stdout)
        warnings = " ".join(e["message"] for e in events if e["type"] == "warning")
        return r, warnings, model

    def test_server_exiting_at_startup_shows_its_stderr_and_the_run_continues(self):
        r, warnings, _ = self.fault_run("exit")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn('MCP server "bad"', warnings)
        self.assertIn("exited with status 3", warnings)
        self.assertIn("the API token is missing", warnings)

    def test_server_that_never_answers_times_out(self):
        r, warnings, _ = self.fault_run("silent", startupTimeoutMs=700)
        self.assertEqual(r.returncode, 0)
        self.assertIn("did not answer initialize", warnings)

    def test_initialize_that_times_out_is_not_cancelled(self):
        # The spec: "The initialize request MUST NOT be cancelled by clients".
        # in the workspace: `zero mcp` starts the server in the sandbox too
        log = os.path.join(self.work, "silent.log")
        # Long enough for python to start and log the request under load (a
        # 700 ms timeout killed it before it had read anything at load 17).
        self.write_config({"bad": {"command": sys.executable, "args": [FAKE_MCP, "silent", log],
                                   "startupTimeoutMs": 6000}})
        r = self.zero("mcp", "tools", "bad", timeout=60)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("did not answer initialize", r.stderr)
        with open(log) as f:
            methods = [json.loads(l).get("method") for l in f if l.strip()]
        self.assertEqual(methods, ["initialize"])

    def test_protocol_version_falls_back_to_one_the_server_names(self):
        # Issue 8: "Protocol version negotiated (current revision, falling back
        # to older ones the server supports)"; a server may refuse initialize
        # with the spec's error listing what it supports.
        log = os.path.join(self.work, "older.log")
        self.write_config({"old": {"command": sys.executable,
                                   "args": [FAKE_MCP, "olderonly", log]}})
        r = self.zero("mcp", "tools", "old", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("protocol 2024-11-05", r.stdout)
        self.assertIn("hang", r.stdout)
        with open(log) as f:
            sent = [json.loads(l) for l in f if l.strip()]
        inits = [m["params"]["protocolVersion"] for m in sent if m.get("method") == "initialize"]
        self.assertEqual(inits, ["2025-11-25", "2024-11-05"])
        self.assertEqual(sum(m.get("method") == "notifications/initialized" for m in sent), 1)

    def test_malformed_json_is_a_clear_error(self):
        r, warnings, _ = self.fault_run("malformed")
        self.assertEqual(r.returncode, 0)
        self.assertIn("invalid message", warnings)
        self.assertIn("{this is not json", warnings)

    def test_timeout_ms_applies_to_tool_calls(self):
        # "timeoutMs" is the per-request timeout; tool calls used to wait the
        # 10-minute default whatever the config said.
        log = os.path.join(self.work, "hang.log")
        self.write_config({"h": {"command": sys.executable, "args": [FAKE_MCP, "hang", log],
                                 "timeoutMs": 800}})
        started = time.time()
        r = self.zero("mcp", "call", "h", "hang", "{}", timeout=60)
        self.assertLess(time.time() - started, 15)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn('did not answer tools/call within 800 ms; raise "timeoutMs"', r.stderr)
        with open(log) as f:
            sent = [json.loads(l) for l in f if l.strip()]
        cancel = [m for m in sent if m.get("method") == "notifications/cancelled"]
        call = [m for m in sent if m.get("method") == "tools/call"][0]
        self.assertEqual(cancel[0]["params"], {"requestId": call["id"], "reason": "timed out"})

    def test_reply_without_an_id_is_dropped_with_a_debug_line(self):
        # A "reply" with no id (to a notification) belongs to no request: the
        # session goes on (zero used to exit 3), and the debug log says so.
        self.env["ZERO_LOG"] = "debug"
        r, warnings, model = self.fault_run("orphan")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(warnings, "")
        self.assertIn("mcp_bad_hang", [t["function"]["name"] for t in model.bodies()[0]["tools"]])
        logf = os.path.join(self.home, ".local", "state", "zero", "logs", "zero.log")
        with open(logf) as f:
            self.assertIn('mcp: server "bad" sent a reply without an id; dropped', f.read())

    def test_junk_line_on_stdout_is_quoted_alone(self):
        # The message quotes the bad line only, never the bytes after it in the
        # read buffer (it used to print up to 200 bytes past the line's end).
        r, warnings, _ = self.fault_run("junk")
        self.assertEqual(r.returncode, 0)
        self.assertIn("invalid message", warnings)
        self.assertIn("Server listening on stdio", warnings)
        self.assertNotIn("protocolVersion", warnings)

    def test_oversized_message_is_refused(self):
        r, warnings, _ = self.fault_run("oversized")
        self.assertEqual(r.returncode, 0)
        self.assertIn("limit", warnings)

    def test_large_result_gets_the_builtin_budget_and_a_spill_file(self):
        self.write_config({"big": {"command": sys.executable, "args": [FAKE_MCP, "big"]}})
        self.zero("mcp", "grant", "big")
        r, events, model = self.run_tool("mcp_big_big", {})
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        out = self.tool_messages(model.bodies()[1])[0]["content"]
        self.assertLess(len(out), 100 * 1024)  # the 20k-token budget, not the whole 3 MiB
        self.assertIn("output truncated", out)
        self.assertIn("line of output", out)
        self.assertNotIn("ghp_abcdefghijklmnopqrstuvwxyz0123456789", out)
        spill = [w for w in out.split() if "zero-tool-output" in w][0].rstrip(";")
        with open(spill) as f:
            self.assertEqual(f.read().count("line of output"), 200000)
        res = [e for e in events if e["type"] == "tool_result"][0]
        self.assertTrue(res["truncated"])

    def test_resource_listing_pages_and_templates(self):
        # mcp_list_resources offered no way to ask for the next page, and
        # resource templates (how servers offer parameterised resources) were
        # never listed.
        self.write_config({"res": {"command": sys.executable, "args": [FAKE_MCP, "resources"]}})
        model = self.serve([
            {"tool_calls": [{"name": "mcp_list_resources", "arguments": {"server": "res"}}]},
            {"tool_calls": [{"name": "mcp_list_resources",
                             "arguments": {"server": "res", "cursor": "page-2"}}]},
            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        schema = [t for t in model.bodies()[0]["tools"]
                  if t["function"]["name"] == "mcp_list_resources"][0]["function"]["parameters"]
        self.assertIn("cursor", schema["properties"])
        first = json.loads(self.tool_messages(model.bodies()[1])[0]["content"])
        self.assertEqual(first["nextCursor"], "page-2")
        self.assertEqual(first["resourceTemplates"][0]["uriTemplate"], "fake://item/{id}")
        second = json.loads(self.tool_messages(model.bodies()[2])[1]["content"])
        self.assertEqual([x["uri"] for x in second["resources"]], ["fake://second"])

    def test_list_changed_after_the_answer_refreshes_the_tools(self):
        # A notification that came after the call's answer waited unread in
        # the pipe until the next call: the model never saw the new tool.
        self.write_config({"g": {"command": sys.executable, "args": [FAKE_MCP, "grows"]}})
        self.zero("mcp", "grant", "g")
        model = self.serve([{"tool_calls": [{"name": "mcp_g_grow", "arguments": {}}]},
                            {"tool_calls": [{"name": "mcp_g_grown", "arguments": {}}]},
                            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "go", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = [[t["function"]["name"] for t in b["tools"]] for b in model.bodies()]
        self.assertNotIn("mcp_g_grown", names[0])
        self.assertIn("mcp_g_grown", names[1])
        self.assertEqual(self.tool_messages(model.bodies()[2])[1]["content"], "grown ran")

    def test_tools_that_map_to_one_name_are_offered_once(self):
        # "s.x" and "s_x" both give mcp_s_x_hang: the request carried the name
        # twice, which providers refuse (the whole run failed).
        log = os.path.join(self.tmp, "h.log")
        self.write_config({"s.x": {"command": sys.executable, "args": [FAKE_MCP, "hang", log]},
                           "s_x": {"command": sys.executable, "args": [FAKE_MCP, "hang", log]}})
        model = self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "hi", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = [t["function"]["name"] for t in model.bodies()[0]["tools"]]
        self.assertEqual(names.count("mcp_s_x_hang"), 1)
        self.assertEqual(len(names), len(set(names)))

    def test_missing_command_says_so(self):
        self.write_config({"nope": {"command": "/nonexistent/mcp-server"}})
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0)
        self.assertIn("cannot run /nonexistent/mcp-server", r.stdout)

    def test_hanging_tool_call_is_cancelled_on_interrupt(self):
        # Inside the workspace: stdio servers run in the sandbox, where only the
        # workspace (and a private /tmp) is writable.
        log = os.path.join(self.work, "received.jsonl")
        self.write_config({"slow": {"command": sys.executable, "args": [FAKE_MCP, "hang", log]}})
        self.zero("mcp", "grant", "slow")
        self.serve([{"tool_calls": [{"name": "mcp_slow_hang", "arguments": {}}]}, {"text": "x"}])
        p = subprocess.Popen([harness.ZERO_BIN, "exec", "-o", "stream-json", "go"], cwd=self.work,
                             env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        seen = False
        while time.time() < deadline and not seen:
            if os.path.exists(log):
                with open(log) as f:
                    seen = any('"tools/call"' in l for l in f)
            time.sleep(0.05)
        self.assertTrue(seen, "the tool call never reached the server")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, out + err)
        with open(log) as f:
            msgs = [json.loads(l) for l in f if l.strip()]
        cancels = [m for m in msgs if m.get("method") == "notifications/cancelled"]
        call = [m for m in msgs if m.get("method") == "tools/call"][0]
        self.assertEqual(cancels[0]["params"]["requestId"], call["id"])
        self.assertEqual(self.lines(out)[-1]["type"], "run_end")


class Sandboxed(McpTest):
    def test_stdio_server_from_host_tmp_runs_confined(self):
        """A server whose script lives in the host's /tmp (e.g. a checkout
        there) still starts inside the sandbox's private /tmp, while the rest
        of the host's /tmp stays invisible and unwritable to it."""
        srv_dir = tempfile.mkdtemp(prefix="zero-mcp-srv-", dir="/tmp")
        secret_dir = tempfile.mkdtemp(prefix="zero-mcp-secret-", dir="/tmp")
        try:
            script = os.path.join(srv_dir, "server.py")
            shutil.copy(FAKE_MCP, script)
            secret = os.path.join(secret_dir, "secret.txt")
            with open(secret, "w") as f:
                f.write("host secret")
            self.write_config({"probe": {"command": sys.executable, "args": [script, "probe"],
                                         "env": {"PROBE_PATH": secret}}})
            self.zero("mcp", "grant", "probe")
            r, events, model = self.run_tool("mcp_probe_probe", {})
            self.assertEqual(r.returncode, 0, r.stderr)
            seen = json.loads(self.tool_messages(model.bodies()[1])[0]["content"])
            self.assertTrue(seen["started"])
            if sandbox_is_full():
                self.assertFalse(seen["secret_visible"])
                self.assertFalse(seen["wrote_outside"])
            self.assertFalse(os.path.exists(os.path.join(secret_dir, "planted.txt")))
        finally:
            shutil.rmtree(srv_dir, ignore_errors=True)
            shutil.rmtree(secret_dir, ignore_errors=True)

    def test_servers_started_by_mcp_commands_and_list_tools_are_confined(self):
        """`zero mcp call`, `zero mcp tools` and `zero exec --list-tools` start
        servers through the run's sandbox too (they started them bare): the
        server can neither see nor write outside the workspace."""
        srv_dir = tempfile.mkdtemp(prefix="zero-mcp-srv-", dir="/tmp")
        secret_dir = tempfile.mkdtemp(prefix="zero-mcp-secret-", dir="/tmp")
        try:
            script = os.path.join(srv_dir, "server.py")
            shutil.copy(FAKE_MCP, script)
            secret = os.path.join(secret_dir, "secret.txt")
            with open(secret, "w") as f:
                f.write("host secret")
            self.write_config({"probe": {"command": sys.executable, "args": [script, "probe"],
                                         "env": {"PROBE_PATH": secret}}})
            planted_start = os.path.join(secret_dir, "planted-at-start.txt")
            r = self.zero("mcp", "call", "probe", "probe", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            seen = json.loads(json.loads(r.stdout)["content"][0]["text"])
            self.assertTrue(seen["started"])
            self.assertFalse(seen["wrote_outside"], "mcp call: server wrote outside the workspace")
            if sandbox_is_full():
                self.assertFalse(seen["secret_visible"])
            self.assertFalse(os.path.exists(os.path.join(secret_dir, "planted.txt")))
            self.assertFalse(os.path.exists(planted_start))
            r = self.zero("mcp", "tools", "probe")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("probe", r.stdout)
            self.assertFalse(os.path.exists(planted_start), "mcp tools: server wrote outside")
            self.serve([{"text": "unused"}])
            r = self.zero("exec", "--list-tools")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("mcp_probe_probe", r.stdout)
            self.assertFalse(os.path.exists(planted_start), "--list-tools: server wrote outside")
        finally:
            shutil.rmtree(srv_dir, ignore_errors=True)
            shutil.rmtree(secret_dir, ignore_errors=True)


class Roots(McpTest):
    def test_roots_list_answers_the_workspace_and_every_add_dir(self):
        extra = os.path.join(self.tmp, "extra dir")
        os.makedirs(extra)
        self.write_config({"r": {"command": sys.executable, "args": [FAKE_MCP, "roots"]}})
        self.zero("mcp", "grant", "r")
        r, events, model = self.run_tool("mcp_r_roots", {}, extra=("--add-dir", extra))
        self.assertEqual(r.returncode, 0, r.stderr)
        got = json.loads(self.tool_messages(model.bodies()[1])[0]["content"])
        uris = [x["uri"] for x in got["roots"]]
        self.assertEqual(uris, ["file://" + os.path.realpath(self.work),
                                "file://" + os.path.realpath(extra).replace(" ", "%20")])
        # zero mcp call: the workspace alone
        r = self.zero("mcp", "call", "r", "roots", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        got = json.loads(json.loads(r.stdout)["content"][0]["text"])
        self.assertEqual([x["uri"] for x in got["roots"]], ["file://" + os.path.realpath(self.work)])


class AddCommand(McpTest):
    def config(self):
        with open(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json")) as f:
            return json.load(f)["mcp"]["servers"]

    def test_adding_a_name_again_updates_it_and_says_so(self):
        # It replaced the earlier server without a word (Go prints "Updated").
        r = self.zero("mcp", "add", "a", "--", "echo", "one")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Added", r.stdout)
        r = self.zero("mcp", "add", "a", "--", "echo", "two")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Updated", r.stdout)
        self.assertIn("replaced", r.stdout)
        self.assertEqual(self.config()["a"]["args"], ["two"])
        r = self.zero("mcp", "add", "a", "--json", "--url", "http://127.0.0.1:9/mcp")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertTrue(doc["updated"])
        self.assertEqual(doc["serverName"], "a")
        self.assertEqual(doc["server"]["url"], "http://127.0.0.1:9/mcp")

    def test_options_of_the_other_kind_of_server_are_refused(self):
        # --env with --url was accepted and silently dropped.
        for args, word in ((["--url", "http://127.0.0.1:9/mcp", "--env", "K=V"], "--env"),
                           (["--url=http://127.0.0.1:9/mcp", "--env=K=V"], "--env"),
                           (["--url", "http://127.0.0.1:9/mcp", "--cwd", "/"], "--cwd"),
                           (["--header", "X-A: b", "--", "echo"], "--header"),
                           (["--url", "http://127.0.0.1:9/mcp", "--", "echo"], "not both"),
                           (["--url"], "needs a value")):
            r = self.zero("mcp", "add", "b", *args)
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
            self.assertIn(word, r.stderr, args)
        self.assertFalse(os.path.exists(os.path.join(self.env["XDG_CONFIG_HOME"], "zero",
                                                     "config.json")))

    def test_command_without_double_dash_secrets_stay_out_of_json(self):
        r = self.zero("mcp", "add", "c", "--env", "TOKEN=s3cret", "--json", "node", "srv.js",
                      "--port", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("s3cret", r.stdout)
        c = self.config()["c"]
        self.assertEqual((c["command"], c["args"], c["env"]),
                         ("node", ["srv.js", "--port", "1"], {"TOKEN": "s3cret"}))
        r = self.zero("mcp", "add", "d", "--disabled", "--", "echo")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.config()["d"]["disabled"])

    def test_remove_enable_disable(self):
        self.assertEqual(self.zero("mcp", "add", "a", "--", "echo").returncode, 0)
        r = self.zero("mcp", "disable", "a")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.config()["a"]["disabled"])
        r = self.zero("mcp", "enable", "a")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("disabled", self.config()["a"])
        r = self.zero("mcp", "enable", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no MCP server named", r.stderr)
        r = self.zero("mcp", "remove", "a")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("a", self.config())
        # as the Go zero: removing what is not there is reported, not an error
        r = self.zero("mcp", "remove", "a")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No MCP server named", r.stdout)
        r = self.zero("mcp", "remove", "--bogus", "a")
        self.assertEqual(r.returncode, 2)


def sandbox_is_full():
    r = subprocess.run([harness.ZERO_BIN, "sandbox", "check"], capture_output=True, text=True)
    return "bwrap" in r.stdout + r.stderr and "full" in r.stdout + r.stderr


class ServeMcp(McpTest):
    """zero's own MCP server, driven by the official TypeScript SDK client."""

    def test_sdk_client_initializes_lists_and_calls(self):
        nm = require_npm(self)
        with open(os.path.join(self.work, "hello.txt"), "w") as f:
            f.write("served by zero\n")
        png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf"
                               "7gP9i18U1AAAAABJRU5ErkJggg==")
        with open(os.path.join(self.work, "pic.png"), "wb") as f:
            f.write(png)
        script = os.path.join(self.tmp, "client.mjs")
        with open(script, "w") as f:
            f.write("""
import { Client } from "%(sdk)s/dist/esm/client/index.js";
import { StdioClientTransport } from "%(sdk)s/dist/esm/client/stdio.js";
const transport = new StdioClientTransport({ command: process.argv[2], args: ["serve", "--mcp"],
                                             cwd: process.argv[3], env: process.env });
const client = new Client({ name: "sdk-test", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), protocol: transport._protocolVersion ?? null };
out.tools = (await client.listTools()).tools;
out.read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
out.missing = await client.callTool({ name: "read_file", arguments: { path: "nope.txt" } });
out.image = await client.callTool({ name: "view_image", arguments: { path: "pic.png" } });
try { await client.callTool({ name: "write_file", arguments: { path: "x", content: "y" } });
      out.write = "allowed"; } catch (e) { out.write = String(e.message); }
try { await client.callTool({ name: "no_such_tool", arguments: {} }); out.unknown = "ok"; }
catch (e) { out.unknown = String(e.message); }
await client.ping();
await client.close();
console.log(JSON.stringify(out));
""" % {"sdk": os.path.join(nm, "@modelcontextprotocol/sdk")})
        r = subprocess.run(["node", script, harness.ZERO_BIN, self.work], env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(out["server"]["name"], "zero")
        names = sorted(t["name"] for t in out["tools"])
        self.assertIn("read_file", names)
        self.assertNotIn("write_file", names)  # read-only tools by default
        for t in out["tools"]:
            self.assertEqual(t["inputSchema"]["type"], "object")
        self.assertIn("served by zero", out["read"]["content"][0]["text"])
        self.assertFalse(out["read"].get("isError", False))
        self.assertTrue(out["missing"]["isError"])
        self.assertIn("not exposed", out["write"])
        # view_image's picture comes as MCP image content the client's model can see.
        kinds = [c["type"] for c in out["image"]["content"]]
        self.assertEqual(kinds, ["text", "image"])
        self.assertEqual(out["image"]["content"][1]["mimeType"], "image/png")
        self.assertEqual(base64.b64decode(out["image"]["content"][1]["data"]), png)
        self.assertNotIn("image", out["image"].get("structuredContent", {}))
        self.assertIn("unknown tool", out["unknown"])

    def call_serve(self, args, calls):
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "raw", "version": "0"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}]
        for i, (name, arguments) in enumerate(calls):
            msgs.append({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                         "params": {"name": name, "arguments": arguments}})
        r = self.zero("serve", "--mcp", *args, input="".join(json.dumps(m) + "\n" for m in msgs))
        self.assertEqual(r.returncode, 0, r.stderr)
        out = {m["id"]: m for m in self.lines(r.stdout)}
        return [out[10 + i] for i in range(len(calls))]

    def test_serve_unsafe_tools_run_commands_in_the_sandbox(self):
        # Issue 8: --allow-unsafe-tools exposes every tool, "sandboxed". The
        # commands used to run unconfined (no spawner was set up).
        outside = os.path.join(self.tmp, "outside")
        extra = os.path.join(self.tmp, "extra")
        os.makedirs(outside)
        os.makedirs(extra)
        cmd = ("touch %s/planted.txt; touch %s/added.txt; touch inside.txt; echo ran"
               % (outside, extra))
        res = self.call_serve(["--allow-unsafe-tools", "-C", self.work, "--add-dir", extra],
                              [("exec_command", {"cmd": cmd})])
        self.assertIn("result", res[0], res)
        self.assertFalse(os.path.exists(os.path.join(outside, "planted.txt")),
                         "a command run by zero serve --mcp wrote outside its roots")
        if sandbox_is_full():
            self.assertFalse(res[0]["result"]["isError"], res)
            self.assertTrue(os.path.exists(os.path.join(self.work, "inside.txt")))
            self.assertTrue(os.path.exists(os.path.join(extra, "added.txt")))

    def test_serve_raw_protocol_errors_and_eof(self):
        msgs = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "nope/nope"},
        ]
        text = "\n".join(json.dumps(m) for m in msgs) + "\n{broken\n"
        r = self.zero("serve", "--mcp", input=text)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = self.lines(r.stdout)
        self.assertEqual(out[0]["result"]["protocolVersion"], "2025-03-26")
        self.assertEqual(out[1]["error"]["code"], -32601)
        self.assertEqual(out[2]["error"]["code"], -32700)
        self.assertIsNone(out[2]["id"])


if __name__ == "__main__":
    harness.main()
