"""TLS inspection of the egress proxy (issue 19, part 4: sandbox.inspectTLS).

Real programs (curl, python3) inside `zero sandbox exec` reach real HTTPS
servers on the host's loopback through zero's egress proxy, which
terminates TLS with a CA made for the run and opens its own verified TLS
connection upstream. The servers use certificates of a test CA the test
makes with the openssl CLI; zero's proxy trusts it as network.caBundle of
the user config (so the servers play public hosts) and nothing else. Names
come from the test-only resolver file (ZERO_EGRESS_HOSTS):

    good.test, other.test, bad.test -> 127.0.0.1

The good server's certificate is valid for good.test and other.test (a
CDN front end serving many names); only good.test is allowed. The bad
server's certificate is self-signed. Each server records the requests it
receives (path and Host): "not received" means no request reached it.

Runs as root and as uid 65534 (unpriv.main).
"""
import http.server
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unpriv  # noqa: E402

ZERO_BIN = unpriv.zero_bin()
UNPRIV = unpriv.UNPRIV
PY = "/usr/bin/python3"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d):
    """A test CA, a server certificate it signs (good.test, other.test) and
    a self-signed one (bad.test), all P-256, in d."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=zero test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign", cwd=d)
    openssl("req", *ec, "-keyout", "good.key", "-out", "good.csr", "-subj", "/CN=good.test",
            cwd=d)
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=DNS:good.test,DNS:other.test\n")
    openssl("x509", "-req", "-in", "good.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "good.pem", "-days", "2", "-extfile", "ext.cnf", cwd=d)
    openssl("req", "-x509", *ec, "-keyout", "bad.key", "-out", "bad.pem", "-days", "2",
            "-subj", "/CN=bad.test", "-addext", "subjectAltName=DNS:bad.test", cwd=d)


class Https(http.server.ThreadingHTTPServer):
    """An HTTPS server on 127.0.0.1 that records each request's path and Host."""
    daemon_threads = True

    def __init__(self, cert, key):
        self.requests = []
        self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive

            def do_GET(h):
                with self.lock:
                    self.requests.append((h.path, h.headers.get("Host")))
                body = ("reached %s host=%s\n" % (h.path, h.headers.get("Host"))).encode()
                if h.path == "/big":  # 16 MiB: more than sockets buffer
                    body = b"z" * (16 << 20)
                h.send_response(200)
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                h.wfile.write(body)

            def log_message(h, *a):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.socket = ctx.wrap_socket(self.socket, server_side=True)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def handle_error(self, request, client_address):
        pass  # a refused handshake is what some tests expect

    def paths(self):
        with self.lock:
            return [p for p, _ in self.requests]

    def stop(self):
        self.shutdown()
        self.server_close()


def have_tools():
    return shutil.which("bwrap") and shutil.which("curl") and shutil.which("openssl")


@unittest.skipUnless(have_tools(), "needs bubblewrap, curl and openssl")
class InspectTLS(unittest.TestCase):
    def setUp(self):
        # Outside /tmp, which the sandbox replaces with its own: the runtime
        # base (XDG_CACHE_HOME) and the proxy's directory in it must be
        # really there for the test of what a sandbox sees of them.
        unpriv.attack_root(self, "zero-egress-tls-",
                           "/var/tmp" if os.access("/var/tmp", os.W_OK) else None)
        self.certs = os.path.join(self.root, "certs")
        os.makedirs(self.certs)
        make_certs(self.certs)
        self.hosts = os.path.join(self.root, "hosts")
        with open(self.hosts, "w") as f:
            f.write("127.0.0.1 good.test other.test bad.test\n")
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin" if UNPRIV else os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "LANG": "C.UTF-8",
            "ZERO_EGRESS_HOSTS": self.hosts,
        }
        c = lambda n: os.path.join(self.certs, n)  # noqa: E731
        self.good = Https(c("good.pem"), c("good.key"))
        self.bad = Https(c("bad.pem"), c("bad.key"))

    def tearDown(self):
        self.good.stop()
        self.bad.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def config(self, allow, inspect=True, project=None):
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        sandbox = {"network": "scoped", "allowedDomains": allow + ["127.0.0.1"]}
        if inspect is not None:
            sandbox["inspectTLS"] = inspect
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"sandbox": sandbox,
                       "network": {"caBundle": os.path.join(self.certs, "ca.pem")}}, f)
        if project is not None:
            os.makedirs(os.path.join(self.ws, ".zero"), exist_ok=True)
            with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
                json.dump({"sandbox": project}, f)

    def sx(self, script, timeout=60):
        cmd = [ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", script]
        return subprocess.run(cmd, cwd=self.ws, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)

    def good_url(self, path, host="good.test"):
        return "https://%s:%d%s" % (host, self.good.port, path)

    # ---- what must work ---------------------------------------------------------

    def test_curl_through_the_inspecting_proxy_works(self):
        self.config(["good.test:%d" % self.good.port])
        r = self.sx("curl -sS -m 20 %s; curl -sS -m 20 -x socks5h://127.0.0.1:3128 %s; "
                    "curl -sS -m 20 -v -o /dev/null %s 2>&1 | grep -i 'issuer:'"
                    % (self.good_url("/one"), self.good_url("/socks"), self.good_url("/who")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("reached /one host=good.test:%d" % self.good.port, r.stdout)
        self.assertIn("reached /socks", r.stdout)
        # the client saw the run's CA, not the server's: the proxy terminated TLS
        self.assertIn("zero sandbox", r.stdout)
        self.assertEqual(self.good.paths(), ["/one", "/socks", "/who"])

    def test_sandbox_trusts_the_bundle_through_every_variable(self):
        self.config(["good.test:%d" % self.good.port])
        r = self.sx("for v in SSL_CERT_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO "
                    "NODE_EXTRA_CA_CERTS; do eval echo $v=\\$$v; done; "
                    "grep -c 'BEGIN CERTIFICATE' \"$SSL_CERT_FILE\" \"$NODE_EXTRA_CA_CERTS\"")
        self.assertEqual(r.returncode, 0, r.stderr)
        env = dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
        self.assertTrue(env["SSL_CERT_FILE"].endswith(".bundle.pem"), r.stdout)
        for v in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"):
            self.assertEqual(env[v], env["SSL_CERT_FILE"])
        self.assertTrue(env["NODE_EXTRA_CA_CERTS"].endswith(".ca.pem"))
        # bundle = the configured CA (network.caBundle) + the run's; ca.pem = the run's
        self.assertIn("bundle.pem:2", r.stdout)
        self.assertIn("ca.pem:1", r.stdout)

    def test_python_keep_alive_requests_pass_one_by_one(self):
        self.config(["good.test:%d" % self.good.port])
        code = ("import http.client,os,ssl\n"
                "ctx=ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])\n"
                "c=http.client.HTTPSConnection('127.0.0.1',3128,context=ctx)\n"
                "c.set_tunnel('good.test',%d)\n"
                "for p in ('/k1','/k2'):\n"
                "    c.request('GET',p); r=c.getresponse(); print(r.status, r.read().decode())\n"
                % self.good.port)
        r = self.sx("%s -c \"$(cat <<'EOF'\n%s\nEOF\n)\"" % (PY, code))
        self.assertIn("200 reached /k1", r.stdout, r.stderr)
        self.assertIn("200 reached /k2", r.stdout, r.stderr)
        self.assertEqual(self.good.paths(), ["/k1", "/k2"])

    # ---- attacks ------------------------------------------------------------------

    def test_host_header_naming_another_host_is_refused(self):
        # Domain fronting: CONNECT to the allowed good.test, then a request
        # whose Host is other.test, which the same front end would serve.
        self.config(["good.test:%d" % self.good.port])
        r = self.sx("curl -sS -m 20 -w ' code=%%{http_code}' -H 'Host: other.test:%d' %s; "
                    "curl -sS -m 20 -w ' code=%%{http_code}' -x socks5h://127.0.0.1:3128 "
                    "-H 'Host: other.test' %s"
                    % (self.good.port, self.good_url("/front"), self.good_url("/front-socks")))
        self.assertEqual(self.good.paths(), [], "a fronted request reached the server")
        self.assertIn("code=403", r.stdout)
        self.assertEqual(r.stdout.count("domain fronting"), 2, r.stdout)
        self.assertIn("other.test", r.stdout)
        # zero says so too, without advice to allow a host (none would help)
        self.assertIn("egress proxy refused a request to good.test", r.stderr)
        self.assertNotIn("To allow it", r.stderr)

    def test_second_request_with_another_host_on_a_kept_alive_connection_is_refused(self):
        self.config(["good.test:%d" % self.good.port])
        code = ("import http.client,os,ssl\n"
                "ctx=ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])\n"
                "c=http.client.HTTPSConnection('127.0.0.1',3128,context=ctx)\n"
                "c.set_tunnel('good.test',%d)\n"
                "c.request('GET','/first'); r=c.getresponse(); print(r.status, r.read().decode())\n"
                "c.request('GET','/second',headers={'Host':'other.test'})\n"
                "r=c.getresponse(); print(r.status, r.read().decode())\n" % self.good.port)
        r = self.sx("%s -c \"$(cat <<'EOF'\n%s\nEOF\n)\"" % (PY, code))
        self.assertIn("200 reached /first", r.stdout, r.stderr)
        self.assertIn("403 zero: the sandbox refused a request to good.test", r.stdout)
        self.assertEqual(self.good.paths(), ["/first"])

    def test_smuggled_request_in_an_ambiguous_body_is_refused(self):
        # Content-Length and Transfer-Encoding together: a server reading
        # one and a proxy reading the other would disagree on where the
        # fronted second request starts. Refused before anything goes up.
        self.config(["good.test:%d" % self.good.port])
        code = ("import os,socket,ssl\n"
                "s=socket.create_connection(('127.0.0.1',3128))\n"
                "s.sendall(b'CONNECT good.test:%d HTTP/1.1\\r\\nHost: good.test\\r\\n\\r\\n')\n"
                "print(s.recv(200).split(b'\\r\\n')[0].decode())\n"
                "ctx=ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])\n"
                "t=ctx.wrap_socket(s,server_hostname='good.test')\n"
                "smuggled=b'GET /smuggled HTTP/1.1\\r\\nHost: other.test\\r\\n\\r\\n'\n"
                "t.sendall(b'POST /outer HTTP/1.1\\r\\nHost: good.test\\r\\nContent-Length: %%d\\r\\n'\n"
                "          b'Transfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n' %% (5+len(smuggled)) + smuggled)\n"
                "print(t.recv(4096).decode())\n" % self.good.port)
        r = self.sx("%s -c \"$(cat <<'EOF'\n%s\nEOF\n)\"" % (PY, code))
        self.assertIn("200 Connection established", r.stdout, r.stderr)
        self.assertIn("403 Forbidden", r.stdout)
        self.assertIn("ambiguous request framing", r.stdout)
        self.assertEqual(self.good.paths(), [])

    def test_untrusted_upstream_certificate_is_refused(self):
        # bad.test is allowed, but its certificate is self-signed: the proxy
        # refuses the tunnel, and a client that skips verification (-k)
        # cannot accept it on the proxy's behalf.
        self.config(["bad.test:%d" % self.bad.port])
        r = self.sx("curl -sS -m 20 https://bad.test:%d/x; echo rc=$?; "
                    "curl -sS -k -m 20 https://bad.test:%d/y; echo rc=$?; "
                    "curl -sS -m 20 -p -x http://127.0.0.1:3128 -k https://bad.test:%d/z -v 2>&1 "
                    "| grep -i 'HTTP/1.1 502'" % ((self.bad.port,) * 3))
        self.assertEqual(self.bad.paths(), [], "a request reached the untrusted server")
        self.assertNotIn("rc=0", r.stdout)
        self.assertIn("502", r.stdout)
        self.assertIn("failed verification", r.stderr)

    def test_wrong_name_on_upstream_certificate_is_refused(self):
        # The good server's certificate is valid, but not for bad.test.
        self.config(["bad.test:%d" % self.good.port])
        r = self.sx("curl -sS -k -m 20 https://bad.test:%d/wrong-name; echo rc=$?"
                    % self.good.port)
        self.assertEqual(self.good.paths(), [])
        self.assertNotIn("rc=0", r.stdout)
        self.assertIn("failed verification", r.stderr)

    def test_ca_key_is_private_hidden_from_the_sandbox_and_removed(self):
        self.config(["good.test:%d" % self.good.port])
        script = ('key="${SSL_CERT_FILE%.bundle.pem}.key.pem"; echo "KEY=$key"; '
                  'ls -a "$(dirname "$SSL_CERT_FILE")" | tr "\\n" " "; echo; '
                  'cat "$key" >/dev/null 2>&1 && echo KEY-READABLE; sleep 4')
        p = subprocess.Popen([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", script],
                             cwd=self.ws, env=self.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = p.stdout.readline()
        listing = p.stdout.readline().split()
        key = first.strip().split("=", 1)[1]
        st = os.stat(key)  # outside the sandbox, while the run lasts
        self.assertEqual(st.st_mode & 0o777, 0o600)
        self.assertEqual(st.st_uid, os.getuid())
        self.assertEqual(os.stat(os.path.dirname(key)).st_mode & 0o777, 0o700)
        with open(key) as f:
            self.assertIn("PRIVATE KEY", f.read())
        if not UNPRIV:  # another user cannot read it
            other = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                                    "--clear-groups", "cat", key], capture_output=True)
            self.assertNotEqual(other.returncode, 0)
        rest, err = p.communicate(timeout=60)
        self.assertNotIn("KEY-READABLE", rest, "the sandbox could read the CA key")
        # inside, the proxy's directory holds this run's socket and certificates only
        self.assertEqual(sorted(n for n in listing if not n.startswith(".") or len(n) > 2
                                if n not in (".", "..")),
                         sorted(os.path.basename(key).replace(".key.pem", s)
                                for s in (".sock", ".ca.pem", ".bundle.pem")), listing)
        self.assertFalse(os.path.exists(key), "the CA key outlived the run")

    def test_client_leaving_mid_download_does_not_end_zero(self):
        # Regression: the proxy writing to a client that has gone got
        # SIGPIPE, which killed zero (exit -13), inspected or not.
        for inspect in (True, False):
            self.config(["good.test:%d" % self.good.port], inspect=inspect)
            code = ("import os,socket,ssl\n"
                    "for i in range(3):\n"
                    "    s=socket.create_connection(('127.0.0.1',3128))\n"
                    "    s.sendall(b'CONNECT good.test:%d HTTP/1.1\\r\\n\\r\\n')\n"
                    "    s.recv(200)\n"
                    "    ctx=ssl.create_default_context(cafile=%r)\n"
                    "    ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE\n"
                    "    t=ctx.wrap_socket(s,server_hostname='good.test')\n"
                    "    t.sendall(b'GET /big HTTP/1.1\\r\\nHost: good.test\\r\\n\\r\\n')\n"
                    "    t.recv(1024)\n"
                    "    t.setsockopt(socket.SOL_SOCKET,socket.SO_LINGER,b'\\1\\0\\0\\0\\0\\0\\0\\0')\n"
                    "    t.close()\n"
                    "import time; time.sleep(1); print('done')\n"
                    % (self.good.port, "/etc/ssl/certs/ca-certificates.crt"))
            r = self.sx("%s -c \"$(cat <<'EOF'\n%s\nEOF\n)\"" % (PY, code))
            self.assertEqual(r.returncode, 0, (inspect, r.stdout, r.stderr))
            self.assertIn("done", r.stdout)

    def test_project_cannot_turn_inspection_off(self):
        self.config(["good.test:%d" % self.good.port], project={"inspectTLS": False})
        r = self.sx("curl -sS -m 20 -H 'Host: other.test' %s" % self.good_url("/p"))
        self.assertIn("domain fronting", r.stdout, r.stderr)
        self.assertEqual(self.good.paths(), [])

    def test_project_can_turn_inspection_on(self):
        self.config(["good.test:%d" % self.good.port], inspect=None,
                    project={"inspectTLS": True})
        r = self.sx("curl -sS -m 20 -H 'Host: other.test' %s" % self.good_url("/q"))
        self.assertIn("domain fronting", r.stdout, r.stderr)
        self.assertEqual(self.good.paths(), [])

    def test_without_inspection_the_tunnel_is_opaque(self):
        # The control: inspection off, the client verifies the server itself
        # (the test CA), and the proxy cannot see the Host.
        self.config(["good.test:%d" % self.good.port], inspect=False)
        shutil.copy(os.path.join(self.certs, "ca.pem"), os.path.join(self.ws, "test-ca.pem"))
        r = self.sx("curl -sS -m 20 --cacert test-ca.pem -H 'Host: other.test:%d' %s"
                    % (self.good.port, self.good_url("/opaque")))
        self.assertIn("reached /opaque host=other.test", r.stdout, r.stderr)


if __name__ == "__main__":
    unpriv.main(__file__)
