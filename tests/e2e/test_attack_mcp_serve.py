"""Attacks on `zero serve --mcp --http`: a web page rebinding its name to
127.0.0.1, a client without the bearer token, a resource URI that climbs
out of the workspace or follows a link to a secret, a tool the server does
not expose. Each test asserts the effect on the host (the file an attacker
wanted written is absent, the secret is not in any answer) and runs as
root and as uid 65534 (unpriv.main)."""
import json
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
import serve_client as sc  # noqa: E402
import unpriv  # noqa: E402

ZERO_BIN = unpriv.zero_bin()
BASE = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
SECRET = "plain words the redactor keeps 4711"
TOKEN = "e2e-token-0123456789abcdef"


class ServeAttack(unittest.TestCase):
    def setUp(self):
        unpriv.attack_root(self, "zero-amcp-", BASE)
        self.env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
                    "XDG_CACHE_HOME": os.path.join(self.home, ".cache"), "LANG": "C.UTF-8"}
        self.secret_file = os.path.join(self.outside, "secret.txt")
        with open(self.secret_file, "w") as f:
            f.write(SECRET + "\n")

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def start(self, *args, env=None):
        p, _, port = sc.start(ZERO_BIN, ["--http", "0"] + list(args), self.ws, env or self.env)
        self.addCleanup(sc.stop, p)
        self.assertIsNotNone(port, "zero serve did not start")
        c = sc.Conn(port)
        self.addCleanup(c.close)
        return c

    def write_call(self, name):
        return {"name": "write_file", "arguments": {"path": name, "content": "pwned\n"}}

    def test_dns_rebinding_cannot_reach_the_tools(self):
        c = self.start("--allow-unsafe-tools")
        _, sid = sc.initialize(c)
        evil = [{"Origin": "http://evil.example"},
                {"Host": "evil.example:%d" % c.port},
                {"Host": "evil.example", "Origin": "http://evil.example"},
                {"Origin": "null"}]
        for i, h in enumerate(evil):
            with self.subTest(headers=h):
                r = sc.rpc(c, sid, "tools/call", self.write_call("evil%d.txt" % i), headers=h)
                self.assertEqual(r.status, 403)
                self.assertFalse(os.path.exists(os.path.join(self.ws, "evil%d.txt" % i)))
        r, _ = sc.initialize(c, headers={"Host": "evil.example"})
        self.assertEqual(r.status, 403)
        # A loopback Origin is the legitimate case, and it does reach the tool.
        r = sc.rpc(c, sid, "tools/call", self.write_call("ok.txt"),
                   headers={"Origin": "http://localhost:6274"})
        self.assertEqual(r.status, 200, r.body)
        self.assertTrue(os.path.exists(os.path.join(self.ws, "ok.txt")))

    def test_bearer_token_is_required_when_set(self):
        c = self.start("--allow-unsafe-tools", env=dict(self.env, ZERO_SERVE_TOKEN=TOKEN))
        r, sid = sc.initialize(c)
        self.assertEqual(r.status, 401)
        self.assertIn("Bearer", r.header("www-authenticate"))
        self.assertIsNone(sid)
        wrong = "x" * len(TOKEN)
        for auth in (None, "Bearer " + wrong, "Basic " + TOKEN, "Bearer " + TOKEN[:-1]):
            r, _ = sc.initialize(c, headers={"Authorization": auth})
            self.assertEqual(r.status, 401, auth)
        good = {"Authorization": "Bearer " + TOKEN}
        r, sid = sc.initialize(c, headers=good)
        self.assertEqual(r.status, 200)
        r = sc.rpc(c, sid, "tools/call", self.write_call("no.txt"),
                   headers={"Authorization": "Bearer " + wrong})
        self.assertEqual(r.status, 401)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "no.txt")))
        r = sc.rpc(c, sid, "tools/call", self.write_call("yes.txt"), headers=good)
        self.assertEqual(r.status, 200)
        self.assertTrue(os.path.exists(os.path.join(self.ws, "yes.txt")))

    def test_non_loopback_bind_needs_a_strong_token(self):
        for args, env in ((["--bind", "0.0.0.0"], self.env),
                          (["--bind", "0.0.0.0"], dict(self.env, ZERO_SERVE_TOKEN="short")),
                          (["--http", "0.0.0.0:0"], self.env)):
            with self.subTest(args=args, token="ZERO_SERVE_TOKEN" in env):
                argv = [ZERO_BIN, "serve", "--mcp", "--http", "0"] + args
                r = subprocess.run(argv, cwd=self.ws, env=env, capture_output=True, text=True,
                                   timeout=30)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("token", r.stderr)
                self.assertNotIn("Streamable HTTP at", r.stderr)
        token_file = os.path.join(self.home, "token")
        with open(token_file, "w") as f:
            f.write(TOKEN + "\n")
        c = self.start("--bind", "0.0.0.0", "--token-file", token_file)
        r, _ = sc.initialize(c)
        self.assertEqual(r.status, 401)
        r, _ = sc.initialize(c, headers={"Authorization": "Bearer " + TOKEN})
        self.assertEqual(r.status, 200)

    def test_resources_stay_in_the_workspace_and_obey_deny_read(self):
        os.symlink(self.secret_file, os.path.join(self.ws, "link.txt"))
        os.makedirs(os.path.join(self.ws, "secrets"))
        key = os.path.join(self.ws, "secrets", "prod.env")
        with open(key, "w") as f:
            f.write(SECRET + "\n")
        os.link(key, os.path.join(self.ws, "copy.env"))
        os.makedirs(os.path.join(self.ws, ".zero"))
        with open(os.path.join(self.ws, ".zero", "config.json"), "w") as f:
            json.dump({"sandbox": {"denyRead": ["secrets"]}}, f)
        with open(os.path.join(self.ws, "fine.txt"), "w") as f:
            f.write("fine\n")
        c = self.start()
        _, sid = sc.initialize(c)
        ws = "file://" + os.path.realpath(self.ws)
        listing = sc.rpc(c, sid, "resources/list").body.decode()
        self.assertIn("fine.txt", listing)
        self.assertNotIn("prod.env", listing)
        attempts = [ws + "/../outside/secret.txt", ws + "/%2e%2e/outside/secret.txt",
                    "file://" + os.path.realpath(self.secret_file), ws + "/link.txt",
                    ws + "/secrets/prod.env", ws + "/copy.env", ws + "/fine.txt%00.x",
                    "file:///etc/passwd"]
        for uri in attempts:
            with self.subTest(uri=uri):
                r = sc.rpc(c, sid, "resources/read", {"uri": uri})
                self.assertNotIn(SECRET, r.body.decode())
                self.assertIn("error", r.json())
        r = sc.rpc(c, sid, "resources/read", {"uri": ws + "/fine.txt"}).json()
        self.assertEqual(r["result"]["contents"][0]["text"], "fine\n")

    def test_tools_not_exposed_stay_unreachable(self):
        c = self.start()  # read-only tools only
        _, sid = sc.initialize(c)
        r = sc.rpc(c, sid, "tools/call", self.write_call("w.txt")).json()
        self.assertIn("not exposed", r["error"]["message"])
        r = sc.rpc(c, sid, "tools/call", {"name": "exec_command",
                                          "arguments": {"command": "touch %s/x" % self.outside}})
        self.assertIn("error", r.json())
        self.assertFalse(os.path.exists(os.path.join(self.ws, "w.txt")))
        self.assertFalse(os.path.exists(os.path.join(self.outside, "x")))


if __name__ == "__main__":
    unpriv.main(__file__)
