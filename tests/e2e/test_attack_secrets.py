"""Attack tests: zero's credentials never reach a child, never get printed,
and never cross the network in clear (issue 14, holes 4, 7 and 8).

Each test asserts the effect on the host: what the child's `env` wrote to a
file, what `zero mcp list` printed, which requests a local server received.
Run as root, then again as uid 65534 (setpriv), like test_sandbox_attacks.py.
"""
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import unpriv  # noqa: E402

UNPRIV = os.environ.get("ZERO_E2E_UNPRIV") == "1"
PY = "/usr/bin/python3"
FAKE_MCP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "fake_mcp_server.py")
FAKE_AS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_auth_server.py")
CLIENT_SECRET = "oauthcs-7d6c5b4a3928"

PROVIDER_KEY = "prov-9f8e7d6c5b4a39281706"        # under a name no pattern catches
MCP_SECRET = "mcpsrv-0a1b2c3d4e5f60718293"         # an MCP server's env value
URL_TOKEN = "urltok-55aa66bb77cc88dd"
HEADER_TOKEN = "hdrtok-11ee22ff33aa44bb"


def local_non_loopback_ip():
    """An address of this machine that is not loopback (no packet is sent),
    or None."""
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("10.255.255.255", 1))
        ip = s.getsockname()[0]
        s.close()
        return None if ip.startswith("127.") else ip
    except OSError:
        return None


class Recorder(http.server.BaseHTTPRequestHandler):
    """A local OAuth / MCP server that records every request it gets."""
    routes = {}
    seen = []

    def log_message(self, *a):
        pass

    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n else ""
        self.seen.append({"method": self.command, "path": self.path,
                          "host": self.headers.get("Host"), "body": body})
        status, headers, payload = self.routes.get(self.path.split("?")[0], (404, {}, {}))
        data = json.dumps(payload).encode()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer


class SecretsAttacks(harness.ZeroTest):
    def setUp(self):
        super().setUp()
        self.cfg_dir = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(self.cfg_dir)

    def write_config(self, doc):
        with open(os.path.join(self.cfg_dir, "config.json"), "w") as f:
            json.dump(doc, f)

    def start_recorder(self, bind="0.0.0.0"):
        handler = type("R", (Recorder,), {"routes": {}, "seen": []})
        srv = http.server.ThreadingHTTPServer((bind, 0), handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(lambda: (srv.shutdown(), srv.server_close()))
        return srv.server_address[1], handler

    def env_of(self, path):
        with open(path) as f:
            return f.read()

    # ---- hole 4: keys reach sandboxed commands ----------------------------------------

    def test_declared_key_never_reaches_a_sandboxed_command(self):
        self.write_config({
            "providers": [{"name": "work", "provider_kind": "openai-compatible",
                           "baseURL": "http://127.0.0.1:9/v1", "apiKeyEnv": "WORKPROV",
                           "model": "m"}],
            "mcp": {"servers": {"slack": {"command": "true", "env": {"SLACKBOT": MCP_SECRET}}}}})
        self.env.update({"WORKPROV": PROVIDER_KEY, "SLACKBOT": MCP_SECRET,
                         "ALIAS_OF_KEY": PROVIDER_KEY, "DB_PASS": "dbpass-value-1234",
                         "SMTP_PASSWORD": "smtp-value-1234", "APP_PRIVATE": "private-value-1234",
                         "GOOGLE_APPLICATION_CREDENTIALS": "/creds.json",
                         "GIT_AUTHOR_NAME": "Ann Author", "GOPRIVATE": "corp.example/*"})
        out = os.path.join(self.work, "child-env.txt")
        r = self.zero("sandbox", "exec", "--", "sh", "-c", "env > %s" % out)
        self.assertEqual(r.returncode, 0, r.stderr)
        seen = self.env_of(out)
        for value in (PROVIDER_KEY, MCP_SECRET, "dbpass-value", "smtp-value", "private-value",
                      "/creds.json"):
            self.assertNotIn(value, seen)
        # What ordinary tools need is still there.
        self.assertIn("GIT_AUTHOR_NAME=Ann Author", seen)
        self.assertIn("GOPRIVATE=corp.example/*", seen)
        self.assertIn("PATH=", seen)

    def test_exec_command_child_of_the_agent_sees_no_key(self):
        self.write_config({"providers": [{"name": "work", "provider_kind": "openai-compatible",
                                          "apiKeyEnv": "WORKPROV", "model": "m"}]})
        self.env["WORKPROV"] = PROVIDER_KEY
        out = os.path.join(self.work, "agent-child-env.txt")
        model = self.serve([{"tool_calls": [{"name": "exec_command",
                                             "arguments": {"cmd": "env > %s" % out}}]},
                            {"text": "done"}])
        # The fake model is reached through the OPENAI_* variables: the
        # provider profile only declares WORKPROV.
        self.env["OPENAI_API_KEY"] = PROVIDER_KEY
        r = self.zero("exec", "--permission-mode", "auto", "-o", "json", "run env", timeout=90)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertTrue(os.path.exists(out), r.stdout)
        self.assertNotIn(PROVIDER_KEY, self.env_of(out))
        self.assertNotIn(PROVIDER_KEY, json.dumps(model.bodies()[1:]))

    def test_mcp_server_gets_its_own_env_and_no_other_server_does(self):
        a_env = os.path.join(self.work, "a-env.txt")
        b_env = os.path.join(self.work, "b-env.txt")
        # The servers run in the sandbox, where /tmp is private: a checkout
        # under /tmp is not there, the workspace is.
        server = os.path.join(self.work, "fake_mcp_server.py")
        shutil.copy(FAKE_MCP, server)
        wrap = "env > %s; exec " + PY + " " + server + " hang /dev/null"
        self.write_config({"mcp": {"servers": {
            "a": {"command": "sh", "args": ["-c", wrap % a_env], "env": {"SLACKBOT": MCP_SECRET}},
            "b": {"command": "sh", "args": ["-c", wrap % b_env]}}}})
        self.env["SLACKBOT"] = MCP_SECRET  # also in zero's own environment
        for name in ("a", "b"):
            r = self.zero("mcp", "tools", name, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("SLACKBOT=" + MCP_SECRET, self.env_of(a_env))
        self.assertNotIn(MCP_SECRET, self.env_of(b_env))

    # ---- hole 8: secrets printed ----------------------------------------------------------

    def test_mcp_list_never_prints_url_tokens_headers_or_userinfo(self):
        self.write_config({"mcp": {"servers": {
            "remote": {"type": "http", "url": "https://mcp.example.com/sse?token=" + URL_TOKEN,
                       "headers": {"Authorization": "Bearer " + HEADER_TOKEN}},
            "basic": {"type": "http", "url": "https://bob:%s@mcp.example.com/" % HEADER_TOKEN},
            "local": {"command": "server", "args": ["--api-key", HEADER_TOKEN]}}}})
        for args in (("mcp", "list"), ("mcp", "list", "--json")):
            r = self.zero(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            shown = r.stdout + r.stderr
            self.assertNotIn(URL_TOKEN, shown)
            self.assertNotIn(HEADER_TOKEN, shown)
            self.assertIn("mcp.example.com", shown)  # still useful
            self.assertIn("REDACTED", shown)

    def test_providers_listing_never_prints_url_credentials(self):
        self.write_config({"providers": [{
            "name": "gw", "provider_kind": "openai-compatible",
            "baseURL": "https://bob:%s@gw.example.com/v1?api_key=%s" % (HEADER_TOKEN, URL_TOKEN),
            "apiKeyEnv": "WORKPROV", "model": "m"}]})
        self.env["WORKPROV"] = PROVIDER_KEY
        for args in (("providers", "list"), ("providers", "list", "--json")):
            r = self.zero(*args)
            shown = r.stdout + r.stderr
            self.assertIn("gw.example.com", shown)
            for secret in (URL_TOKEN, HEADER_TOKEN, PROVIDER_KEY):
                self.assertNotIn(secret, shown)

    # ---- hole 7: OAuth in clear --------------------------------------------------------

    def test_configured_http_token_endpoint_is_refused_before_any_request(self):
        ip = local_non_loopback_ip()
        if not ip:
            self.skipTest("no non-loopback address on this machine")
        port, rec = self.start_recorder()
        self.write_config({"mcp": {"servers": {"s": {
            "type": "http", "url": "http://127.0.0.1:%d/mcp" % port,
            "oauth": {"clientID": "zero-test", "clientSecret": "client-secret-abcdef",
                      "authorizationEndpoint": "https://auth.example.com/authorize",
                      "tokenEndpoint": "http://%s:%d/token" % (ip, port)}}}}})
        r = self.zero("mcp", "login", "s", "--timeout", "5")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("token endpoint", r.stderr)
        self.assertIn("not https", r.stderr)
        self.assertEqual(rec.seen, [])
        self.assertNotIn("client-secret-abcdef", r.stdout + r.stderr)

    def test_discovered_http_endpoints_are_refused_before_credentials_are_sent(self):
        ip = local_non_loopback_ip()
        if not ip:
            self.skipTest("no non-loopback address on this machine")
        port, rec = self.start_recorder()
        loop = "http://127.0.0.1:%d" % port
        far = "http://%s:%d" % (ip, port)
        rec.routes.update({
            "/mcp": (401, {"WWW-Authenticate": 'Bearer resource_metadata="%s/prm"' % loop},
                     {"error": "unauthorized"}),
            "/prm": (200, {}, {"resource": loop + "/mcp", "authorization_servers": [loop]}),
            "/.well-known/oauth-authorization-server": (200, {}, {
                "issuer": loop, "authorization_endpoint": far + "/authorize",
                "token_endpoint": far + "/token", "registration_endpoint": far + "/register",
                "code_challenge_methods_supported": ["S256"]}),
        })
        self.write_config({"mcp": {"servers": {"s": {"type": "http", "url": loop + "/mcp"}}}})
        r = self.zero("mcp", "login", "s", "--timeout", "5")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not https", r.stderr)
        paths = [e["path"] for e in rec.seen]
        for p in ("/token", "/register", "/authorize"):
            self.assertNotIn(p, paths)
        self.assertNotIn(ip, " ".join(e["host"] or "" for e in rec.seen))

    def test_http_server_url_is_refused_for_login(self):
        ip = local_non_loopback_ip()
        if not ip:
            self.skipTest("no non-loopback address on this machine")
        port, rec = self.start_recorder()
        self.write_config({"mcp": {"servers": {"s": {"type": "http",
                                                     "url": "http://%s:%d/mcp" % (ip, port)}}}})
        r = self.zero("mcp", "login", "s", "--timeout", "5")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not https", r.stderr)
        self.assertEqual(rec.seen, [])

    # ---- zero auth: the OAuth token store --------------------------------------------

    def oauth_login(self):
        """Logs in to provider "acme" with the device flow against the fake
        authorization server; returns the stored entry."""
        log = os.path.join(self.work, "as.jsonl")
        p = subprocess.Popen([PY, FAKE_AS, log], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stdout.close(), p.stderr.close()))
        issuer = "http://127.0.0.1:%s" % p.stdout.readline().split()[1]
        self.env.update({"ZERO_OAUTH_ACME_CLIENT_ID": "zero-cli",
                         "ZERO_OAUTH_ACME_CLIENT_SECRET": CLIENT_SECRET,
                         "ZERO_OAUTH_ACME_DEVICE_URL": issuer + "/device",
                         "ZERO_OAUTH_ACME_TOKEN_URL": issuer + "/token"})
        r = self.zero("auth", "login", "acme", "--device", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        path = self.env.get("ZERO_OAUTH_TOKENS_PATH") or os.path.join(self.cfg_dir,
                                                                      "oauth-tokens.json")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(path).st_uid, os.getuid())
        with open(path) as f:
            entry = json.load(f)["tokens"]["provider:acme"]
        for v in (entry["access_token"], entry["refresh_token"], CLIENT_SECRET):
            self.assertNotIn(v, r.stdout + r.stderr)
        return path, entry

    def test_oauth_tokens_never_reach_a_sandboxed_command(self):
        # The default store (in the hidden config dir) and one moved into
        # the workspace with ZERO_OAUTH_TOKENS_PATH (the host's /tmp is
        # private in the sandbox, the workspace is not): a sandboxed command
        # can read neither, nor replace the moved one, and sees no
        # ZERO_OAUTH_* variable (the client secret).
        for moved in (None, os.path.join(self.work, "oauth", "tokens.json")):
            with self.subTest(moved=moved):
                if moved:
                    self.env["ZERO_OAUTH_TOKENS_PATH"] = moved
                path, entry = self.oauth_login()
                out = os.path.join(self.work, "seen.txt")
                r = self.zero("sandbox", "exec", "--", "sh", "-c",
                              "{ env; cat %s; cat %s/oauth-tokens.json; } > %s 2>&1; "
                              "echo planted > %s; true" % (path, self.cfg_dir, out, path))
                self.assertEqual(r.returncode, 0, r.stderr)
                seen = self.env_of(out)
                self.assertIn("PATH=", seen)
                for v in (entry["access_token"], entry["refresh_token"], CLIENT_SECRET,
                          "ZERO_OAUTH_"):
                    self.assertNotIn(v, seen)
                with open(path) as f:
                    self.assertIn("provider:acme", json.load(f)["tokens"])

    def test_oauth_tokens_never_reach_the_debug_log(self):
        path, entry = self.oauth_login()
        self.env["ZERO_LOG"] = "debug"
        self.env["ZERO_LOG_BODIES"] = "1"
        for args in (("auth", "refresh", "acme"), ("auth", "status", "--json")):
            r = self.zero(*args, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            new = json.load(f)["tokens"]["provider:acme"]
        self.assertNotEqual(new["access_token"], entry["access_token"])
        logf = os.path.join(self.home, ".local", "state", "zero", "logs", "zero.log")
        with open(logf) as f:
            logged = f.read()
        self.assertIn("/token", logged)  # the refresh request is in the log …
        for v in (entry["access_token"], entry["refresh_token"], new["access_token"],
                  new["refresh_token"], CLIENT_SECRET):
            self.assertNotIn(v, logged)  # … never a credential

    def test_profile_oauth_token_never_reaches_the_agents_commands_or_the_log(self):
        # A provider profile whose bearer is the login's token ("auth":
        # "oauth:acme"); the model first refuses it (401: zero refreshes and
        # retries), then has the agent run `env`. Neither token, old or
        # renewed, reaches the command's environment, the requests' bodies
        # or the debug log with bodies on.
        path, entry = self.oauth_login()
        out = os.path.join(self.work, "agent-child-env.txt")
        model = self.serve([{"status": 401},
                            {"tool_calls": [{"name": "exec_command",
                                             "arguments": {"cmd": "env > %s" % out}}]},
                            {"text": "done"}])
        for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.write_config({"activeProvider": "corp", "providers": [{
            "name": "corp", "provider_kind": "openai-compatible", "baseURL": model.base_url,
            "model": "test-model", "auth": "oauth:acme"}]})
        self.env["ZERO_LOG"] = "debug"
        self.env["ZERO_LOG_BODIES"] = "1"
        r = self.zero("exec", "--permission-mode", "auto", "-o", "json", "run env", timeout=90)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        with open(path) as f:
            new = json.load(f)["tokens"]["provider:acme"]
        self.assertNotEqual(new["access_token"], entry["access_token"])  # the 401 renewed it
        sent = [q["headers"].get("Authorization") for q in model.requests()
                if q.get("method") == "POST"]
        self.assertEqual(sent[0], "Bearer " + entry["access_token"])
        self.assertEqual(sent[1:], ["Bearer " + new["access_token"]] * 2)
        self.assertTrue(os.path.exists(out), r.stdout)
        seen = self.env_of(out)
        self.assertIn("PATH=", seen)
        logf = os.path.join(self.home, ".local", "state", "zero", "logs", "zero.log")
        with open(logf) as f:
            logged = f.read()
        self.assertIn("/token", logged)
        for v in (entry["access_token"], entry["refresh_token"], new["access_token"],
                  new["refresh_token"], CLIENT_SECRET):
            self.assertNotIn(v, seen)
            self.assertNotIn(v, logged)
            self.assertNotIn(v, r.stdout + r.stderr)
            self.assertNotIn(v, json.dumps(model.bodies()))

    def test_private_key_jwt_assertion_and_key_never_reach_the_log(self):
        # `zero mcp login` of a machine-to-machine server whose client
        # authenticates with private_key_jwt: the signed assertion (a
        # bearer credential while it lives), the key and the token go to
        # the token endpoint only, never to the debug log or the terminal.
        port, rec = self.start_recorder("127.0.0.1")
        base = "http://127.0.0.1:%d" % port
        rec.routes.update({
            "/mcp": (401, {"WWW-Authenticate": "Bearer"}, {}),
            "/.well-known/oauth-authorization-server": (200, {}, {
                "issuer": base, "authorization_endpoint": base + "/authorize",
                "token_endpoint": base + "/token", "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"]}),
            "/token": (200, {}, {"access_token": "m2m-at-3c4d5e6f7a8b9c0d",
                                 "token_type": "Bearer", "expires_in": 3600})})
        key = os.path.join(self.home, "client-key.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-out", key], check=True, capture_output=True)
        with open(key) as f:
            pem_body = f.read().splitlines()[1]
        self.write_config({"mcp": {"servers": {"m2m": {
            "type": "http", "url": base + "/mcp",
            "oauth": {"clientID": "m2m-client", "privateKeyFile": key}}}}})
        self.env["ZERO_LOG"] = "debug"
        self.env["ZERO_LOG_BODIES"] = "1"
        r = self.zero("mcp", "login", "m2m", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        token_req = [q for q in rec.seen if q["path"] == "/token"]
        self.assertEqual(len(token_req), 1)
        form = dict(p.split("=", 1) for p in token_req[0]["body"].split("&"))
        self.assertEqual(form["client_assertion_type"],
                         "urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer")
        assertion = form["client_assertion"]
        self.assertEqual(assertion.count("."), 2)
        self.assertNotIn("client_secret", form)
        logf = os.path.join(self.home, ".local", "state", "zero", "logs", "zero.log")
        with open(logf) as f:
            logged = f.read()
        self.assertIn("/token", logged)
        for v in (assertion, assertion.split(".")[2], pem_body, "m2m-at-3c4d5e6f7a8b9c0d"):
            self.assertNotIn(v, logged)
            self.assertNotIn(v, r.stdout + r.stderr)

    # ---- programs zero runs for the user (exec/capture.h) --------------------------

    def test_git_clone_for_a_plugin_gets_no_credentials(self):
        """`zero plugins install URL` runs git through exec/capture, outside
        the sandbox: the provider's keys (declared or by pattern) and the
        OAuth store's location must not be in its environment."""
        self.write_config({"providers": [{"name": "work", "provider_kind": "openai-compatible",
                                          "apiKeyEnv": "WORKPROV", "model": "m"}]})
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        seen_path = os.path.join(self.tmp, "git-env.txt")
        with open(os.path.join(bindir, "git"), "w") as f:
            # records what git would get, then fails as an unreachable remote does
            f.write("#!/bin/sh\nenv > %s\necho 'fatal: unable to access' >&2\nexit 128\n"
                    % seen_path)
        os.chmod(os.path.join(bindir, "git"), 0o755)
        self.env.update({"PATH": bindir + ":" + self.env.get("PATH", "/usr/bin:/bin"),
                         "WORKPROV": PROVIDER_KEY, "OPENAI_API_KEY": "sk-openai-9a8b7c6d5e4f",
                         "ANTHROPIC_API_KEY": "sk-ant-1122334455", "DB_PASS": "dbpass-value-1234",
                         "GIT_AUTHOR_NAME": "Ann Author"})
        r = self.zero("plugins", "install", "https://git.example.invalid/team/plugin.git")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("git clone", r.stderr)
        self.assertTrue(os.path.exists(seen_path), r.stderr)  # git did run
        seen = self.env_of(seen_path)
        for value in (PROVIDER_KEY, "sk-openai-9a8b7c6d5e4f", "sk-ant-1122334455",
                      "dbpass-value"):
            self.assertNotIn(value, seen)
        # what git itself needs is still there
        self.assertIn("GIT_AUTHOR_NAME=Ann Author", seen)
        self.assertIn("PATH=" + bindir, seen)

    def xaa_server(self, idp_token_endpoint=None):
        """A recorder playing the MCP server, its authorization server and
        the enterprise IdP; the config for cross-app access to it."""
        port, rec = self.start_recorder("127.0.0.1")
        base = "http://127.0.0.1:%d" % port
        rec.routes.update({
            "/mcp": (401, {"WWW-Authenticate": "Bearer"}, {}),
            "/.well-known/oauth-authorization-server": (200, {}, {
                "issuer": base, "authorization_endpoint": base + "/authorize",
                "token_endpoint": base + "/token",
                "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
            "/idp/token": (200, {}, {"access_token": "idjag-5e6f7a8b9c0d1e2f",
                                     "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                                     "token_type": "N_A"}),
            "/token": (200, {}, {"access_token": "xaa-at-9a8b7c6d5e4f",
                                 "token_type": "Bearer", "expires_in": 3600})})
        id_token = os.path.join(self.home, "id_token")
        with open(id_token, "w") as f:
            f.write("idtok-0f1e2d3c4b5a69788796\n")
        self.write_config({"mcp": {"servers": {"corp": {
            "type": "http", "url": base + "/mcp",
            "oauth": {"clientID": "xaa-client", "clientSecret": "xaa-secret-a1b2c3d4",
                      "idp": {"tokenEndpoint": idp_token_endpoint or base + "/idp/token",
                              "clientID": "idp-client", "idTokenFile": id_token}}}}}})
        return base, rec

    def test_cross_app_access_credentials_never_reach_the_log(self):
        base, rec = self.xaa_server()
        self.env["ZERO_LOG"] = "debug"
        self.env["ZERO_LOG_BODIES"] = "1"
        r = self.zero("mcp", "login", "corp", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        forms = {q["path"]: dict(urllib.parse.parse_qsl(q["body"])) for q in rec.seen
                 if q["method"] == "POST" and q["path"] != "/mcp"}
        self.assertEqual(forms["/idp/token"]["subject_token"], "idtok-0f1e2d3c4b5a69788796")
        self.assertEqual(forms["/idp/token"]["audience"], base)
        self.assertEqual(forms["/idp/token"]["resource"], base + "/mcp")
        self.assertEqual(forms["/token"]["assertion"], "idjag-5e6f7a8b9c0d1e2f")
        self.assertNotIn("client_secret", forms["/token"])  # Basic, as the metadata lists
        with open(os.path.join(self.cfg_dir, "oauth-tokens.json")) as f:
            self.assertEqual(json.load(f)["tokens"]["mcp:corp"]["access_token"],
                             "xaa-at-9a8b7c6d5e4f")
        logf = os.path.join(self.home, ".local", "state", "zero", "logs", "zero.log")
        with open(logf) as f:
            logged = f.read()
        self.assertIn("/idp/token", logged)
        for v in ("idtok-0f1e2d3c4b5a69788796", "idjag-5e6f7a8b9c0d1e2f", "xaa-at-9a8b7c6d5e4f",
                  "xaa-secret-a1b2c3d4"):
            self.assertNotIn(v, logged)
            self.assertNotIn(v, r.stdout + r.stderr)

    def test_cross_app_access_refuses_an_http_idp_before_sending_the_id_token(self):
        ip = local_non_loopback_ip() or "192.0.2.10"
        base, rec = self.xaa_server("http://%s:9/token" % ip)
        r = self.zero("mcp", "login", "corp", timeout=60)
        self.assertEqual(r.returncode, 3, r.stderr + r.stdout)
        self.assertIn("not https", r.stderr)
        self.assertNotIn("idtok-0f1e2d3c4b5a69788796", json.dumps(rec.seen))
        self.assertEqual([q for q in rec.seen if q["path"] == "/token"], [])


if __name__ == "__main__":
    unpriv.main(__file__)
