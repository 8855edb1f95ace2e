"""`zero auth` end to end (docs/auth.md): the real binary against a loopback
authorization server speaking RFC 8628 and RFC 6749/7636
(tests/e2e/fake_auth_server.py). The device flow with authorization_pending,
slow_down, access_denied and expired_token; the browser flow with PKCE and a
loopback redirect (the test plays the browser); status, refresh and logout;
the one token store; an http:// token endpoint on a non-loopback host
refused, configured or discovered."""
import json
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_auth_server.py")


def non_loopback_ip():
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("10.255.255.255", 1))
        ip = s.getsockname()[0]
        s.close()
        return None if ip.startswith("127.") else ip
    except OSError:
        return None


class AuthTest(harness.ZeroTest):
    def start_as(self, *flags):
        self.log = os.path.join(self.tmp, "as-log-%d.jsonl" % len(os.listdir(self.tmp)))
        p = subprocess.Popen([sys.executable, FAKE, self.log, *flags], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.terminate(), p.wait(5), p.stdout.close(), p.stderr.close()))
        line = p.stdout.readline()
        if not line.startswith("PORT "):
            self.fail("fake_auth_server.py did not start: %r %s" % (line, p.stderr.read()))
        self.issuer = "http://127.0.0.1:%d" % int(line.split()[1])

    def define(self, name="acme", **keys):
        """The provider through ZERO_OAUTH_<NAME>_* variables."""
        var = "ZERO_OAUTH_" + name.upper().replace("-", "_").replace(".", "_") + "_"
        self.env[var + "CLIENT_ID"] = "zero-cli"
        for k, v in keys.items():
            self.env[var + k.upper()] = v

    def entries(self, path=None):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            es = [json.loads(l) for l in f if l.strip()]
        return [e for e in es if path is None or e["path"] == path]

    def store(self):
        path = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "oauth-tokens.json")
        with open(path) as f:
            return path, json.load(f)

    def device_polls(self):
        return [e for e in self.entries("/token")
                if e["form"].get("grant_type") == "urn:ietf:params:oauth:grant-type:device_code"]

    # ---- the device flow ------------------------------------------------------------

    def test_device_flow_polls_until_approved_and_stores_the_tokens(self):
        self.start_as("--pending", "2")
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token",
                    scopes="read,write")
        r = self.zero("auth", "login", "acme", "--device", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("WDJB-MJHT", r.stdout)
        self.assertIn(self.issuer + "/activate", r.stdout)
        dev = self.entries("/device")[0]["form"]
        self.assertEqual(dev, {"client_id": "zero-cli", "scope": "read write"})
        polls = self.device_polls()
        self.assertEqual(len(polls), 3)  # two authorization_pending, then the tokens
        for p in polls:
            self.assertEqual(p["form"]["client_id"], "zero-cli")
            self.assertTrue(p["form"]["device_code"])
        # Polled no faster than the interval the server asked for (1 s).
        self.assertGreaterEqual(polls[0]["t"] - self.entries("/device")[0]["t"], 0.9)
        for a, b in zip(polls, polls[1:]):
            self.assertGreaterEqual(b["t"] - a["t"], 0.9)
        path, doc = self.store()
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertEqual(doc["schemaVersion"], 1)
        entry = doc["tokens"]["provider:acme"]
        self.assertTrue(entry["access_token"].startswith("at-"))
        self.assertTrue(entry["refresh_token"].startswith("rt-"))
        self.assertEqual(entry["token_endpoint"], self.issuer + "/token")
        self.assertNotIn(entry["access_token"], r.stdout + r.stderr)
        self.assertNotIn(entry["refresh_token"], r.stdout + r.stderr)

    def test_slow_down_adds_five_seconds_to_the_interval(self):
        self.start_as("--slow-down")
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token",
                    flow="device")
        r = self.zero("auth", "login", "acme", timeout=60)  # FLOW=device: no --device needed
        self.assertEqual(r.returncode, 0, r.stderr)
        polls = self.device_polls()
        self.assertEqual(len(polls), 2)
        gap = polls[1]["t"] - polls[0]["t"]
        self.assertGreaterEqual(gap, 5.9)  # 1 s + 5 s (RFC 8628 §3.5)
        self.assertLess(gap, 9)

    def test_denied_and_expired_device_codes_fail_without_tokens(self):
        for flag, words in (("--deny", "denied"), ("--expired", "expired")):
            with self.subTest(flag=flag):
                self.start_as(flag)
                self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token")
                r = self.zero("auth", "login", "acme", "--device", timeout=60)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn(words, r.stderr)
                self.assertEqual(len(self.device_polls()), 1)
                self.assertFalse(os.path.exists(
                    os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "oauth-tokens.json")))

    def test_expiry_is_checked_after_each_sleep(self):
        # The code lives 1 s and the interval is 2 s: it has expired when the
        # first sleep ends, so zero never polls with it.
        self.start_as("--pending", "100", "--interval", "2", "--device-expires-in", "1")
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token")
        r = self.zero("auth", "login", "acme", "--device", timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("expired", r.stderr)
        self.assertEqual(self.device_polls(), [])

    # ---- the browser flow -----------------------------------------------------------

    def test_browser_flow_with_pkce_and_a_loopback_redirect(self):
        self.start_as()
        self.define(issuer_url=self.issuer, scopes="profile")  # endpoints from RFC 8414 metadata
        p = self.spawn("auth", "login", "acme", "--timeout", "30")
        url = None
        while url is None:
            line = p.stdout.readline()
            if not line:
                break
            if line.strip().startswith(self.issuer + "/authorize"):
                url = line.strip()
        if not url:
            self.fail("no authorization URL: %s" % (p.communicate(),))
        self.assertIn("code_challenge_method=S256", url)
        with urllib.request.urlopen(url, timeout=10) as b:  # follows the redirect to zero
            page = b.read().decode()
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("authorized", page)
        self.assertIn("Logged in", out)
        tok = self.entries("/token")[0]["form"]
        self.assertEqual(tok["grant_type"], "authorization_code")
        self.assertGreaterEqual(len(tok["code_verifier"]), 43)
        _, doc = self.store()
        self.assertEqual(doc["tokens"]["provider:acme"]["scope"], "profile")

    # ---- status, refresh, logout ----------------------------------------------------

    def test_status_refresh_and_logout(self):
        self.start_as("--expires-in", "3600")
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token")
        self.assertEqual(self.zero("auth", "login", "acme", "--device", timeout=60).returncode, 0)
        _, doc = self.store()
        first = doc["tokens"]["provider:acme"]
        r = self.zero("auth", "status", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        st = json.loads(r.stdout)
        self.assertEqual([l["key"] for l in st["logins"]], ["provider:acme"])
        self.assertTrue(st["logins"][0]["refreshable"])
        self.assertFalse(st["logins"][0]["expired"])
        self.assertNotIn(first["access_token"], r.stdout)
        r = self.zero("auth", "status")
        self.assertIn("provider:acme", r.stdout)
        self.assertIn("refreshable", r.stdout)
        r = self.zero("auth", "refresh", "acme")
        self.assertEqual(r.returncode, 0, r.stderr)
        ref = [e["form"] for e in self.entries("/token") if e["form"]["grant_type"] == "refresh_token"]
        self.assertEqual(len(ref), 1)
        self.assertEqual(ref[0]["refresh_token"], first["refresh_token"])
        _, doc = self.store()
        second = doc["tokens"]["provider:acme"]
        self.assertNotEqual(second["access_token"], first["access_token"])
        self.assertNotIn(second["access_token"], r.stdout + r.stderr)
        r = self.zero("auth", "logout", "acme")
        self.assertEqual(r.returncode, 0)
        _, doc = self.store()
        self.assertEqual(doc["tokens"], {})
        r = self.zero("auth", "status", "acme")
        self.assertNotEqual(r.returncode, 0)

    def test_refresh_refused_by_the_issuer_says_to_log_in_again(self):
        self.start_as()
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token")
        self.assertEqual(self.zero("auth", "login", "acme", "--device", timeout=60).returncode, 0)
        path, doc = self.store()
        doc["tokens"]["provider:acme"]["refresh_token"] = "rt-revoked"
        with open(path, "w") as f:
            json.dump(doc, f)
        r = self.zero("auth", "refresh", "acme")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("invalid_grant", r.stderr)
        self.assertIn("zero auth login acme", r.stderr)

    def test_tokens_path_variable_moves_the_store(self):
        self.start_as()
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token")
        moved = os.path.join(self.tmp, "elsewhere", "tokens.json")
        self.env["ZERO_OAUTH_TOKENS_PATH"] = moved
        self.assertEqual(self.zero("auth", "login", "acme", "--device", timeout=60).returncode, 0)
        self.assertEqual(stat.S_IMODE(os.stat(moved).st_mode), 0o600)
        with open(moved) as f:
            self.assertIn("provider:acme", json.load(f)["tokens"])

    def test_provider_defined_in_the_user_config(self):
        self.start_as()
        self.user_config({"auth": {"providers": {"corp.eu": {
            "clientId": "zero-cli", "device_url": self.issuer + "/device",
            "tokenUrl": self.issuer + "/token", "flow": "device"}}}})
        r = self.zero("auth", "login", "corp.eu", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        _, doc = self.store()
        self.assertIn("provider:corp.eu", doc["tokens"])
        r = self.zero("doctor")
        self.assertNotIn('unknown key "auth', r.stdout + r.stderr)

    # ---- refusals -------------------------------------------------------------------

    def test_http_token_endpoint_on_a_non_loopback_host_is_refused(self):
        ip = non_loopback_ip() or "192.0.2.10"
        self.start_as()
        self.define(device_url=self.issuer + "/device", token_url="http://%s:9/token" % ip)
        r = self.zero("auth", "login", "acme", "--device", timeout=30)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("token endpoint", r.stderr)
        self.assertIn("not https", r.stderr)
        self.assertEqual(self.entries(), [])  # not even the device code was asked for

    def test_discovered_http_token_endpoint_is_refused(self):
        ip = non_loopback_ip() or "192.0.2.10"
        self.start_as("--metadata-token-url", "http://%s:9/token" % ip)
        self.define(issuer_url=self.issuer)
        r = self.zero("auth", "login", "acme", "--device", timeout=30)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("not https", r.stderr)
        self.assertEqual([e["path"] for e in self.entries()],
                         ["/.well-known/oauth-authorization-server"])

    # ---- a provider profile with "auth": "oauth:<name>" -----------------------------

    def oauth_profile(self, turns):
        """A logged-in provider acme, and a model profile whose bearer is its
        token (no API key anywhere: the fake's OPENAI_* variables are gone)."""
        self.start_as("--expires-in", "3600")
        self.define(device_url=self.issuer + "/device", token_url=self.issuer + "/token")
        r = self.zero("auth", "login", "acme", "--device", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        model = self.serve(turns)
        for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.user_config({"activeProvider": "corp", "providers": [{
            "name": "corp", "provider_kind": "openai-compatible", "baseURL": model.base_url,
            "model": "test-model", "auth": "oauth:acme"}]})
        return model

    def model_auth(self, model):
        return [r["headers"].get("Authorization") or r["headers"].get("authorization")
                for r in model.requests() if r.get("method") == "POST"]

    def refreshes(self):
        return [e for e in self.entries("/token") if e["form"]["grant_type"] == "refresh_token"]

    def test_profile_sends_the_login_token_as_its_bearer(self):
        model = self.oauth_profile([{"text": "hello from the model"}])
        _, doc = self.store()
        token = doc["tokens"]["provider:acme"]["access_token"]
        r = self.zero("exec", "say hi", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("hello from the model", r.stdout)
        self.assertEqual(self.model_auth(model), ["Bearer " + token])
        self.assertEqual(self.refreshes(), [])  # valid for an hour: not refreshed
        self.assertNotIn(token, r.stdout + r.stderr)

    def test_profile_refreshes_an_expired_token_before_use(self):
        model = self.oauth_profile([{"text": "ok"}])
        path, doc = self.store()
        old = doc["tokens"]["provider:acme"]
        old["expires_at"] = int(time.time()) - 10
        with open(path, "w") as f:
            json.dump(doc, f)
        r = self.zero("exec", "say hi", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([e["form"]["refresh_token"] for e in self.refreshes()],
                         [old["refresh_token"]])
        _, doc = self.store()
        new = doc["tokens"]["provider:acme"]["access_token"]
        self.assertNotEqual(new, old["access_token"])
        self.assertEqual(self.model_auth(model), ["Bearer " + new])

    def test_profile_refreshes_once_after_a_401_and_retries(self):
        model = self.oauth_profile([{"status": 401}, {"text": "second try"}])
        _, doc = self.store()
        old = doc["tokens"]["provider:acme"]["access_token"]
        r = self.zero("exec", "say hi", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("second try", r.stdout)
        self.assertEqual(len(self.refreshes()), 1)
        _, doc = self.store()
        new = doc["tokens"]["provider:acme"]["access_token"]
        self.assertEqual(self.model_auth(model), ["Bearer " + old, "Bearer " + new])

    def test_profile_401_after_the_refresh_says_to_log_in(self):
        model = self.oauth_profile([{"status": 401}, {"status": 401}, {"text": "never"}])
        r = self.zero("exec", "say hi", timeout=60)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("zero auth login acme", r.stderr)
        self.assertEqual(len(self.refreshes()), 1)  # once, not in a loop
        self.assertEqual(len(self.model_auth(model)), 2)

    def test_doctor_sends_the_login_token_as_a_bearer_for_every_kind(self):
        model = self.oauth_profile([{"text": "unused"}])
        _, doc = self.store()
        token = doc["tokens"]["provider:acme"]["access_token"]
        self.user_config({"activeProvider": "corp", "providers": [{
            "name": "corp", "provider_kind": "anthropic-compatible", "baseURL": model.base_url,
            "model": "test-model", "auth": "oauth:acme"}]})
        r = self.zero("doctor", "--connectivity", timeout=60)
        self.assertIn('OAuth login "acme"', r.stdout)
        gets = [q for q in model.requests() if q.get("method") == "GET"]
        self.assertTrue(gets, r.stdout + r.stderr)
        for q in gets:
            h = {k.lower(): v for k, v in q["headers"].items()}
            self.assertEqual(h.get("authorization"), "Bearer " + token)
            self.assertNotIn("x-api-key", h)
        self.assertNotIn(token, r.stdout + r.stderr)

    def test_profile_without_a_login_says_to_log_in(self):
        model = self.serve([{"text": "never"}])
        for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
            self.env.pop(k, None)
        self.user_config({"activeProvider": "corp", "providers": [{
            "name": "corp", "provider_kind": "openai-compatible", "baseURL": model.base_url,
            "model": "test-model", "auth": "oauth:acme"}]})
        r = self.zero("exec", "say hi", timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("zero auth login acme", r.stderr)
        self.assertEqual(model.requests(), [])

    def test_project_config_may_not_set_a_profile_auth(self):
        os.makedirs(os.path.join(self.work, ".zero"))
        with open(os.path.join(self.work, ".zero", "config.json"), "w") as f:
            json.dump({"providers": [{"name": "corp", "auth": "oauth:acme"}]}, f)
        r = self.zero("exec", "say hi", timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('sets "auth", which a project config may not set', r.stderr)

    # ---- `zero mcp login --device` ------------------------------------------------------

    def mcp_server(self, **oauth):
        """An MCP server entry whose authorization server is the fake (the
        fake answers the server URL's probe with 401 and has no resource
        metadata, so its configured issuer is asked)."""
        self.server_url = self.issuer + "/mcp"
        self.user_config({"mcp": {"servers": {"tools": {
            "type": "http", "url": self.server_url,
            "oauth": dict({"clientID": "zero-cli"}, **oauth)}}}})

    def test_mcp_login_device_flow(self):
        self.start_as("--pending", "1")
        self.mcp_server(issuerURL=self.issuer, scopes=["mcp:tools"])
        r = self.zero("mcp", "login", "tools", "--device", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("WDJB-MJHT", r.stdout)
        self.assertIn(self.issuer + "/activate", r.stdout)
        dev = self.entries("/device")[0]["form"]
        self.assertEqual(dev, {"client_id": "zero-cli", "scope": "mcp:tools",
                               "resource": self.server_url})
        polls = self.device_polls()
        self.assertEqual(len(polls), 2)  # one authorization_pending, then the tokens
        self.assertEqual(polls[-1]["form"]["resource"], self.server_url)
        self.assertEqual(self.entries("/authorize"), [])  # no browser step
        _, doc = self.store()
        entry = doc["tokens"]["mcp:tools"]
        self.assertTrue(entry["access_token"].startswith("at-"))
        self.assertEqual(entry["server_url"], self.server_url)
        self.assertEqual(entry["token_endpoint"], self.issuer + "/token")
        self.assertNotIn(entry["access_token"], r.stdout + r.stderr)
        # And it refreshes like any MCP login.
        r = self.zero("auth", "refresh", "mcp:tools")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.refreshes()), 1)

    def test_mcp_login_device_without_a_device_endpoint_says_so(self):
        self.start_as()
        self.mcp_server(authorizationEndpoint=self.issuer + "/authorize",
                        tokenEndpoint=self.issuer + "/token")
        r = self.zero("mcp", "login", "tools", "--device", timeout=60)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("no device authorization endpoint", r.stderr)
        self.assertEqual(self.entries("/token"), [])

    def test_undefined_provider_and_bad_names(self):
        r = self.zero("auth", "login", "nobody")
        self.assertEqual(r.returncode, 3)
        self.assertIn("ZERO_OAUTH_NOBODY_CLIENT_ID", r.stderr)
        r = self.zero("auth", "login", "../etc")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a provider name", r.stderr)
        r = self.zero("auth", "login")
        self.assertEqual(r.returncode, 2)
        r = self.zero("auth", "status")
        self.assertEqual(r.returncode, 0)
        self.assertIn("No OAuth logins", r.stdout)


if __name__ == "__main__":
    harness.main()
