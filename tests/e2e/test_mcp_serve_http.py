"""`zero serve --mcp --http`: the Streamable HTTP transport as the MCP spec
(2025-11-25) words it — sessions, status codes, SSE streams, keep-alive and
the request parser's limits — and what zero serves over it (resources,
prompts, pagination), against the real binary over raw sockets."""
import json
import os
import socket
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
import harness  # noqa: E402
import serve_client as sc  # noqa: E402


class ServeHttp(harness.ZeroTest):
    def setUp(self):
        super().setUp()
        with open(os.path.join(self.work, "hello.txt"), "w") as f:
            f.write("hello from the workspace\n")
        self.start()

    def start(self, *args):
        self.proc, _, self.port = sc.start(harness.ZERO_BIN, ["--http", "0"] + list(args),
                                           self.work, self.env)
        self.assertIsNotNone(self.port, "zero serve --http did not start")
        self.addCleanup(sc.stop, self.proc)

    def conn(self):
        c = sc.Conn(self.port)
        self.addCleanup(c.close)
        return c

    def session(self):
        c = self.conn()
        r, sid = sc.initialize(c)
        self.assertEqual(r.status, 200)
        return c, sid

    def test_initialize_opens_a_session_and_negotiates_the_revision(self):
        c = self.conn()
        r, sid = sc.initialize(c, "2025-06-18")
        self.assertEqual(r.status, 200)
        self.assertRegex(sid, r"^[0-9a-f]{32}$")
        self.assertEqual(r.json()["result"]["protocolVersion"], "2025-06-18")
        caps = r.json()["result"]["capabilities"]
        for cap in ("tools", "resources", "logging", "completions"):
            self.assertIn(cap, caps)
        r, sid2 = sc.initialize(c, "1999-01-01")
        self.assertEqual(r.json()["result"]["protocolVersion"], "2025-11-25")
        self.assertNotEqual(sid, sid2)

    def test_notifications_get_202_and_requests_need_a_live_session(self):
        c, sid = self.session()
        r = c.request("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                      {"Mcp-Session-Id": sid})
        self.assertEqual((r.status, r.body), (202, b""))
        ping = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
        self.assertEqual(c.request("POST", ping).status, 400)  # no session id
        self.assertEqual(c.request("POST", ping, {"Mcp-Session-Id": "f" * 32}).status, 404)
        r = c.request("POST", ping, {"Mcp-Session-Id": sid})
        self.assertEqual((r.status, r.json()["result"]), (200, {}))
        self.assertEqual(c.request("DELETE", None, {"Mcp-Session-Id": sid}).status, 200)
        self.assertEqual(c.request("POST", ping, {"Mcp-Session-Id": sid}).status, 404)
        self.assertEqual(c.request("DELETE", None, {"Mcp-Session-Id": sid}).status, 404)

    def test_transport_errors_have_the_spec_status_codes(self):
        c, sid = self.session()
        ping = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
        self.assertEqual(sc.rpc(c, sid, "ping", headers={"MCP-Protocol-Version": "1999-01-01"})
                         .status, 400)
        self.assertEqual(c.request("POST", ping, {"Mcp-Session-Id": sid,
                                                  "Accept": "application/json"}).status, 406)
        self.assertEqual(c.request("POST", ping, {"Mcp-Session-Id": sid,
                                                  "Content-Type": "text/plain"}).status, 415)
        r = c.request("POST", b"{not json", {"Mcp-Session-Id": sid})
        self.assertEqual((r.status, r.json()["error"]["code"]), (400, -32700))
        r = c.request("POST", [ping, ping], {"Mcp-Session-Id": sid})
        self.assertEqual((r.status, r.json()["error"]["code"]), (400, -32600))
        r = c.request("PUT", None, {"Mcp-Session-Id": sid})
        self.assertEqual(r.status, 405)
        self.assertIn("POST", r.header("allow"))
        self.assertEqual(c.request("GET", None, {"Mcp-Session-Id": sid}).status, 406)
        self.assertEqual(c.request("POST", ping, {"Mcp-Session-Id": sid}, path="/other").status,
                         404)
        # Every one of those left the connection usable (keep-alive).
        self.assertEqual(c.request("POST", ping, {"Mcp-Session-Id": sid}).status, 200)

    def test_get_opens_one_standalone_stream_with_a_priming_event(self):
        c, sid = self.session()
        c.sock.settimeout(3)
        c.send_raw(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    "Mcp-Session-Id: %s\r\n\r\n" % sid).encode())
        head = b""
        while b"\r\n\r\n" not in head or b"data:" not in head:
            head += c.sock.recv(4096)
        self.assertIn(b"200 OK", head)
        self.assertIn(b"text/event-stream", head)
        self.assertRegex(head, rb"id: \d+-0\ndata: \n\n")
        second = self.conn()
        r = second.request("GET", None, {"Mcp-Session-Id": sid, "Accept": "text/event-stream"})
        self.assertEqual(r.status, 409)
        # DELETE ends the session and with it the open stream.
        self.assertEqual(second.request("DELETE", None, {"Mcp-Session-Id": sid}).status, 200)
        rest = b""
        deadline = time.monotonic() + 5
        while not rest.endswith(b"0\r\n\r\n") and time.monotonic() < deadline:
            rest += c.sock.recv(4096)
        self.assertTrue(rest.endswith(b"0\r\n\r\n"), rest)

    def test_chunked_bodies_pipelining_and_expect_continue(self):
        c, sid = self.session()
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()
        chunked = b"5;ext=1\r\n" + body[:5] + b"\r\n" + b"%x\r\n" % (len(body) - 5) + \
            body[5:] + b"\r\n0\r\nX-Trailer: y\r\n\r\n"
        head = ("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                "Accept: %s\r\nMcp-Session-Id: %s\r\nTransfer-Encoding: chunked\r\n\r\n"
                % (sc.ACCEPT, sid)).encode()
        plain = ("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 "Accept: %s\r\nMcp-Session-Id: %s\r\nExpect: 100-continue\r\n"
                 "Content-Length: %d\r\n\r\n" % (sc.ACCEPT, sid, len(body))).encode() + body
        c.send_raw(head + chunked + plain)  # two requests in one write
        for _ in range(2):
            r = c.read_response()
            self.assertEqual((r.status, r.json()["id"]), (200, 7))

    def test_malformed_requests_are_refused_and_the_connection_closed(self):
        cases = [
            (b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked"
             b"\r\n\r\n", 400),
            (b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
             400),
            (b"GET /mcp HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n", 400),
            (b"GET /mcp HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            (b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            (b"GET /mcp HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n", 431),
            (b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413),
            (b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"fffffffff\r\n", 413),
        ]
        for raw, status in cases:
            with self.subTest(raw=raw[:60]):
                c = self.conn()
                c.send_raw(raw)
                r = c.read_response()
                self.assertEqual(r.status, status)
                self.assertEqual(r.header("connection"), "close")
                c.sock.settimeout(5)
                self.assertEqual(c.sock.recv(10), b"")  # closed by the server

    def test_workspace_files_are_resources_read_through_the_template(self):
        c, sid = self.session()
        r = sc.rpc(c, sid, "resources/list").json()["result"]
        uri = "file://" + os.path.realpath(self.work) + "/hello.txt"
        self.assertIn(uri, [x["uri"] for x in r["resources"]])
        t = sc.rpc(c, sid, "resources/templates/list").json()["result"]["resourceTemplates"][0]
        self.assertTrue(t["uriTemplate"].endswith("/{+path}"), t)
        # the URI as listed, percent-escaped, and via localhost read the same file; an
        # uppercase scheme or authority is not how the listing writes it: refused
        esc = uri.replace("hello.txt", "hell%6F.txt")
        loc = uri.replace("file://", "file://localhost", 1)
        for same in (esc, loc):
            r = sc.rpc(c, sid, "resources/read", {"uri": same}).json()
            self.assertEqual(r["result"]["contents"][0]["uri"], same, r)
        for other in (uri.replace("file://", "FILE://", 1),
                      uri.replace("file://", "file://LOCALHOST", 1)):
            self.assertIn("error", sc.rpc(c, sid, "resources/read", {"uri": other}).json())
        r = sc.rpc(c, sid, "resources/read", {"uri": uri}).json()["result"]["contents"][0]
        self.assertEqual((r["text"], r["mimeType"]), ("hello from the workspace\n", "text/plain"))
        with open(os.path.join(self.work, "blob.bin"), "wb") as f:
            f.write(b"\x00\x01\xff")
        r = sc.rpc(c, sid, "resources/read",
                   {"uri": "file://" + os.path.realpath(self.work) + "/blob.bin"}).json()
        self.assertEqual(r["result"]["contents"][0]["blob"], "AAH/")
        r = sc.rpc(c, sid, "completion/complete", {"ref": {"type": "ref/resource",
                                                          "uri": t["uriTemplate"]},
                                                  "argument": {"name": "path", "value": "hel"}})
        self.assertEqual(r.json()["result"]["completion"]["values"], ["hello.txt"])

    def test_lists_are_paginated(self):
        for i in range(130):
            with open(os.path.join(self.work, "f%03d.txt" % i), "w") as f:
                f.write("x")
        c, sid = self.session()
        first = sc.rpc(c, sid, "resources/list").json()["result"]
        self.assertEqual(len(first["resources"]), 100)
        second = sc.rpc(c, sid, "resources/list", {"cursor": first["nextCursor"]}).json()["result"]
        self.assertEqual(len(second["resources"]), 31)  # 130 + hello.txt
        self.assertNotIn("nextCursor", second)
        names = [x["name"] for x in first["resources"] + second["resources"]]
        self.assertEqual(len(set(names)), 131)
        r = sc.rpc(c, sid, "tools/list", {"cursor": "not-ours"}).json()
        self.assertEqual(r["error"]["code"], -32602)

    def test_custom_commands_are_prompts(self):
        cmds = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "commands")
        os.makedirs(cmds)
        with open(os.path.join(cmds, "explain.md"), "w") as f:
            f.write("---\ndescription: Explain a file\n---\nPlease explain $ARGUMENTS now.\n")
        sc.stop(self.proc)
        self.start()
        c, sid = self.session()
        prompts = sc.rpc(c, sid, "prompts/list").json()["result"]["prompts"]
        self.assertEqual([(p["name"], p["description"]) for p in prompts],
                         [("explain", "Explain a file")])
        r = sc.rpc(c, sid, "prompts/get", {"name": "explain",
                                           "arguments": {"arguments": "main.c"}}).json()
        self.assertEqual(r["result"]["messages"][0]["content"]["text"].strip(),
                         "Please explain main.c now.")

    def test_logging_level_is_validated(self):
        c, sid = self.session()
        self.assertEqual(sc.rpc(c, sid, "logging/setLevel", {"level": "warning"}).json()["result"],
                         {})
        r = sc.rpc(c, sid, "logging/setLevel", {"level": "loud"}).json()
        self.assertEqual(r["error"]["code"], -32602)

    def test_sigterm_stops_the_server_with_open_connections(self):
        c, sid = self.session()
        c.send_raw(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    "Mcp-Session-Id: %s\r\n\r\n" % sid).encode())
        time.sleep(0.3)
        self.proc.terminate()
        self.proc.wait(10)
        self.assertEqual(self.proc.returncode, 0)


class ServeHttpUsage(harness.ZeroTest):
    def test_bad_listen_values_and_stray_flags_are_usage_errors(self):
        for args in (["--http", "notaport"], ["--http", "::1:80"], ["--http", "99999"],
                     ["--bind", "127.0.0.1"], ["--token-file", "/nonexistent"]):
            with self.subTest(args=args):
                r = self.zero("serve", "--mcp", *args, timeout=30)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("zero serve:", r.stderr)

    def test_help_names_the_http_flags(self):
        r = self.zero("serve", "--help")
        for flag in ("--http", "--bind", "--token-file", "--allow-origin"):
            self.assertIn(flag, r.stdout)


if __name__ == "__main__":
    harness.main()
