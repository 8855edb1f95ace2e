"""Attacks on network "scoped" (issue 19): the egress proxy is the only way
out of the sandbox, and it reaches only what the policy allows.

Every test runs real programs (curl, python3) inside `zero sandbox exec`
against a real HTTP server on the host's loopback that records each
connection it accepts: "not reached" means the server saw no connection.
Names are mapped by a test-only resolver file (ZERO_EGRESS_HOSTS, a hosts(5)
file read by zero's proxy; the machine's /etc/hosts is never touched):

    good.test, rebind.test, denied.test -> 127.0.0.1
    meta.test                            -> 169.254.169.254

Loopback is an internal address, so a test that must reach the server lists
127.0.0.1 as an IP entry of the user config, the one way to allow it; the
attack tests leave it out and check that an allowed *name* resolving there
is refused (DNS rebinding), whatever spelling the address takes.

Runs as root and as uid 65534 (unpriv.main).
"""
import functools
import http.server
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unpriv  # noqa: E402

ZERO_BIN = unpriv.zero_bin()
UNPRIV = unpriv.UNPRIV
PROXY = "127.0.0.1:3128"


class Recorder(http.server.ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 that records every connection and path."""
    daemon_threads = True

    def __init__(self):
        self.connections = 0
        self.paths = []
        self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(h):
                with self.lock:
                    self.paths.append(h.path)
                body = b"reached " + h.path.encode() + b"\n"
                if h.path.startswith("/big/"):  # /big/N: N MiB of a known pattern
                    body = bytes(range(256)) * (4096 * int(h.path[5:]))
                h.send_response(200)
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                h.wfile.write(body)

            def log_message(h, *a):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    def verify_request(self, request, client_address):
        with self.lock:
            self.connections += 1
        return True

    def stop(self):
        self.shutdown()
        self.server_close()


def have_tools():
    return shutil.which("bwrap") and shutil.which("curl")


@unittest.skipUnless(have_tools(), "needs bubblewrap and curl")
class EgressCase(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="zero-egress-")
        os.chmod(self.root, 0o755)
        self.home = os.path.join(self.root, "home")
        self.ws = os.path.join(self.root, "ws")
        os.makedirs(self.home)
        os.makedirs(self.ws)
        self.hosts = os.path.join(self.root, "hosts")
        with open(self.hosts, "w") as f:
            f.write("127.0.0.1 good.test rebind.test denied.test\n"
                    "169.254.169.254 meta.test\n")
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin" if UNPRIV else os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "LANG": "C.UTF-8",
            "ZERO_EGRESS_HOSTS": self.hosts,
        }
        self.server = Recorder()
        self.port = self.server.port

    def tearDown(self):
        self.server.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def user_config(self, sandbox):
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"sandbox": sandbox}, f)

    def scoped(self, allow, deny=(), loopback=False):
        """network "scoped" allowing allow (each host:port of the server),
        denying deny; loopback: 127.0.0.1 listed as an IP entry."""
        hosts = ["%s:%d" % (h, self.port) for h in allow] + (["127.0.0.1"] if loopback else [])
        self.user_config({"network": "scoped", "allowedDomains": hosts,
                          "deniedDomains": ["%s" % h for h in deny]})

    def sx(self, script, extra=(), timeout=60):
        cmd = [ZERO_BIN, "sandbox", "exec", *extra, "--", "/bin/sh", "-c", script]
        return subprocess.run(cmd, cwd=self.ws, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)

    def py(self, code, extra=()):
        """Runs python3 code in the sandbox (proxy variables as zero sets them)."""
        cmd = [ZERO_BIN, "sandbox", "exec", *extra, "--", "/usr/bin/python3", "-c", code]
        return subprocess.run(cmd, cwd=self.ws, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)

    def url(self, host, path):
        return "http://%s:%d%s" % (host, self.port, path)

    def assertNotReached(self):
        self.assertEqual(self.server.connections, 0, self.server.paths)

    # ---- what must work (the controls) ---------------------------------------------

    def test_allowed_host_is_reached_over_http_connect_and_socks5(self):
        self.scoped(["good.test"], loopback=True)
        r = self.sx("curl -sS -m 10 %s; curl -sS -m 10 -p %s; "
                    "curl -sS -m 10 -x socks5h://%s %s; echo $ZERO_SANDBOX_NETWORK"
                    % (self.url("good.test", "/plain"), self.url("good.test", "/tunnel"),
                       PROXY, self.url("good.test", "/socks")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("network=scoped", r.stderr)
        self.assertEqual(sorted(self.server.paths), ["/plain", "/socks", "/tunnel"], r.stdout)
        self.assertIn("scoped", r.stdout)

    def test_allow_domain_flag_allows_for_one_run(self):
        self.user_config({"allowedDomains": ["127.0.0.1"]})  # network deny by default
        r = self.sx("curl -sS -m 10 %s" % self.url("good.test", "/flag"),
                    extra=["--allow-domain", "good.test:%d" % self.port])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.server.paths, ["/flag"])

    def test_bulk_transfer_arrives_whole_both_ways(self):
        # 6 MiB is past the point where the relay grows its pipes (relay.c)
        self.scoped(["good.test"], loopback=True)
        want = __import__("hashlib").sha256(bytes(range(256)) * (4096 * 6)).hexdigest()
        r = self.sx("curl -sS -m 60 %s | sha256sum; curl -sS -m 60 -p %s | sha256sum; "
                    "curl -sS -m 60 -x socks5h://%s %s | sha256sum"
                    % (self.url("good.test", "/big/6"), self.url("good.test", "/big/6"), PROXY,
                       self.url("good.test", "/big/6")))
        self.assertEqual(r.stdout.split(), [want, "-"] * 3, r.stderr)

    @unittest.skipUnless(shutil.which("git"), "needs git")
    def test_git_clone_over_http_through_the_proxy(self):
        # A real git: a bare repository served over git's "dumb" HTTP
        # protocol by a static server on the host's loopback, cloned by its
        # allowed name through the proxy (git honours http_proxy); the same
        # clone by a name on no list is refused and reaches nothing.
        src = os.path.join(self.root, "src")
        bare = os.path.join(self.root, "srv", "repo.git")
        genv = dict(self.env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                    GIT_COMMITTER_EMAIL="t@t")
        for cmd in (["git", "init", "-q", src],
                    ["sh", "-c", "echo cloned-through-the-proxy > README"],
                    ["git", "add", "README"], ["git", "commit", "-qm", "one"],
                    ["git", "clone", "-q", "--bare", src, bare],
                    ["git", "-C", bare, "update-server-info"]):
            subprocess.run(cmd, cwd=src if os.path.isdir(src) else self.root, env=genv,
                           check=True, capture_output=True)
        subprocess.run(["chmod", "-R", "a+rX", self.root], check=True)

        class Static(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *a):
                pass

        srv = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0),
            functools.partial(Static, directory=os.path.join(self.root, "srv")))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            port = srv.server_address[1]
            self.user_config({"network": "scoped",
                              "allowedDomains": ["good.test:%d" % port, "127.0.0.1"]})
            r = self.sx("git clone -q http://good.test:%d/repo.git out && cat out/README; "
                        "git clone -q http://denied.test:%d/repo.git out2; echo rc=$?"
                        % (port, port), timeout=120)
            self.assertIn("cloned-through-the-proxy", r.stdout, r.stderr)
            self.assertIn("blocked a connection to denied.test", r.stderr)
            self.assertTrue(r.stdout.strip().endswith("rc=128"), r.stdout)
            self.assertFalse(os.path.exists(os.path.join(self.ws, "out2")))
        finally:
            srv.shutdown()
            srv.server_close()

    # ---- refusals -----------------------------------------------------------------

    def test_denied_host_is_not_reached_and_the_reply_says_how_to_allow_it(self):
        self.scoped(["good.test"], loopback=True)
        r = self.sx("curl -sS -m 10 %s" % self.url("denied.test", "/x"))
        self.assertNotReached()
        self.assertIn("blocked a connection to denied.test", r.stdout)
        self.assertIn("--allow-domain denied.test", r.stdout)
        self.assertIn("sandbox.allowedDomains", r.stderr)

    def test_deny_list_wins_over_allow_list(self):
        self.scoped(["good.test"], deny=["good.test"], loopback=True)
        r = self.sx("curl -sS -m 10 -p %s; curl -sS -m 10 %s"
                    % (self.url("good.test", "/a"), self.url("good.test", "/b")))
        self.assertNotReached()
        self.assertIn("on sandbox.deniedDomains", r.stdout + r.stderr)

    def test_direct_connection_without_the_proxy_finds_no_route(self):
        self.scoped(["good.test"], loopback=True)
        code = ("import socket,sys\n"
                "s=socket.socket()\n"
                "s.settimeout(5)\n"
                "try:\n"
                "    s.connect(('127.0.0.1',%d)); print('CONNECTED')\n"
                "except OSError as e:\n"
                "    print('refused', e)\n" % self.port)
        r = self.py(code)
        self.assertIn("refused", r.stdout, r.stderr)
        r = self.sx("unset HTTP_PROXY http_proxy ALL_PROXY all_proxy; curl -sS -m 5 %s"
                    % self.url("127.0.0.1", "/direct"))
        self.assertNotEqual(r.returncode, 0)
        self.assertNotReached()

    def test_allowed_name_resolving_to_loopback_is_refused(self):
        # rebind.test is allowed by name but resolves to 127.0.0.1, which the
        # user did not list: the proxy must not dial it.
        self.scoped(["rebind.test"])
        r = self.sx("curl -sS -m 10 %s; curl -sS -m 10 -p %s; curl -sS -m 10 -x socks5h://%s %s"
                    % (self.url("rebind.test", "/a"), self.url("rebind.test", "/b"), PROXY,
                       self.url("rebind.test", "/c")))
        self.assertNotReached()
        self.assertIn("resolves to 127.0.0.1", r.stdout + r.stderr)

    def test_allowed_name_resolving_to_metadata_is_refused(self):
        self.user_config({"network": "scoped", "allowedDomains": ["meta.test"]})
        r = self.sx("curl -sS -m 10 http://meta.test/latest/meta-data/")
        self.assertIn("resolves to 169.254.169.254", r.stdout + r.stderr)

    def test_connect_to_private_ip_literals_in_any_spelling_is_refused(self):
        # every name on the server's port: only the address check stands in the way
        self.user_config({"network": "scoped", "allowedDomains": ["*:%d" % self.port]})
        spellings = ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "[::1]",
                     "[::ffff:127.0.0.1]"]
        # --noproxy '': NO_PROXY lists 127.0.0.1, and here the client must ask
        # the proxy for it
        script = "; ".join("curl -sS -m 5 --noproxy '' -p -x http://%s http://%s:%d/x"
                           % (PROXY, s, self.port) for s in spellings)
        r = self.sx(script)
        self.assertNotReached()
        self.assertEqual(r.stderr.count("a private, loopback, link-local or metadata address"),
                         len(spellings), r.stderr)

    def test_absolute_form_to_another_host_and_host_header_mismatch(self):
        self.scoped(["good.test"], loopback=True)
        code = ("import socket\n"
                "def ask(req):\n"
                "    s=socket.create_connection(('127.0.0.1',3128),5)\n"
                "    s.sendall(req.encode())\n"
                "    print(s.recv(4096).decode(errors='replace').split('\\r\\n')[0])\n"
                "ask('GET http://denied.test:%(p)d/abs HTTP/1.1\\r\\nHost: denied.test:%(p)d\\r\\n\\r\\n')\n"
                "ask('GET http://good.test:%(p)d/front HTTP/1.1\\r\\nHost: denied.test\\r\\n\\r\\n')\n"
                "ask('CONNECT good.test:%(p)d HTTP/1.1\\r\\nHost: good.test\\r\\n\\r\\n"
                "GET /smuggled HTTP/1.1\\r\\nHost: denied.test\\r\\n\\r\\n')\n"
                % {"p": self.port})
        r = self.py(code)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[:2], ["HTTP/1.1 403 Forbidden"] * 2, r.stdout + r.stderr)
        # The tunnel goes to the checked host only: whatever the client sends
        # inside reaches good.test's server, never denied.test.
        self.assertNotIn("/abs", self.server.paths)
        self.assertNotIn("/front", self.server.paths)

    def test_port_other_than_443_or_80_needs_an_entry_naming_it(self):
        self.user_config({"network": "scoped", "allowedDomains": ["good.test", "127.0.0.1"]})
        r = self.sx("curl -sS -m 10 %s" % self.url("good.test", "/port"))
        self.assertNotReached()
        self.assertIn("port %d is not allowed" % self.port, r.stdout)

    def test_socks5_with_authentication_or_to_a_denied_host_is_refused(self):
        self.scoped(["good.test"], loopback=True)
        code = ("import socket\n"
                "s=socket.create_connection(('127.0.0.1',3128),5)\n"
                "s.sendall(bytes([5,1,2]))\n"  # user/password only
                "print('auth', list(s.recv(2)))\n"
                "s=socket.create_connection(('127.0.0.1',3128),5)\n"
                "s.sendall(bytes([5,1,0]))\n"
                "s.recv(2)\n"
                "name=b'denied.test'\n"
                "s.sendall(bytes([5,1,0,3,len(name)])+name+(%d).to_bytes(2,'big'))\n"
                "print('denied', list(s.recv(10))[:2])\n" % self.port)
        r = self.py(code)
        self.assertIn("auth [5, 255]", r.stdout, r.stderr)
        self.assertIn("denied [5, 2]", r.stdout, r.stderr)
        self.assertNotReached()

    def test_garbage_gets_400_and_the_proxy_keeps_serving(self):
        self.scoped(["good.test"], loopback=True)
        code = ("import socket\n"
                "s=socket.create_connection(('127.0.0.1',3128),5)\n"
                "s.sendall(b'\\x16\\x03\\x01garbage\\r\\n\\r\\n')\n"
                "print(s.recv(4096).decode(errors='replace').split('\\r\\n')[0])\n")
        r = self.py(code + "import subprocess\nsubprocess.run(['curl','-sS','-m','10','%s'])\n"
                    % self.url("good.test", "/after"))
        self.assertIn("HTTP/1.1 400", r.stdout, r.stderr)
        self.assertEqual(self.server.paths, ["/after"])

    def test_fds_passed_to_the_proxy_socket_get_no_more_than_a_client(self):
        # The proxy's Unix socket is inside the sandbox (the forwarder hands
        # clients over it as SCM_RIGHTS). A program that finds it and passes
        # fds itself: a file is dropped, a socket it controls is a client
        # like any other (the policy applies), and the proxy keeps serving.
        self.scoped(["good.test"], loopback=True)
        code = ("import socket,array,re\n"
                "path=re.search(r' (/\\S*/\\.egress/\\S*\\.sock) ', open('/proc/self/mountinfo').read()).group(1)\n"
                "def hand(fd):\n"
                "    u=socket.socket(socket.AF_UNIX); u.connect(path)\n"
                "    u.sendmsg([b'\\0'],[(socket.SOL_SOCKET,socket.SCM_RIGHTS,array.array('i',[fd]))])\n"
                "    u.close()\n"
                "f=open('/etc/hostname','rb'); hand(f.fileno())\n"
                "a,b=socket.socketpair(); hand(b.fileno()); b.close()\n"
                "a.settimeout(10)\n"
                "a.sendall(b'CONNECT denied.test:%(p)d HTTP/1.1\\r\\n\\r\\n')\n"
                "print('denied:', a.recv(4096).decode().split('\\r\\n')[0])\n"
                "a,b=socket.socketpair(); hand(b.fileno()); b.close()\n"
                "a.settimeout(10)\n"
                "a.sendall(b'GET http://good.test:%(p)d/passed HTTP/1.1\\r\\nHost: good.test:%(p)d\\r\\n\\r\\n')\n"
                "print('allowed:', a.recv(4096).decode().split('\\r\\n')[0])\n"
                % {"p": self.port})
        r = self.py(code)
        self.assertIn("denied: HTTP/1.1 403 Forbidden", r.stdout, r.stderr)
        self.assertRegex(r.stdout, r"allowed: HTTP/1\.[01] 200", r.stderr)
        self.assertEqual(self.server.paths, ["/passed"])

    def test_network_deny_stays_closed(self):
        self.user_config({"network": "deny", "allowedDomains": ["good.test", "127.0.0.1"]})
        r = self.sx("echo $ZERO_SANDBOX_NETWORK; env | grep -ci _proxy=; curl -sS -m 5 -x %s %s"
                    % (PROXY, self.url("good.test", "/deny")))
        self.assertNotEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("deny\n0"), r.stdout)
        self.assertNotReached()

    def test_project_config_cannot_widen_the_list(self):
        self.scoped(["good.test"], loopback=True)
        os.makedirs(os.path.join(self.ws, ".zero"))
        with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
            json.dump({"sandbox": {"network": "allow",
                                   "allowedDomains": ["denied.test:%d" % self.port]}}, f)
        r = self.sx("curl -sS -m 10 %s; curl -sS -m 10 %s"
                    % (self.url("denied.test", "/widened"), self.url("good.test", "/narrowed")))
        self.assertNotIn("/widened", self.server.paths)
        # the project's list narrows: good.test is not on it, so it is refused too
        self.assertNotIn("/narrowed", self.server.paths, r.stdout)

    def test_malformed_pattern_fails_closed_with_a_clear_error(self):
        self.user_config({"network": "scoped", "allowedDomains": ["*bad*"]})
        r = self.sx("curl -sS -m 5 %s" % self.url("good.test", "/bad"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("malformed domain pattern", r.stderr)
        self.assertNotReached()


if __name__ == "__main__":
    unpriv.main(__file__)
