"""zero's own HTTP behind a corporate proxy (issue 19, part 6).

A recording "proxy" on loopback answers every request with 407 and keeps
the request lines. zero's provider client must go through it when only the
upper-case HTTP_PROXY names it (libcurl alone ignores that variable), and a
proxy's refusal must be reported as a proxy problem, never as a rejected
API key.
"""
import os
import socket
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ZeroTest  # noqa: E402


class Proxy407:
    """Answers each request with 407 Proxy Authentication Required."""

    def __init__(self):
        self.lines = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with c:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = c.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.lines.append(data.split(b"\r\n")[0].decode(errors="replace"))
                c.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                          b"Proxy-Authenticate: Basic realm=\"corp\"\r\n"
                          b"Content-Length: 0\r\nConnection: close\r\n\r\n")

    def close(self):
        self.sock.close()


class OwnTrafficBehindProxy(ZeroTest):
    def setUp(self):
        super().setUp()
        self.proxy = Proxy407()
        for k in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "NO_PROXY"):
            self.env.pop(k, None)

    def tearDown(self):
        self.proxy.close()
        super().tearDown()

    def test_upper_case_http_proxy_is_honoured_and_407_is_a_proxy_problem(self):
        m = self.serve([{"text": "should never arrive"}])
        self.env["HTTP_PROXY"] = "http://127.0.0.1:%d" % self.proxy.port
        r = self.zero("exec", "hello", timeout=60)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertTrue(self.proxy.lines, "the request did not go through HTTP_PROXY")
        self.assertIn("http://127.0.0.1:%d/v1" % m.port, self.proxy.lines[0])
        self.assertEqual(m.bodies(), [])
        self.assertIn("407", r.stderr)
        self.assertIn("proxy", r.stderr)
        self.assertNotIn("rejected the API key", r.stderr)

    def test_a_refused_tunnel_is_reported_as_the_proxy_refusing(self):
        self.serve([{"text": "unused"}])
        self.env["OPENAI_BASE_URL"] = "https://api.example.test/v1"
        self.env["HTTPS_PROXY"] = "http://127.0.0.1:%d" % self.proxy.port
        r = self.zero("exec", "hello", timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertTrue(self.proxy.lines and self.proxy.lines[0].startswith("CONNECT "),
                        self.proxy.lines)
        self.assertIn("the proxy refused the connection", r.stderr)
        self.assertIn("407", r.stderr)
        self.assertNotIn("rejected the API key", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
