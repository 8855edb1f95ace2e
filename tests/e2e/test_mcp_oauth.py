"""MCP authorization end to end: `zero mcp login` against a loopback OAuth
authorization server and an OAuth-protected MCP server (tests/e2e/mcp/
fake_oauth.py). The test plays the browser: it fetches the printed
authorization URL and follows the redirect to zero's loopback callback."""
import base64
import hashlib
import json
import os
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "fake_oauth.py")


class OAuthTest(harness.ZeroTest):
    def start_fake(self, *flags):
        self.log = os.path.join(self.tmp, "oauth-log.jsonl")
        p = subprocess.Popen([sys.executable, FAKE, self.log, *flags], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stdout.close(), p.stderr.close()))
        line = p.stdout.readline()
        if not line.startswith("PORTS "):
            self.fail("fake_oauth.py did not start: %r %s" % (line, p.stderr.read()))
        self.mcp_port, self.as_port = map(int, line.split()[1:])
        self.url = "http://127.0.0.1:%d/mcp" % self.mcp_port
        d = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {"prot": {"type": "http", "url": self.url}}}}, f)

    def entries(self, server=None, path=None):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            es = [json.loads(l) for l in f if l.strip()]
        return [e for e in es if (server is None or e["server"] == server)
                and (path is None or e["path"] == path)]

    def last_call_auth(self):
        """The Authorization header of the last tools/call the fake MCP server got."""
        calls = [e for e in self.entries("mcp", "/mcp")
                 if (e.get("json") or {}).get("method") == "tools/call"]
        return calls[-1]["auth"] if calls else None

    def token_file(self):
        """The one token store (src/oauth/store.c); this server's entry is "mcp:prot"."""
        return os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "oauth-tokens.json")

    def has_tokens(self):
        if not os.path.exists(self.token_file()):
            return False
        with open(self.token_file()) as f:
            return "mcp:prot" in json.load(f)["tokens"]

    def write_tokens(self, entry):
        with open(self.token_file()) as f:
            doc = json.load(f)
        doc["tokens"]["mcp:prot"] = entry
        with open(self.token_file(), "w") as f:
            json.dump(doc, f)

    def login(self, browse=True):
        """Runs zero mcp login, plays the browser; returns (rc, stdout, stderr, browser_status)."""
        p = subprocess.Popen([harness.ZERO_BIN, "mcp", "login", "prot", "--timeout", "30"],
                             cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, url = [], None
        deadline = time.time() + 30
        while time.time() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            out.append(line)
            if line.strip().startswith("http://127.0.0.1:%d/authorize" % self.as_port):
                url = line.strip()
                break
        status = None
        if url and browse:
            try:
                with urllib.request.urlopen(url, timeout=10) as r:  # follows the 302 to zero
                    status = r.status
                    r.read()
            except urllib.error.HTTPError as e:
                status = e.code
        try:
            rest, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rest, err = p.communicate()
        return p.returncode, "".join(out) + rest, err, status, url

    def test_login_pkce_state_registration_then_bearer_tool_calls(self):
        self.start_fake()
        rc, out, err, status, url = self.login()
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(status, 200)
        self.assertIn("Logged in", out)
        # Discovery went 401 → resource metadata → issuer metadata.
        probe = self.entries("mcp", "/mcp")[0]
        self.assertIsNone(probe["auth"])
        self.assertTrue(self.entries("mcp", "/.well-known/oauth-protected-resource/mcp"))
        self.assertTrue(self.entries("as", "/.well-known/oauth-authorization-server"))
        # Dynamic registration as a public loopback client.
        reg = self.entries("as", "/register")[0]["json"]
        self.assertEqual(reg["token_endpoint_auth_method"], "none")
        self.assertRegex(reg["redirect_uris"][0], r"^http://127\.0\.0\.1:\d+/callback$")
        # PKCE S256: the verifier sent to the token endpoint hashes to the challenge.
        auth = self.entries("as", "/authorize")[0]["query"]
        self.assertEqual(auth["code_challenge_method"], "S256")
        self.assertGreaterEqual(len(auth["state"]), 22)
        self.assertEqual(auth["redirect_uri"], reg["redirect_uris"][0])
        self.assertEqual(auth["resource"], self.url)
        tok = self.entries("as", "/token")[0]["form"]
        want = base64.urlsafe_b64encode(hashlib.sha256(tok["code_verifier"].encode()).digest())
        self.assertEqual(want.rstrip(b"=").decode(), auth["code_challenge"])
        self.assertNotIn(tok["code_verifier"], url)
        # Tokens stored 0600.
        st = os.stat(self.token_file())
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        saved = self.read_tokens()
        self.assertTrue(saved["access_token"].startswith("at-"))
        # A tool call carries the bearer token.
        r = self.zero("mcp", "call", "prot", "whoami")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.last_call_auth(), "Bearer " + saved["access_token"])
        # The server echoes it; zero never prints its own token (redacted).
        self.assertIn("hello, holder of [REDACTED]", r.stdout)
        self.assertNotIn(saved["access_token"], r.stdout + r.stderr)
        # And through the agent: the model calls the tool, the result comes back.
        self.zero("mcp", "grant", "prot")
        model = self.serve([{"tool_calls": [{"name": "mcp_prot_whoami", "arguments": {}}]},
                            {"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "who am i", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        tool_msgs = [m for m in model.bodies()[1]["messages"] if m.get("role") == "tool"]
        self.assertIn("hello, holder of [REDACTED]", tool_msgs[0]["content"])
        self.assertNotIn(saved["access_token"], json.dumps(model.bodies()))
        # Logout removes the tokens.
        r = self.zero("mcp", "logout", "prot")
        self.assertEqual(r.returncode, 0)
        self.assertFalse(self.has_tokens())

    def test_the_offered_browser_opens_the_url_and_takes_none_of_zeros_signals(self):
        """On a terminal with a display, zero offers to open the browser;
        Enter accepts. xdg-open (a fake here, on PATH) gets the URL and plays
        the browser, and it starts with nothing ignored or blocked: zero
        ignores SIGPIPE, and a browser that inherited that would not die on
        a closed pipe."""
        import pty
        self.start_fake()
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        seen = os.path.join(self.tmp, "opener-signals")
        opener = os.path.join(bin_dir, "xdg-open")
        with open(opener, "w") as f:
            f.write("#!/bin/sh\ngrep -E '^Sig(Ign|Blk)' /proc/self/status > %s\n"
                    "exec %s -c 'import sys, urllib.request; "
                    "urllib.request.urlopen(sys.argv[1], timeout=10).read()' \"$1\"\n"
                    % (seen, sys.executable))
        os.chmod(opener, 0o755)
        self.env["PATH"] = bin_dir + os.pathsep + self.env["PATH"]
        self.env["DISPLAY"] = ":99"
        master, slave = pty.openpty()
        p = subprocess.Popen([harness.ZERO_BIN, "mcp", "login", "prot", "--timeout", "30"],
                             cwd=self.work, env=self.env, stdin=slave, stdout=subprocess.PIPE,
                             stderr=slave, text=True)
        os.close(slave)
        os.write(master, b"\n")  # the terminal buffers the answer until zero asks
        try:
            out, _ = p.communicate(timeout=60)
        finally:
            os.close(master)
        self.assertEqual(p.returncode, 0, out)
        self.assertIn("Logged in", out)
        self.assertTrue(self.has_tokens())
        with open(seen) as f:
            self.assertEqual(f.read(), "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")

    def test_exec_without_login_says_how_to_log_in(self):
        self.start_fake()
        self.serve([{"text": "done"}])
        r = self.zero("exec", "-o", "stream-json", "hi", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        warns = [e["message"] for e in self.lines(r.stdout) if e["type"] == "warning"]
        self.assertTrue(any("zero mcp login prot" in w for w in warns), warns)

    def test_auth_oauth_without_login_fails_before_connecting(self):
        self.start_fake()
        with open(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {"prot": {"type": "http", "url": self.url,
                                                     "auth": "oauth"}}}}, f)
        r = self.zero("mcp", "tools", "prot")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("needs an OAuth login", r.stderr)
        self.assertIn("zero mcp login prot", r.stderr)
        self.assertEqual(self.entries("mcp"), [])

    def test_login_to_a_server_without_auth_says_none_is_needed(self):
        self.start_fake()
        with open(os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json"), "w") as f:
            json.dump({"mcp": {"servers": {"prot": {"type": "http",
                                                     "url": "http://127.0.0.1:%d/open" % self.mcp_port}}}}, f)
        r = self.zero("mcp", "login", "prot", "--timeout", "5")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("needs no login", r.stderr)
        self.assertEqual(self.entries("as"), [])
        self.assertFalse(os.path.exists(self.token_file()))

    def read_tokens(self):
        with open(self.token_file()) as f:
            doc = json.load(f)
        self.assertEqual(doc["schemaVersion"], 1)
        return doc["tokens"]["mcp:prot"]

    def test_token_refreshed_before_expiry(self):
        self.start_fake("--expires-in", "30")
        rc, out, err, _, _ = self.login()
        self.assertEqual(rc, 0, out + err)
        saved = self.read_tokens()
        first = saved["access_token"]
        # A fresh 30 s token is used as is (refreshed at half its life, not every use).
        r = self.zero("mcp", "call", "prot", "whoami")
        self.assertEqual(self.last_call_auth(), "Bearer " + first)
        self.assertNotIn(first, r.stdout)
        # Time passes: 25 s later, 5 s are left, less than half its life — refreshed first.
        saved["obtained_at"] = int(time.time()) - 25
        saved["expires_at"] = int(time.time()) + 5
        self.write_tokens(saved)
        r = self.zero("mcp", "call", "prot", "whoami")
        self.assertEqual(r.returncode, 0, r.stderr)
        grants = [e["form"]["grant_type"] for e in self.entries("as", "/token")]
        self.assertEqual(grants, ["authorization_code", "refresh_token"])
        second = self.read_tokens()["access_token"]
        self.assertNotEqual(first, second)
        self.assertEqual(self.last_call_auth(), "Bearer " + second)
        self.assertNotIn(second, r.stdout)
        self.assertEqual(stat.S_IMODE(os.stat(self.token_file()).st_mode), 0o600)

    def test_token_endpoint_redirect_is_refused(self):
        self.start_fake("--redirect-token")
        rc, out, err, _, _ = self.login()
        self.assertNotEqual(rc, 0)
        self.assertIn("redirect", err)
        self.assertEqual(self.entries("as", "/elsewhere"), [])
        self.assertFalse(os.path.exists(self.token_file()))

    def test_state_mismatch_is_refused(self):
        self.start_fake("--bad-state")
        rc, out, err, status, _ = self.login()
        self.assertNotEqual(rc, 0)
        self.assertEqual(status, 400)
        self.assertIn("state", err)
        self.assertEqual(self.entries("as", "/token"), [])
        self.assertFalse(os.path.exists(self.token_file()))

    def test_issuer_without_s256_is_refused(self):
        self.start_fake("--no-s256")
        rc, out, err, _, url = self.login(browse=False)
        self.assertNotEqual(rc, 0)
        self.assertIsNone(url)
        self.assertIn("S256", err)



class RealSdkOAuth(harness.ZeroTest):
    """Against an OAuth set-up zero did not write: the official TypeScript
    SDK's example server (simpleStreamableHttp.js --oauth --oauth-strict), an
    authorization server with discovery, dynamic client registration and
    PKCE, and an MCP server that accepts only tokens issued for it."""

    def test_login_and_call_against_the_sdk_example_server(self):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp"))
        from npm_setup import require_npm
        nm = require_npm(self)
        example = os.path.join(nm, "@modelcontextprotocol/sdk/dist/esm/examples/server/"
                               "simpleStreamableHttp.js")
        if not os.path.exists(example):
            self.skipTest("the pinned SDK ships no examples/server/simpleStreamableHttp.js")
        ports = [harness.free_port(), harness.free_port()]
        env = dict(os.environ, MCP_PORT=str(ports[0]), MCP_AUTH_PORT=str(ports[1]))
        p = subprocess.Popen(["node", example, "--oauth", "--oauth-strict"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stdout.close()))
        ready = set()
        deadline = time.time() + 30
        while len(ready) < 2 and time.time() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            if "listening on port" in line:
                ready.add(line.split("listening")[0])
        self.assertEqual(len(ready), 2, "the SDK example server did not start")
        url = "http://localhost:%d/mcp" % ports[0]
        self.assertEqual(self.zero("mcp", "add", "sec", "--url", url).returncode, 0)
        r = self.zero("mcp", "call", "sec", "greet", '{"name":"QA"}')
        self.assertEqual(r.returncode, 3)
        self.assertIn("zero mcp login sec", r.stderr)

        login = subprocess.Popen([harness.ZERO_BIN, "mcp", "login", "sec", "--no-browser",
                                  "--timeout", "30"], cwd=self.work, env=self.env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        auth_url = None
        deadline = time.time() + 30
        while time.time() < deadline:
            line = login.stdout.readline()
            if not line:
                break
            if line.strip().startswith("http://localhost:%d/authorize" % ports[1]):
                auth_url = line.strip()
                break
        self.assertTrue(auth_url, "zero printed no authorization URL")
        self.assertIn("code_challenge_method=S256", auth_url)
        with urllib.request.urlopen(auth_url, timeout=10) as b:  # the demo approves at once
            b.read()
        out, err = login.communicate(timeout=30)
        self.assertEqual(login.returncode, 0, err)
        tok = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "oauth-tokens.json")
        self.assertEqual(stat.S_IMODE(os.stat(tok).st_mode), 0o600)
        with open(tok) as f:
            self.assertIn("mcp:sec", json.load(f)["tokens"])
        r = self.zero("mcp", "call", "sec", "greet", '{"name":"QA"}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Hello, QA!", r.stdout)


if __name__ == "__main__":
    harness.main()
