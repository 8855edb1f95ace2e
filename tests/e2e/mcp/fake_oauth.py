"""A loopback OAuth 2.1 authorization server and an OAuth-protected MCP server
(Streamable HTTP, JSON answers) for the MCP authorization tests.

  python3 fake_oauth.py LOG [--expires-in N] [--redirect-token] [--bad-state]
                            [--no-s256]

Prints "PORTS <mcp_port> <as_port>" once both listen. Every request is
appended to LOG as one JSON line {"server", "method", "path", "query", "form",
"json", "auth"} so the tests can check what zero sent.

Authorization server (its own port, issuer http://127.0.0.1:<as_port>):
  GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
  POST /register      RFC 7591; redirect URIs must be http://127.0.0.1:<port>/…
  GET  /authorize     checks response_type, client, redirect_uri, PKCE S256,
                      state and resource; redirects to redirect_uri with a code
                      (--bad-state: with another state)
  POST /token         authorization_code (checks code, client, redirect_uri,
                      code_verifier against the challenge, resource) and
                      refresh_token grants; --redirect-token answers 302 instead
MCP server (the protected resource, http://127.0.0.1:<mcp_port>/mcp):
  GET  /.well-known/oauth-protected-resource/mcp  RFC 9728 metadata
  POST /open          answers without asking for authorization
  POST /mcp           401 + WWW-Authenticate without a valid unexpired token;
                      else initialize, tools/list (tool "whoami"), tools/call
"""
import base64
import hashlib
import json
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
ARGS = sys.argv[2:]
EXPIRES_IN = int(ARGS[ARGS.index("--expires-in") + 1]) if "--expires-in" in ARGS else 3600
REDIRECT_TOKEN = "--redirect-token" in ARGS
BAD_STATE = "--bad-state" in ARGS
NO_S256 = "--no-s256" in ARGS

lock = threading.Lock()
clients = {}    # client_id -> registration
codes = {}      # code -> grant
access = {}     # token -> expiry (time)
refresh = {}    # refresh token -> client_id
ports = {}


def log(entry):
    with lock, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def resource_url():
    return "http://127.0.0.1:%d/mcp" % ports["mcp"]


def issuer():
    return "http://127.0.0.1:%d" % ports["as"]


class Handler(BaseHTTPRequestHandler):
    server_name_ = "?"

    def log_message(self, *a):
        pass

    def reply(self, status, body=None, headers=()):
        data = b""
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if body is not None and not any(k.lower() == "content-type" for k, _ in headers):
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode() if n else ""

    def record(self, body):
        u = urllib.parse.urlsplit(self.path)
        entry = {"server": self.server_name_, "method": self.command, "path": u.path,
                 "query": dict(urllib.parse.parse_qsl(u.query)),
                 "auth": self.headers.get("Authorization")}
        ctype = self.headers.get("Content-Type") or ""
        if ctype.startswith("application/x-www-form-urlencoded"):
            entry["form"] = dict(urllib.parse.parse_qsl(body))
        elif body:
            try:
                entry["json"] = json.loads(body)
            except ValueError:
                entry["raw"] = body
        log(entry)
        return u, entry

    def do_GET(self):
        self.handle_any("")

    def do_POST(self):
        self.handle_any(self.read_body())

    def do_DELETE(self):
        self.handle_any("")


class AuthServer(Handler):
    server_name_ = "as"

    def oauth_error(self, error, desc, status=400):
        self.reply(status, {"error": error, "error_description": desc})

    def handle_any(self, body):
        u, e = self.record(body)
        if u.path == "/.well-known/oauth-authorization-server":
            md = {"issuer": issuer(), "authorization_endpoint": issuer() + "/authorize",
                  "token_endpoint": issuer() + "/token",
                  "registration_endpoint": issuer() + "/register",
                  "response_types_supported": ["code"],
                  "grant_types_supported": ["authorization_code", "refresh_token"],
                  "code_challenge_methods_supported": ["plain"] if NO_S256 else ["S256"],
                  "token_endpoint_auth_methods_supported": ["none"]}
            return self.reply(200, md)
        if u.path == "/register" and self.command == "POST":
            reg = e.get("json") or {}
            uris = reg.get("redirect_uris") or []
            if not uris or not all(x.startswith("http://127.0.0.1:") for x in uris):
                return self.oauth_error("invalid_redirect_uri", "loopback redirect URIs only")
            cid = "client-" + secrets.token_hex(6)
            clients[cid] = reg
            return self.reply(201, dict(reg, client_id=cid, client_id_issued_at=int(time.time())))
        if u.path == "/authorize":
            q = e["query"]
            c = clients.get(q.get("client_id"))
            problems = []
            if q.get("response_type") != "code":
                problems.append("response_type")
            if not c or q.get("redirect_uri") not in c["redirect_uris"]:
                problems.append("client_id/redirect_uri")
            if q.get("code_challenge_method") != "S256" or len(q.get("code_challenge", "")) != 43:
                problems.append("pkce")
            if not q.get("state"):
                problems.append("state")
            if q.get("resource") != resource_url():
                problems.append("resource")
            if problems:
                return self.reply(400, {"error": "invalid_request", "problems": problems})
            code = secrets.token_urlsafe(16)
            codes[code] = dict(q)
            state = "forged-" + q["state"] if BAD_STATE else q["state"]
            loc = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": state})
            return self.reply(302, None, [("Location", loc)])
        if u.path == "/token" and self.command == "POST":
            if REDIRECT_TOKEN:
                return self.reply(302, None, [("Location", issuer() + "/elsewhere")])
            f = e.get("form") or {}
            if f.get("grant_type") == "authorization_code":
                g = codes.pop(f.get("code", ""), None)
                if not g:
                    return self.oauth_error("invalid_grant", "unknown or used code")
                want = base64.urlsafe_b64encode(
                    hashlib.sha256(f.get("code_verifier", "").encode()).digest()).rstrip(b"=")
                if want.decode() != g["code_challenge"]:
                    return self.oauth_error("invalid_grant", "PKCE verification failed")
                if f.get("client_id") != g["client_id"] or f.get("redirect_uri") != g["redirect_uri"]:
                    return self.oauth_error("invalid_grant", "client or redirect_uri differs")
                if f.get("resource") != resource_url():
                    return self.oauth_error("invalid_target", "wrong resource")
                cid = g["client_id"]
            elif f.get("grant_type") == "refresh_token":
                cid = refresh.pop(f.get("refresh_token", ""), None)
                if not cid or cid != f.get("client_id"):
                    return self.oauth_error("invalid_grant", "unknown refresh token")
            else:
                return self.oauth_error("unsupported_grant_type", f.get("grant_type", ""))
            tok, rt = "at-" + secrets.token_hex(8), "rt-" + secrets.token_hex(8)
            access[tok] = time.time() + EXPIRES_IN
            refresh[rt] = cid
            return self.reply(200, {"access_token": tok, "token_type": "Bearer",
                                    "expires_in": EXPIRES_IN, "refresh_token": rt,
                                    "scope": "mcp"})
        return self.reply(404, {"error": "not found"})


class McpServer(Handler):
    server_name_ = "mcp"

    def handle_any(self, body):
        u, e = self.record(body)
        if u.path == "/.well-known/oauth-protected-resource/mcp":
            return self.reply(200, {"resource": resource_url(), "authorization_servers": [issuer()],
                                    "scopes_supported": ["mcp"],
                                    "bearer_methods_supported": ["header"]})
        if u.path == "/open":  # an MCP endpoint that needs no authorization
            msg = e.get("json") or {}
            return self.reply(200, {"jsonrpc": "2.0", "id": msg.get("id"), "result": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "serverInfo": {"name": "open", "version": "1"}}})
        if u.path != "/mcp":
            return self.reply(404, {"error": "not found"})
        auth = self.headers.get("Authorization") or ""
        tok = auth[7:] if auth.startswith("Bearer ") else None
        if not tok or access.get(tok, 0) < time.time():
            md = "http://127.0.0.1:%d/.well-known/oauth-protected-resource/mcp" % ports["mcp"]
            return self.reply(401, {"error": "unauthorized"}, [
                ("WWW-Authenticate", 'Bearer error="invalid_token", resource_metadata="%s", '
                                     'scope="mcp"' % md)])
        if self.command == "GET":
            return self.reply(405, None)
        if self.command == "DELETE":
            return self.reply(200, None)
        msg = e.get("json") or {}
        if "id" not in msg:
            return self.reply(202, None)
        m, mid = msg.get("method"), msg["id"]
        if m == "initialize":
            res = {"protocolVersion": msg["params"]["protocolVersion"],
                   "capabilities": {"tools": {}}, "serverInfo": {"name": "protected", "version": "1"}}
        elif m == "tools/list":
            res = {"tools": [{"name": "whoami", "description": "says who called",
                              "inputSchema": {"type": "object", "properties": {}}}]}
        elif m == "tools/call":
            res = {"content": [{"type": "text", "text": "hello, holder of %s" % tok}]}
        else:
            return self.reply(200, {"jsonrpc": "2.0", "id": mid,
                                    "error": {"code": -32601, "message": "no such method"}})
        return self.reply(200, {"jsonrpc": "2.0", "id": mid, "result": res},
                          [("Mcp-Session-Id", "sess-1")])


def main():
    a = ThreadingHTTPServer(("127.0.0.1", 0), AuthServer)
    m = ThreadingHTTPServer(("127.0.0.1", 0), McpServer)
    ports["as"], ports["mcp"] = a.server_address[1], m.server_address[1]
    for s in (a, m):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print("PORTS %d %d" % (ports["mcp"], ports["as"]), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
