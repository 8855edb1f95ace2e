"""A raw client for `zero serve --mcp --http` in the e2e tests: starts the
server, speaks HTTP/1.1 over plain sockets (so tests control every header
and byte), and reads SSE and JSON answers."""
import json
import re
import socket
import subprocess
import time

ACCEPT = "application/json, text/event-stream"


def start(zero_bin, args, cwd, env, timeout=20):
    """Starts `zero serve --mcp --http 0 ARGS…`; returns (proc, host, port)
    once it prints its URL, or (proc, None, None) when it exits first."""
    p = subprocess.Popen([zero_bin, "serve", "--mcp"] + list(args), cwd=cwd, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        m = re.search(r"http://\[?([0-9a-f.:]+)\]?:(\d+)/mcp", line)
        if m:
            return p, m.group(1), int(m.group(2))
        if not line and p.poll() is not None:
            break
    return p, None, None


def stop(p):
    p.terminate()
    try:
        return p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        return self.headers.get(name.lower())

    def json(self):
        return json.loads(self.body)

    def events(self):
        """The SSE events of the body: [{"id":…, "data":…}]."""
        out = []
        for block in self.body.decode().split("\n\n"):
            ev = {}
            for line in block.split("\n"):
                if ":" in line and not line.startswith(":"):
                    k, v = line.split(":", 1)
                    ev[k] = v[1:] if v.startswith(" ") else v
            if ev:
                out.append(ev)
        return out


class Conn:
    """One keep-alive connection."""

    def __init__(self, port, host="127.0.0.1", timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""
        self.port = port

    def close(self):
        self.sock.close()

    def send_raw(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _take(self, n):
        while len(self.buf) < n:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def read_response(self):
        status_line = self._line()
        while status_line.startswith(b"HTTP/1.1 100"):
            self._line()
            status_line = self._line()
        status = int(status_line.split()[1])
        headers = {}
        while True:
            line = self._line()
            if not line:
                break
            k, v = line.decode().split(":", 1)
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size = int(self._line().split(b";")[0], 16)
                if size == 0:
                    self._line()
                    break
                body += self._take(size)
                self._line()
        elif "content-length" in headers:
            body = self._take(int(headers["content-length"]))
        else:
            try:
                while True:
                    self._fill()
            except (ConnectionError, OSError):
                pass
            body, self.buf = self.buf, b""
        return Response(status, headers, body)

    def request(self, method, body=None, headers=None, path="/mcp"):
        h = {"Host": "127.0.0.1:%d" % self.port}
        if body is not None:
            h["Content-Type"] = "application/json"
            h["Accept"] = ACCEPT
        h.update(headers or {})
        data = b"" if body is None else (body if isinstance(body, bytes) else
                                         json.dumps(body).encode())
        if body is not None:
            h["Content-Length"] = str(len(data))
        head = "%s %s HTTP/1.1\r\n" % (method, path)
        head += "".join("%s: %s\r\n" % kv for kv in h.items() if kv[1] is not None)
        self.send_raw(head.encode() + b"\r\n" + data)
        return self.read_response()


def initialize(conn, version="2025-11-25", headers=None):
    r = conn.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                              "params": {"protocolVersion": version, "capabilities": {},
                                         "clientInfo": {"name": "e2e", "version": "1"}}},
                     headers)
    return r, r.header("mcp-session-id")


def rpc(conn, sid, method, params=None, id=2, headers=None):
    msg = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    h = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
    h.update(headers or {})
    return conn.request("POST", msg, h)
