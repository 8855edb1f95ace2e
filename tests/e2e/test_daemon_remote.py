"""`zero daemon serve-remote` and `run|attach --remote` (issue 21, part A):
the TLS bridge in front of the local daemon, against the real binary.

Every test makes its own CA, server certificate and a second, unrelated CA
with the openssl command. The bridge runs with an OpenSSL configuration
that allows TLS 1.0 and security level 0, so the TLS 1.1 refusal seen here
is zero's own floor, not the system's. Sessions run the scripted worker
(tests/e2e/daemon_worker.py). Daemons and bridges are killed by pid.
"""
import json
import os
import signal
import socket
import ssl
import struct
import subprocess
import time
import warnings

from harness import ZERO_BIN, main
from test_daemon import DaemonCase, frame, read_frame

TOKEN = "bridge-token-7f3a9c2e41d8b6"
WEAK_OPENSSL_CONF = """openssl_conf = openssl_init
[openssl_init]
ssl_conf = ssl_sect
[ssl_sect]
system_default = system_default_sect
[system_default_sect]
MinProtocol = TLSv1
CipherString = DEFAULT@SECLEVEL=0
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", name + ".key", "-out", name + ".pem", "-days", "2",
            "-subj", "/CN=" + name, cwd=d)


class RemoteCase(DaemonCase):
    def setUp(self):
        super().setUp()
        self.pki = os.path.join(self.tmp, "pki")
        os.makedirs(self.pki)
        make_ca(self.pki, "ca")
        make_ca(self.pki, "otherca")
        with open(os.path.join(self.pki, "ext.cnf"), "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=localhost", cwd=self.pki)
        openssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "srv.pem", "-days", "2", "-extfile", "ext.cnf",
                cwd=self.pki)
        self.ca = os.path.join(self.pki, "ca.pem")
        self.other_ca = os.path.join(self.pki, "otherca.pem")
        with open(os.path.join(self.pki, "weak.cnf"), "w") as f:
            f.write(WEAK_OPENSSL_CONF)
        self.bridges = []
        self.socks = []
        self.port = None

    def tearDown(self):
        for s in self.socks:
            s.close()
        for p in self.bridges:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.log_file.close()
        super().tearDown()

    def bridge(self, token=TOKEN, wait=True, **env):
        """Starts serve-remote on a free port; its log goes to bridge.log."""
        self.port = free_port()
        e = dict(self.env)
        e["OPENSSL_CONF"] = os.path.join(self.pki, "weak.cnf")
        if token is not None:
            e["ZERO_DAEMON_REMOTE_TOKEN"] = token
        e.update(env)
        self.bridge_log = os.path.join(self.tmp, "bridge.log")
        log_file = open(self.bridge_log, "w")
        p = subprocess.Popen([ZERO_BIN, "daemon", "serve-remote", "--addr",
                              "127.0.0.1:%d" % self.port, "--tls-cert",
                              os.path.join(self.pki, "srv.pem"), "--tls-key",
                              os.path.join(self.pki, "srv.key")],
                             cwd=self.work, env=e, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=log_file)
        p.log_file = log_file
        self.bridges.append(p)
        if wait:
            self.wait_for(lambda: "listening on" in self.blog() or p.poll() is not None,
                          timeout=30, what="the bridge to listen")
            self.assertIsNone(p.poll(), self.blog())
        return p

    def blog(self):
        try:
            with open(self.bridge_log) as f:
                return f.read()
        except OSError:
            return ""

    def remote(self, *args, token=TOKEN, ca=True, timeout=60):
        extra = ["--remote", "127.0.0.1:%d" % self.port]
        if token is not None:
            extra += ["--token", token]
        if ca:
            extra += ["--ca-cert", self.ca if ca is True else ca]
        return self.zero("daemon", *args, *extra, timeout=timeout)

    def tls(self, maximum=None, minimum=None):
        """A verifying TLS connection to the bridge (Python's ssl)."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(self.ca)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if maximum:
                ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
                ctx.minimum_version = minimum or maximum
                ctx.maximum_version = maximum
        raw = self.tcp()
        t = ctx.wrap_socket(raw, server_hostname="localhost")
        self.socks.append(t)
        return t

    def tcp(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        self.socks.append(s)
        return s


class Bridge(RemoteCase):
    def test_run_and_attach_go_through_the_bridge(self):
        # The daemon inherits the token from the shell that started it.
        self.start(ZERO_DAEMON_REMOTE_TOKEN=TOKEN)
        self.bridge()
        spec = {"report": True, "secret": TOKEN, "lines": ['{"type":"hello-from-worker"}']}
        r = self.remote("run", "--session", "r1", "--prompt", json.dumps(spec))
        self.assertEqual(r.returncode, 0, r.stderr + self.blog())
        out = self.lines(r.stdout)
        self.assertEqual([e["type"] for e in out], ["report", "hello-from-worker", "run_end"])
        # attack: the worker (a model's session) never sees the bridge's token
        self.assertEqual(out[0]["remote_env"], {})
        # attach through the bridge replays the finished session
        a = self.remote("attach", "r1")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(self.lines(a.stdout), out)
        # a failing session's exit code comes back through the bridge too
        f = self.remote("run", "--session", "r2", "--prompt", json.dumps({"exit": 76}))
        self.assertEqual(f.returncode, 76, f.stderr)
        self.assertIn("session r2 failed", f.stderr)
        self.assertIn("authenticated (TLSv1.3)", self.blog())
        # the token is in no log
        for text in (self.blog(), self.log()):
            self.assertNotIn(TOKEN, text)

    def test_tokens_from_files_and_the_environment(self):
        self.start()
        tok_file = os.path.join(self.tmp, "token")
        with open(tok_file, "w") as f:
            f.write("  %s\n" % TOKEN)  # white space around it is not part of it
        self.bridge(token=None, ZERO_DAEMON_REMOTE_TOKEN_FILE=tok_file)
        # the client reads the same variables when --token is absent
        self.env["ZERO_DAEMON_REMOTE_TOKEN"] = TOKEN
        r = self.remote("run", "--session", "e1", "--prompt", "{}", token=None)
        self.assertEqual(r.returncode, 0, r.stderr + self.blog())
        del self.env["ZERO_DAEMON_REMOTE_TOKEN"]
        self.env["ZERO_DAEMON_REMOTE_TOKEN_FILE"] = tok_file
        r = self.remote("attach", "e1", token=None)
        self.assertEqual(r.returncode, 0, r.stderr)
        del self.env["ZERO_DAEMON_REMOTE_TOKEN_FILE"]
        r = self.remote("attach", "e1", token=None)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--remote needs --token", r.stderr)

    def test_the_bridge_refuses_to_start_without_what_it_needs(self):
        cert = os.path.join(self.pki, "srv.pem")
        key = os.path.join(self.pki, "srv.key")
        r = self.zero("daemon", "serve-remote", "--addr", "127.0.0.1:1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("never serves without TLS", r.stderr)
        r = self.zero("daemon", "serve-remote", "--addr", "127.0.0.1:1", "--tls-cert", cert,
                      "--tls-key", key)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ZERO_DAEMON_REMOTE_TOKEN", r.stderr)
        self.env["ZERO_DAEMON_REMOTE_TOKEN"] = "   "
        r = self.zero("daemon", "serve-remote", "--addr", "127.0.0.1:1", "--tls-cert", cert,
                      "--tls-key", key)
        self.assertIn("an empty one is refused", r.stderr)
        self.env["ZERO_DAEMON_REMOTE_TOKEN"] = TOKEN
        r = self.zero("daemon", "serve-remote", "--addr", "127.0.0.1:1", "--tls-cert", self.ca,
                      "--tls-key", key)
        self.assertIn("cannot load the TLS key", r.stderr)
        self.assertIn("key values mismatch", r.stderr)
        for bad in ("nocolon", "127.0.0.1:0", "127.0.0.1:99999", "::1:80", "h:8x"):
            r = self.zero("daemon", "serve-remote", "--addr", bad, "--tls-cert", cert,
                          "--tls-key", key)
            self.assertIn("expected HOST:PORT", r.stderr, bad)
        r = self.zero("daemon", "run", "--session", "x", "--prompt", "p", "--token", "t")
        self.assertEqual(r.returncode, 2)
        self.assertIn("apply with --remote only", r.stderr)

    def test_no_daemon_behind_the_bridge(self):
        self.bridge()
        self.assertIn("no daemon is running yet", self.blog())
        r = self.remote("run", "--session", "n", "--prompt", "{}")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no zero daemon is running on the bridge's host", r.stderr)

    def test_sigterm_stops_the_bridge_and_its_connections(self):
        self.start()
        p = self.bridge()
        t = self.tls()
        t.sendall(frame({"token": TOKEN, "version": 1}))
        self.assertTrue(read_frame(t)["ok"])
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=30), 0)
        self.assertIsNone(read_frame(t))  # the held connection was closed
        self.assertIn("stopping (signal 15)", self.blog())


class Attacks(RemoteCase):
    def session_ids(self):
        return [s["id"] for s in self.status()["sessions"]]

    def test_a_wrong_token_is_refused_after_a_delay_and_nothing_is_relayed(self):
        self.start()
        self.bridge()
        r = self.remote("run", "--session", "bad", "--prompt", "{}", token="not-the-token")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the remote bridge refused: unauthorized", r.stderr)
        # Raw: a wrong token followed at once by the daemon's own frames.
        t = self.tls()
        start = time.monotonic()
        t.sendall(frame({"token": TOKEN[:-1] + "X", "version": 1}) +
                  frame({"type": "hello", "version": 1}) +
                  frame({"type": "run", "session": "smuggled", "prompt": "{}", "args": []}))
        resp = read_frame(t)
        self.assertGreaterEqual(time.monotonic() - start, 0.24)
        self.assertEqual(resp, {"ok": False, "message": "unauthorized"})
        self.assertIsNone(read_frame(t))  # closed
        self.assertEqual(self.session_ids(), [])
        self.assertIn("refused: unauthorized", self.blog())
        self.assertNotIn("not-the-token", self.blog())

    def test_no_token_is_refused(self):
        self.start()
        self.bridge()
        for first in ({"version": 1}, {"token": 12345, "version": 1},
                      {"type": "hello", "version": 1}, {"token": "", "version": 1}):
            t = self.tls()
            t.sendall(frame(first) + frame({"type": "run", "session": "s", "prompt": "{}",
                                            "args": []}))
            self.assertEqual(read_frame(t), {"ok": False, "message": "unauthorized"}, first)
            self.assertIsNone(read_frame(t))
        # the right token with an old protocol version
        t = self.tls()
        t.sendall(frame({"token": TOKEN, "version": 0}))
        self.assertEqual(read_frame(t)["message"], "unsupported protocol version")
        # a token frame over its cap, announced: closed without reading it
        t = self.tls()
        t.sendall(struct.pack(">IB", 1 << 20, 1) + b"{")
        self.assertIsNone(read_frame(t))
        # a data frame, not a control frame
        t = self.tls()
        t.sendall(frame(kind=0, raw=b"{}"))
        self.assertIsNone(read_frame(t))
        self.assertEqual(self.session_ids(), [])
        # the right token still works afterwards
        r = self.remote("run", "--session", "ok", "--prompt", "{}")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_server_certificate_from_another_ca_or_name_is_refused(self):
        self.start()
        self.bridge()
        r = self.remote("run", "--session", "w", "--prompt", "{}", ca=self.other_ca)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the server's certificate was refused", r.stderr)
        r = self.remote("run", "--session", "w", "--prompt", "{}", ca=False)  # system roots
        self.assertIn("the server's certificate was refused", r.stderr)
        r = self.remote("run", "--session", "w", "--prompt", "{}", "--server-name", "evil.test")
        self.assertIn("hostname mismatch", r.stderr)
        # the name the certificate holds, while dialing the address
        r = self.remote("run", "--session", "w", "--prompt", "{}", "--server-name", "localhost")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.session_ids(), ["w"])  # only the verified one reached the daemon
        self.assertNotIn(TOKEN, self.blog())

    def test_tls_1_1_is_refused_and_1_2_accepted(self):
        self.start()
        self.bridge()
        with self.assertRaises(ssl.SSLError) as cm:
            self.tls(maximum=ssl.TLSVersion.TLSv1_1)
        self.assertIn("PROTOCOL_VERSION", str(cm.exception))
        t = self.tls(maximum=ssl.TLSVersion.TLSv1_2, minimum=ssl.TLSVersion.TLSv1_2)
        self.assertEqual(t.version(), "TLSv1.2")
        t.sendall(frame({"token": TOKEN, "version": 1}))
        self.assertEqual(read_frame(t), {"ok": True, "version": 1})
        t.sendall(frame({"type": "hello", "version": 1}))
        self.assertEqual(read_frame(t)["type"], "hello_ok")

    def test_at_most_32_connections(self):
        self.start()
        self.bridge(ZERO_DAEMON_REMOTE_HANDSHAKE_MS="120000")
        held = [self.tcp() for _ in range(32)]
        # the kernel hands connections over in order: these 32 are admitted first
        extra = self.tcp()
        self.assertEqual(extra.recv(16), b"")  # closed at once, nothing said
        self.assertIn("refused: at capacity (32 connections)", self.blog())
        # one slot frees: a verified client gets through again
        held.pop().close()

        def served():
            r = self.remote("run", "--session", "again", "--prompt", "{}")
            return r.returncode == 0
        self.wait_for(served, timeout=30, what="a freed slot")

    def test_a_silent_client_is_dropped_at_the_handshake_deadline(self):
        self.start()
        self.bridge(ZERO_DAEMON_REMOTE_HANDSHAKE_MS="500")
        s = self.tcp()
        self.assertEqual(s.recv(16), b"")
        t = self.tls()  # TLS done, then silence
        self.assertIsNone(read_frame(t))
        self.wait_for(lambda: self.blog().count("timed out") >= 2, what="two timeouts logged")


if __name__ == "__main__":
    main()
