"""The MCP Inspector's CLI (@modelcontextprotocol/inspector 0.15.0, the
newest that runs on node 20) lists and calls zero's tools, resources and
prompts, over stdio (`zero serve --mcp`) and over Streamable HTTP
(`zero serve --mcp --http`), as issue 20 asks. The Inspector is installed
with npm into tests/e2e/.npm/inspector-0.15.0 (gitignored) once; the test is
skipped, saying why, when node/npm are missing or the install fails."""
import fcntl
import json
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
import harness  # noqa: E402
import serve_client as sc  # noqa: E402

VERSION = "0.15.0"
PREFIX = os.path.join(HERE, ".npm", "inspector-" + VERSION)
BIN = os.path.join(PREFIX, "node_modules", ".bin", "mcp-inspector")


def require_inspector():
    if not shutil.which("node") or not shutil.which("npm"):
        raise unittest.SkipTest("node/npm not installed: the MCP Inspector CLI needs them")
    os.makedirs(PREFIX, exist_ok=True)
    with open(os.path.join(PREFIX, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(BIN):
            r = subprocess.run(["npm", "install", "--prefix", PREFIX, "--no-audit", "--no-fund",
                                "--no-save", "@modelcontextprotocol/inspector@" + VERSION],
                               capture_output=True, text=True, timeout=600)
            if r.returncode != 0 or not os.path.exists(BIN):
                raise unittest.SkipTest("npm install of the MCP Inspector failed (offline?): "
                                        + (r.stderr or r.stdout)[-500:])


class Inspector(harness.ZeroTest):
    def setUp(self):
        super().setUp()
        require_inspector()
        with open(os.path.join(self.work, "hello.txt"), "w") as f:
            f.write("hello from the workspace\n")
        cmds = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "commands")
        os.makedirs(cmds)
        with open(os.path.join(cmds, "explain.md"), "w") as f:
            f.write("---\ndescription: Explain a file\n---\nPlease explain $ARGUMENTS now.\n")

    def inspect(self, target, *args):
        """Runs the Inspector CLI on target (a command list or a URL) and
        returns its JSON output."""
        argv = [BIN, "--cli"]
        if isinstance(target, str):
            argv.append(target)
        else:
            for k in ("HOME", "XDG_CONFIG_HOME"):
                argv += ["-e", "%s=%s" % (k, self.env[k])]
            argv += target
        r = subprocess.run(argv + list(args), cwd=self.work, env=dict(self.env),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout[-1500:] + r.stderr[-1500:])
        return json.loads(r.stdout)

    def check(self, target):
        tools = [t["name"] for t in self.inspect(target, "--method", "tools/list")["tools"]]
        self.assertIn("read_file", tools)
        self.assertNotIn("write_file", tools)  # read-only tools by default
        r = self.inspect(target, "--method", "tools/call", "--tool-name", "read_file",
                         "--tool-arg", "path=hello.txt")
        self.assertIn("hello from the workspace", r["content"][0]["text"])
        self.assertFalse(r["isError"])
        uri = "file://" + os.path.realpath(self.work) + "/hello.txt"
        res = self.inspect(target, "--method", "resources/list")["resources"]
        self.assertIn(uri, [x["uri"] for x in res])
        r = self.inspect(target, "--method", "resources/read", "--uri", uri)
        self.assertEqual(r["contents"][0]["text"], "hello from the workspace\n")
        t = self.inspect(target, "--method", "resources/templates/list")["resourceTemplates"]
        self.assertTrue(t[0]["uriTemplate"].endswith("{+path}"))
        prompts = self.inspect(target, "--method", "prompts/list")["prompts"]
        self.assertEqual([p["name"] for p in prompts], ["explain"])
        r = self.inspect(target, "--method", "prompts/get", "--prompt-name", "explain",
                         "--prompt-args", "arguments=main.c")
        self.assertEqual(r["messages"][0]["content"]["text"].strip(), "Please explain main.c now.")

    def test_over_stdio(self):
        self.check([harness.ZERO_BIN, "serve", "--mcp"])

    def test_over_http(self):
        p, _, port = sc.start(harness.ZERO_BIN, ["--http", "0"], self.work, self.env)
        self.addCleanup(sc.stop, p)
        self.assertIsNotNone(port)
        self.check("http://127.0.0.1:%d/mcp" % port)


if __name__ == "__main__":
    harness.main()
