#!/usr/bin/env python3
"""The conformance suite's client under test: `conformance client --command
"zero_client.py" --scenario S` runs it with the scenario's server URL as the
last argument. It uses zero as a user would — `zero mcp add`, `zero mcp
login` (playing the browser: it opens the printed authorization URL, whose
redirect reaches zero's loopback callback), `zero mcp tools`, `zero mcp
call` for every tool — in a private HOME, so nothing of the real user's
config is read or written. MCP_CONFORMANCE_CONTEXT (JSON: a pre-registered
client's id and secret, …) goes into the server's `oauth` settings, as a
user would write them. Exit status: 0 when every step worked."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ZERO = os.environ.get("ZERO_BIN") or os.path.join(HERE, "..", "..", "build", "zero")
NAME = "conf"
CIMD_URL = "https://conformance-test.local/client-metadata.json"


T0 = time.monotonic()


def log(*a):
    print("zero_client: %6.2fs" % (time.monotonic() - T0), *a, file=sys.stderr, flush=True)


class Client:
    def __init__(self, url):
        self.url = url
        self.root = tempfile.mkdtemp(prefix="zero-conformance-")
        self.work = os.path.join(self.root, "work")
        os.makedirs(self.work)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ZERO_", "XDG_", "OPENAI_", "ANTHROPIC_"))}
        self.env.update(HOME=self.root, XDG_CONFIG_HOME=os.path.join(self.root, "config"),
                        XDG_DATA_HOME=os.path.join(self.root, "data"),
                        XDG_STATE_HOME=os.path.join(self.root, "state"),
                        XDG_CACHE_HOME=os.path.join(self.root, "cache"))
        if os.environ.get("ZERO_LOG"):
            self.env["ZERO_LOG"] = os.environ["ZERO_LOG"]

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def zero(self, *args, timeout=60):
        r = subprocess.run([ZERO, *args], cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=timeout)
        log("zero", *args, "->", r.returncode)
        if r.stdout.strip():
            log("  stdout:", r.stdout.strip()[-2000:])
        if r.stderr.strip():
            log("  stderr:", r.stderr.strip()[-2000:])
        return r

    def configure(self, context):
        r = self.zero("mcp", "add", NAME, "--url", self.url)
        if r.returncode != 0:
            return False
        # The Client ID Metadata Document the suite's issuers accept (the
        # suite's own clients use this URL); zero uses it where an issuer
        # advertises client_id_metadata_document_supported.
        oauth = {"clientMetadataURL": CIMD_URL}
        if context.get("client_id"):
            oauth["clientID"] = context["client_id"]
        if context.get("client_secret"):
            oauth["clientSecret"] = context["client_secret"]
        if context.get("private_key_pem"):
            # private_key_jwt (client-credentials-jwt): the key in a 0600
            # file, as a user keeps one.
            oauth["privateKeyFile"] = self.secret_file("client-key.pem",
                                                       context["private_key_pem"])
            if context.get("signing_algorithm"):
                oauth["signingAlgorithm"] = context["signing_algorithm"]
        if context.get("idp_id_token"):
            # Cross-app access: the ID token the user's SSO login left.
            oauth["idp"] = {"issuerURL": context["idp_issuer"],
                            "clientID": context["idp_client_id"],
                            "idTokenFile": self.secret_file("id-token", context["idp_id_token"])}
            if context.get("idp_token_endpoint"):
                oauth["idp"]["tokenEndpoint"] = context["idp_token_endpoint"]
        if oauth:
            path = os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json")
            with open(path) as f:
                cfg = json.load(f)
            cfg["mcp"]["servers"][NAME]["oauth"] = oauth
            with open(path, "w") as f:
                json.dump(cfg, f)
        return True

    def secret_file(self, name, text):
        path = os.path.join(self.root, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return path

    def login(self):
        """zero mcp login, with this script as the browser."""
        p = subprocess.Popen([ZERO, "mcp", "login", NAME, "--no-browser", "--timeout", "20"],
                             cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = []
        for line in p.stdout:
            out.append(line)
            s = line.strip()
            if s.startswith(("http://", "https://")) and "redirect_uri=" in s:
                try:
                    with urllib.request.urlopen(s, timeout=15) as resp:
                        resp.read()
                except (urllib.error.URLError, OSError) as e:
                    log("browser:", e)
                break
        try:
            rest, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rest, err = p.communicate()
        log("zero mcp login ->", p.returncode, ("".join(out) + rest).strip()[-1500:], err.strip()[-1500:])
        return p.returncode == 0

    def tools(self):
        r = self.zero("mcp", "tools", NAME, "--json")
        if r.returncode != 0 and "zero mcp login" in r.stderr:
            if not self.login():
                return None
            r = self.zero("mcp", "tools", NAME, "--json")
        if r.returncode != 0:
            return None
        try:
            listed = json.loads(r.stdout)
        except ValueError:
            return None
        return listed.get("tools", listed) if isinstance(listed, dict) else listed


def sample_arguments(schema):
    """Arguments that satisfy a tool's input schema well enough to call it."""
    args = {}
    props = (schema or {}).get("properties") or {}
    for name in (schema or {}).get("required") or []:
        kind = (props.get(name) or {}).get("type")
        args[name] = {"number": 1, "integer": 1, "boolean": True, "array": [],
                      "object": {}}.get(kind, "x")
    return args


def main():
    url = sys.argv[-1]
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    log("scenario", os.environ.get("MCP_CONFORMANCE_SCENARIO"), "url", url)
    c = Client(url)
    try:
        if not c.configure(context):
            return 1
        tools = c.tools()
        if tools is None:
            return 1
        ok = True
        for t in tools:
            name = t.get("name")
            args = json.dumps(sample_arguments(t.get("inputSchema")))
            r = c.zero("mcp", "call", NAME, name, args, "--accept-defaults", timeout=120)
            if r.returncode == 3 and "zero mcp login" in r.stderr and c.login():
                # As a user does when told to log in again (a wider scope).
                r = c.zero("mcp", "call", NAME, name, args, "--accept-defaults", timeout=120)
            ok = ok and r.returncode in (0, 1)
        return 0 if ok else 1
    finally:
        c.close()


def record_status(rc):
    """Leaves the exit status where the e2e test reads it (the suite records
    only the checks, not whether the client itself succeeded)."""
    d = os.environ.get("ZERO_CONFORMANCE_STATUS_DIR")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "unknown")
    if d:
        with open(os.path.join(d, scenario.replace("/", "_") + ".exit"), "w") as f:
            f.write("%d\n" % rc)


if __name__ == "__main__":
    code = main()
    record_status(code)
    sys.exit(code)
