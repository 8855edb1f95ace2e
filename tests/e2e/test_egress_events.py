"""The egress proxy's decisions in the run's events (issue 19, part 2):
`network_decision` and `network_request` in stream-json and the session.

The model asks for one command that fetches from an allowed host and from
a denied one (real curl in the sandbox, a real HTTP server on loopback
reached by names of a test-only resolver file, ZERO_EGRESS_HOSTS). The
proxy decides on its own threads; the events must still come out on the
run's stream, in order: after the call's permission_decision, before its
tool_result, carrying the call's id.
"""
import http.server
import json
import os
import shutil
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ZeroTest  # noqa: E402


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        self.paths = []

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(h):
                self.paths.append(h.path)
                body = b"hello from the allowed host\n"
                h.send_response(200)
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                h.wfile.write(body)

            def log_message(h, *a):
                pass

        super().__init__(("127.0.0.1", 0), H)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self):
        self.shutdown()
        self.server_close()


@unittest.skipUnless(shutil.which("bwrap") and shutil.which("curl"), "needs bubblewrap and curl")
class NetworkEvents(ZeroTest):
    def setUp(self):
        super().setUp()
        self.srv = Server()
        hosts = os.path.join(self.tmp, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 good.test denied.test\n")
        self.env["ZERO_EGRESS_HOSTS"] = hosts
        self.user_config({"sandbox": {
            "network": "scoped",
            "allowedDomains": ["good.test:%d" % self.srv.port, "127.0.0.1"],
            "deniedDomains": ["denied.test"]}})

    def tearDown(self):
        self.srv.stop()
        super().tearDown()

    def test_allowed_and_denied_connections_are_events_of_their_call(self):
        cmd = ("curl -sS -m 20 http://good.test:%d/ok; "
               "curl -sS -m 20 -p http://denied.test:%d/no; echo rc=$?") % (self.srv.port,
                                                                         self.srv.port)
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {"cmd": cmd}}]},
                    {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "fetch", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        self.assertEqual(self.srv.paths, ["/ok"])  # the denied host was never reached
        call = [e for e in evs if e["type"] == "tool_call"][0]
        types = [e["type"] for e in evs]
        net = [e for e in evs if e["type"] in ("network_decision", "network_request")]

        allow = [e for e in net if e["type"] == "network_decision" and e["host"] == "good.test"]
        self.assertEqual(len(allow), 1, net)
        self.assertEqual(allow[0]["action"], "allow")
        self.assertEqual(allow[0]["port"], self.srv.port)
        self.assertEqual(allow[0]["protocol"], "http")
        self.assertEqual(allow[0]["id"], call["id"])

        done = [e for e in net if e["type"] == "network_request"]
        self.assertEqual(len(done), 1, net)
        self.assertEqual(done[0]["host"], "good.test")
        self.assertEqual(done[0]["status"], "ok")
        self.assertEqual(done[0]["id"], call["id"])
        self.assertGreater(done[0]["bytesSent"], 0)
        self.assertGreater(done[0]["bytesReceived"], len("hello from the allowed host"))

        deny = [e for e in net if e["type"] == "network_decision" and e["host"] == "denied.test"]
        self.assertEqual(len(deny), 1, net)
        self.assertEqual(deny[0]["action"], "deny")
        self.assertEqual(deny[0]["protocol"], "connect")
        self.assertIn("denied", deny[0]["reason"])
        self.assertEqual(deny[0]["id"], call["id"])

        # in order, inside the call: after its decision, before its result
        first = types.index("permission_decision")
        result = types.index("tool_result")
        for e in net:
            self.assertTrue(first < evs.index(e) < result, types)

        # and recorded in the session with the same fields
        sid = [e for e in evs if e["type"] == "run_start"][0]["sessionId"]
        rec = [e for e in self.session_events(sid)
               if e.get("type") in ("network_decision", "network_request")]
        self.assertEqual(len(rec), 3, rec)
        hosts = sorted(json.dumps(e.get("payload", e), sort_keys=True) for e in rec)
        self.assertTrue(any("denied.test" in h for h in hosts), hosts)

    def test_no_events_without_scoped_network(self):
        self.user_config({"sandbox": {"network": "deny"}})
        self.serve([{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "curl -sS -m 5 http://127.0.0.1:%d/x; true" % self.srv.port}}]},
                    {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "fetch", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        types = [e["type"] for e in self.lines(r.stdout)]
        self.assertNotIn("network_decision", types)
        self.assertNotIn("network_request", types)
        self.assertEqual(self.srv.paths, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
