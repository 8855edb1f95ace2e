"""web_fetch against a real local HTTP server: HTML to markdown, size limit,
and the address policy — 127.0.0.1, 10.0.0.1, 169.254.169.254 and [::1] are
refused, directly and as redirect targets, and redirect chains are bounded.

The server listens on 127.0.0.1, which web_fetch refuses; the tests that
need a successful fetch set ZERO_WEB_FETCH_ALLOW_LOOPBACK=1 (loopback only:
private, link-local and metadata ranges stay refused)."""
import http.server
import json
import threading

from harness import ZeroTest, main

PAGE = b"""<!doctype html><html><head><title>Test page</title>
<style>body{color:red}</style><script>alert(1)</script></head>
<body><h1>Hello &amp; welcome</h1><p>Some <b>bold</b> text with a
<a href="/next">link</a>.</p><ul><li>one</li><li>two</li></ul>
<pre>code  block
  indented</pre></body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    paths = []

    def do_GET(self):
        Handler.paths.append(self.path)
        if self.path.startswith("http://"):  # a request to us as a proxy
            body = ("<html><body><p>proxied %s</p></body></html>" % self.path).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/page":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)
        elif self.path.startswith("/to/"):
            self.send_response(302)
            self.send_header("Location", self.path[len("/to/"):].replace("_", "/"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/big":
            body = b"x" * 100000
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/bin":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"\0\1\2\3")
        else:
            self.send_response(404)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")


class WebFetch(ZeroTest):
    def setUp(self):
        super().setUp()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        super().tearDown()

    def fetch(self, url, loopback=False, **extra):
        args = dict(url=url, **extra)
        if loopback:
            self.env["ZERO_WEB_FETCH_ALLOW_LOOPBACK"] = "1"
        else:
            self.env.pop("ZERO_WEB_FETCH_ALLOW_LOOPBACK", None)
        r = self.zero("tools", "run", "web_fetch", json.dumps(args), "--json",
                      "--skip-permissions-unsafe")
        return json.loads(r.stdout)

    def base(self):
        return "http://127.0.0.1:%d" % self.port

    def test_scoped_network_lists_decide_every_host_and_redirect(self):
        # network "scoped" (issue 19 part 5): web_fetch obeys the sandbox's
        # egress lists before it resolves a host, on every redirect too.
        self.user_config({"sandbox": {"network": "scoped",
                                      "allowedDomains": ["localhost:%d" % self.port]}})
        Handler.paths.clear()
        ok = "http://localhost:%d/page" % self.port
        res = self.fetch(ok, loopback=True)
        self.assertTrue(res["ok"], res["output"])
        self.assertEqual(Handler.paths, ["/page"])
        # an address of the same server, on no list: not dialled
        res = self.fetch(self.base() + "/page", loopback=True)
        self.assertFalse(res["ok"])
        self.assertIn("blocked a connection to 127.0.0.1", res["output"])
        self.assertIn("--allow-domain", res["output"])
        # an allowed host redirecting to one on no list: the redirect is refused
        res = self.fetch("http://localhost:%d/to/http:__127.0.0.1:%d_page" % (self.port, self.port),
                         loopback=True)
        self.assertFalse(res["ok"])
        self.assertIn("blocked a connection to 127.0.0.1", res["output"])
        self.assertEqual(Handler.paths, ["/page", "/to/http:__127.0.0.1:%d_page" % self.port])
        # the deny list wins
        self.user_config({"sandbox": {"network": "scoped",
                                      "allowedDomains": ["localhost:%d" % self.port],
                                      "deniedDomains": ["localhost"]}})
        res = self.fetch(ok, loopback=True)
        self.assertFalse(res["ok"])
        self.assertIn("on sandbox.deniedDomains", res["output"])
        self.assertEqual(len(Handler.paths), 2)

    def test_html_becomes_markdown(self):
        res = self.fetch(self.base() + "/page", loopback=True)
        self.assertTrue(res["ok"], res["output"])
        out = res["output"]
        self.assertIn("# Hello & welcome", out)
        self.assertIn("Some **bold** text with a [link](/next).", out)
        self.assertIn("- one\n- two", out)
        self.assertIn("```\ncode  block\n  indented\n```", out)
        self.assertNotIn("alert", out)
        self.assertNotIn("color:red", out)

    def test_private_addresses_are_refused(self):
        for url, what in ((self.base() + "/page", "loopback"),
                          ("http://10.0.0.1/", "private"),
                          ("http://169.254.169.254/latest/meta-data/", "metadata"),
                          ("http://[::1]:%d/page" % self.port, "loopback")):
            res = self.fetch(url)
            self.assertFalse(res["ok"], url)
            self.assertIn("refusing to fetch", res["output"], url)
            self.assertIn(what, res["output"], url)

    def test_redirects_into_private_addresses_are_refused(self):
        for target in ("http:__10.0.0.1_", "http:__169.254.169.254_latest",
                       "http:__[::1]:%d_page" % self.port):
            res = self.fetch(self.base() + "/to/" + target, loopback=True)
            self.assertFalse(res["ok"], target)
            self.assertIn("refusing to fetch", res["output"], target)
        # without the test switch even the first hop is refused
        res = self.fetch(self.base() + "/to/http:__example.com_")
        self.assertFalse(res["ok"])

    def test_redirect_limit_size_limit_and_binary(self):
        res = self.fetch(self.base() + "/loop", loopback=True)
        self.assertFalse(res["ok"])
        self.assertIn("too many redirects", res["output"])
        res = self.fetch(self.base() + "/big", loopback=True, max_bytes=1000)
        self.assertTrue(res["ok"])
        self.assertTrue(res["truncated"])
        self.assertIn("only the first 1000 bytes", res["output"])
        res = self.fetch(self.base() + "/bin", loopback=True)
        self.assertFalse(res["ok"])
        self.assertIn("not text", res["output"])
        res = self.fetch(self.base() + "/missing", loopback=True)
        self.assertFalse(res["ok"])
        self.assertIn("HTTP 404", res["output"])

    def test_http_proxy_is_used_even_where_only_it_resolves_names(self):
        """HTTP_PROXY (upper case, which libcurl alone ignores) is the proxy
        the request goes through; a name only the proxy can resolve is
        fetched through it; NO_PROXY and the address policy still apply."""
        self.env["HTTP_PROXY"] = self.base()
        res = self.fetch("http://zero-proxy-test.invalid/page")
        self.assertTrue(res["ok"], res["output"])
        self.assertIn("proxied http://zero-proxy-test.invalid/page", res["output"])
        res = self.fetch("http://10.0.0.1/")
        self.assertFalse(res["ok"])
        self.assertIn("refusing to fetch", res["output"])
        self.env["NO_PROXY"] = "localhost,.invalid"
        res = self.fetch("http://zero-proxy-test.invalid/page")
        self.assertFalse(res["ok"])
        self.assertIn("cannot resolve zero-proxy-test.invalid", res["output"])


if __name__ == "__main__":
    main()
