"""network.caBundle (issue 19, part 6): zero's own HTTPS trusts the CA
certificates the user config names.

The test makes its own CA and a server certificate for 127.0.0.1 with the
openssl CLI, and serves HTTPS on loopback: the fake model server behind a
TLS front end (provider requests), and a small HTTPS page (web_fetch).
Without the bundle both fail with a message that names network.caBundle;
with it both work. A project config may not set it.
"""
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ZeroTest  # noqa: E402


def make_ca(d):
    """A CA and a server certificate for 127.0.0.1 signed by it; returns
    (ca.pem, server cert, server key)."""
    ca_key, ca = os.path.join(d, "ca.key"), os.path.join(d, "ca.pem")
    key, csr, crt = (os.path.join(d, n) for n in ("srv.key", "srv.csr", "srv.pem"))
    ext = os.path.join(d, "ext.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out",
        ca, "-days", "2", "-subj", "/CN=zero test CA")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj",
        "/CN=127.0.0.1")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
        "-out", crt, "-days", "2", "-extfile", ext)
    return ca, crt, key


class TlsFront:
    """Terminates TLS on loopback and pipes each connection to a plain
    port (the fake model server)."""

    def __init__(self, crt, key, target_port):
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(crt, key)
        self.target = target_port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.handshakes = 0
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        try:
            t = self.ctx.wrap_socket(c, server_side=True)
        except (ssl.SSLError, OSError):
            c.close()  # the client refused our certificate
            return
        self.handshakes += 1
        up = socket.create_connection(("127.0.0.1", self.target))

        def pump(a, b):
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        threading.Thread(target=pump, args=(up, t), daemon=True).start()
        pump(t, up)

    def close(self):
        self.sock.close()


@unittest.skipUnless(shutil.which("openssl"), "needs the openssl CLI")
class CaBundle(ZeroTest):
    def setUp(self):
        super().setUp()
        self.ca, self.crt, self.key = make_ca(self.tmp)
        for k in ("SSL_CERT_FILE", "CURL_CA_BUNDLE", "SSL_CERT_DIR"):
            self.env.pop(k, None)

    def https_model(self):
        m = self.serve([{"text": "hello over tls"}])
        self.front = TlsFront(self.crt, self.key, m.port)
        self.addCleanup(self.front.close)
        self.env["OPENAI_BASE_URL"] = "https://127.0.0.1:%d/v1" % self.front.port

    def test_provider_fails_without_the_bundle_and_works_with_it(self):
        self.https_model()
        r = self.zero("exec", "say hi", timeout=120)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("TLS", r.stderr)
        self.assertIn("network.caBundle", r.stderr)
        self.assertEqual(self.model.bodies(), [])  # nothing reached the model

        self.user_config({"network": {"caBundle": self.ca}})
        r = self.zero("exec", "say hi", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("hello over tls", r.stdout)
        self.assertEqual(len(self.model.bodies()), 1)

    def test_web_fetch_uses_the_bundle(self):
        body = b"<html><body><p>secret corporate page</p></body></html>"

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(h):
                h.send_response(200)
                h.send_header("Content-Type", "text/html")
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                h.wfile.write(body)

            def log_message(h, *a):
                pass

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.crt, self.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        self.env["ZERO_WEB_FETCH_ALLOW_LOOPBACK"] = "1"
        args = json.dumps({"url": "https://127.0.0.1:%d/p" % srv.server_address[1]})

        r = self.zero("tools", "run", "web_fetch", args, "--json", "--skip-permissions-unsafe")
        self.assertNotIn("secret corporate page", r.stdout)
        self.assertIn("network.caBundle", r.stdout + r.stderr)

        self.user_config({"network": {"caBundle": self.ca}})
        r = self.zero("tools", "run", "web_fetch", args, "--json", "--skip-permissions-unsafe")
        self.assertIn("secret corporate page", r.stdout, r.stderr)

    def test_bad_bundle_and_project_bundle_are_clear_errors(self):
        self.serve([{"text": "unused"}])
        self.user_config({"network": {"caBundle": os.path.join(self.tmp, "missing.pem")}})
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("network.caBundle", r.stderr)
        self.assertIn("missing.pem", r.stderr)
        self.user_config({"network": {"caBundle": "relative.pem"}})
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("absolute path", r.stderr)

        self.user_config({})
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "config.json"), "w") as f:
            json.dump({"network": {"caBundle": self.ca}}, f)
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("not allowed in a project config", r.stderr)
        self.assertEqual(self.model.bodies(), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
