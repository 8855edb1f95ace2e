"""A loopback OAuth 2.0 authorization server for `zero auth` (tests/e2e/
test_auth.py), speaking the RFC wire formats:

  python3 fake_auth_server.py LOG [--pending N] [--slow-down] [--deny]
        [--expired] [--interval S] [--device-expires-in S] [--expires-in S]
        [--metadata-token-url URL]

Prints "PORT <port>" once it listens (issuer http://127.0.0.1:<port>). Every
request is appended to LOG as one JSON line {"t", "method", "path", "query",
"form", "auth"}.

  GET  /.well-known/oauth-authorization-server  RFC 8414 metadata (its
       token_endpoint is --metadata-token-url when given)
  POST /device     RFC 8628 §3.1-3.2: device_code, user_code,
                   verification_uri(_complete), expires_in, interval (omitted
                   when --interval is 0, so the client's default applies)
  GET  /authorize  RFC 6749 §4.1 + RFC 7636: checks response_type, client_id,
                   redirect_uri (loopback), S256; 302 to redirect_uri?code&state
  POST /token      grant_type
     authorization_code  checks code, client_id, redirect_uri, code_verifier
     device_code         (RFC 8628 §3.4-3.5) answers authorization_pending N
                         times, then (--slow-down) one slow_down, then tokens;
                         --deny: access_denied; --expired: expired_token
     refresh_token       a new access token (refresh token rotated)
  Errors are 400 {"error": …} as RFC 6749 §5.2 says.
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


def opt(name, default):
    return type(default)(ARGS[ARGS.index(name) + 1]) if name in ARGS else default


PENDING = opt("--pending", 0)
SLOW_DOWN = "--slow-down" in ARGS
DENY = "--deny" in ARGS
EXPIRED = "--expired" in ARGS
INTERVAL = opt("--interval", 1)
DEVICE_EXPIRES_IN = opt("--device-expires-in", 60)
EXPIRES_IN = opt("--expires-in", 3600)
METADATA_TOKEN_URL = opt("--metadata-token-url", "")
CLIENT_ID = "zero-cli"

lock = threading.Lock()
devices = {}  # device_code -> {"polls": n, "slowed": bool}
codes = {}    # code -> {"redirect_uri", "challenge", "scope"}
refresh = {}  # refresh token -> scope
port = [0]


def log(entry):
    with lock, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def tokens(scope):
    at, rt = "at-" + secrets.token_urlsafe(16), "rt-" + secrets.token_urlsafe(16)
    refresh[rt] = scope
    return {"access_token": at, "token_type": "Bearer", "expires_in": EXPIRES_IN,
            "refresh_token": rt, "scope": scope or "default"}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send_json(self, status, obj, headers=()):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, code, desc=""):
        self.send_json(400, {"error": code, "error_description": desc})

    def record(self, form=None):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query))
        log({"t": time.time(), "method": self.command, "path": u.path, "query": q,
             "form": form or {}, "auth": self.headers.get("Authorization")})
        return u.path, q

    def do_GET(self):
        path, q = self.record()
        issuer = "http://127.0.0.1:%d" % port[0]
        if path == "/.well-known/oauth-authorization-server":
            self.send_json(200, {
                "issuer": issuer, "authorization_endpoint": issuer + "/authorize",
                "token_endpoint": METADATA_TOKEN_URL or issuer + "/token",
                "device_authorization_endpoint": issuer + "/device",
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "refresh_token",
                                          "urn:ietf:params:oauth:grant-type:device_code"],
                "token_endpoint_auth_methods_supported": ["none"]})
        elif path == "/authorize":
            ru = q.get("redirect_uri", "")
            if (q.get("response_type") != "code" or q.get("client_id") != CLIENT_ID
                    or not ru.startswith("http://127.0.0.1:")
                    or q.get("code_challenge_method") != "S256" or not q.get("code_challenge")):
                self.send_json(400, {"error": "invalid_request"})
                return
            code = secrets.token_urlsafe(12)
            codes[code] = {"redirect_uri": ru, "challenge": q["code_challenge"],
                           "scope": q.get("scope")}
            loc = ru + "?" + urllib.parse.urlencode({"code": code, "state": q.get("state", "")})
            self.send_response(302)
            self.send_header("Location", loc)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(n).decode()))
        path, _ = self.record(form)
        if form.get("client_id") != CLIENT_ID:
            self.send_json(401, {"error": "invalid_client"})
            return
        if path == "/device":
            dc = secrets.token_urlsafe(16)
            devices[dc] = {"polls": 0, "slowed": False, "scope": form.get("scope")}
            issuer = "http://127.0.0.1:%d" % port[0]
            ans = {"device_code": dc, "user_code": "WDJB-MJHT",
                   "verification_uri": issuer + "/activate",
                   "verification_uri_complete": issuer + "/activate?user_code=WDJB-MJHT",
                   "expires_in": DEVICE_EXPIRES_IN}
            if INTERVAL:
                ans["interval"] = INTERVAL
            self.send_json(200, ans)
        elif path == "/token":
            self.token(form)
        else:
            self.send_json(404, {"error": "not_found"})

    def token(self, form):
        grant = form.get("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            d = devices.get(form.get("device_code"))
            if not d:
                return self.error("invalid_grant", "unknown device code")
            d["polls"] += 1
            if DENY:
                return self.error("access_denied")
            if EXPIRED:
                return self.error("expired_token")
            if d["polls"] <= PENDING:
                return self.error("authorization_pending")
            if SLOW_DOWN and not d["slowed"]:
                d["slowed"] = True
                return self.error("slow_down")
            del devices[form["device_code"]]
            return self.send_json(200, tokens(d["scope"]))
        if grant == "authorization_code":
            c = codes.pop(form.get("code"), None)
            if not c or form.get("redirect_uri") != c["redirect_uri"]:
                return self.error("invalid_grant")
            v = base64.urlsafe_b64encode(hashlib.sha256(
                form.get("code_verifier", "").encode()).digest()).rstrip(b"=").decode()
            if v != c["challenge"]:
                return self.error("invalid_grant", "PKCE verification failed")
            return self.send_json(200, tokens(c["scope"]))
        if grant == "refresh_token":
            rt = form.get("refresh_token")
            if rt not in refresh:
                return self.error("invalid_grant", "unknown refresh token")
            return self.send_json(200, tokens(refresh.pop(rt)))
        return self.error("unsupported_grant_type")


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port[0] = srv.server_address[1]
print("PORT %d" % port[0], flush=True)
srv.serve_forever()
