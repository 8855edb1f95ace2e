"""A Streamable HTTP MCP server for the start-up, progress and cancellation
tests. Every URL path (/a, /b, …) is a separate server with its own session.

  python3 fake_http_mcp.py LOG [--barrier N]

Prints "PORT <port>". Appends JSON lines to LOG:
  {"event": "init", "path": p, "together": bool}  once an initialize is
      answered; with --barrier N, initialize answers are held until N
      initialize requests have arrived (at most 10 s): "together" tells
      whether they all had (servers started in parallel) when it was answered
  {"event": "call", "path": p, "id": id, "tool": name}
  {"event": "cancelled", "path": p, "requestId": id, "reason": r}
Tools: "steps" sends progress 1/3, 2/3, 3/3 (with messages) in the POST's
SSE answer, then its result; "slow" sends progress 1 and then waits (up to
30 s) for notifications/cancelled, answering nothing if cancelled; "asks"
sends a ping and a roots/list request in its SSE answer and finishes only
once both answers have come (as POSTs of their own; at most 10 s), with
them as its result ("samples" does the same with one sampling/createMessage):
  {"event": "answer", "path": p, "id": id, "message": {...}}  per answer
Paths under /expire check Mcp-Session-Id (404 for an unknown one, as after a
restart); there the tool "forget" answers and then forgets the session.
Paths under /mute never answer initialize (the POST hangs for 30 s).
Paths under /live also offer the GET event stream (others answer GET with
405); there "grow" adds the tool "grown" and announces it with
notifications/tools/list_changed on that stream, then answers the call.
Paths under /resume offer the event stream like /live, except that the first
GET (one without Last-Event-ID) gets one event with id "ev-1" and is closed
by the server, as servers may do; later GETs are held open.
  {"event": "stream", "path": p, "lastEventId": header or null}  per GET
Paths under /dead answer every GET with an SSE stream that closes at once,
without events. The tool "nap" answers after 1.5 s.
Paths under /poll close the SSE reply to tool "polled" after a priming event
(id p-1, retry 50, empty data) and a progress event (id p-2), before the
answer; a GET with Last-Event-ID p-2 gets the answer (id p-3). Other GETs
there get 405.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
ARGS = sys.argv[2:]
BARRIER = int(ARGS[ARGS.index("--barrier") + 1]) if "--barrier" in ARGS else 0

lock = threading.Condition()
inits = 0
cancelled = {}  # (path, id) -> threading.Event
answers = {}  # (path, id of our request) -> the client's answer
streams = {}  # path -> wfile of its open GET event stream
grown = set()  # paths whose tool list gained "grown"
generation = {}  # /expire paths: number of the current session


def log(entry):
    with lock, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def sse(obj):
    return ("event: message\ndata: %s\n\n" % json.dumps(obj)).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def plain(self, status, body=b"", ctype="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        last = self.headers.get("Last-Event-ID")
        if self.path.startswith("/poll"):
            log({"event": "stream", "path": self.path, "lastEventId": last})
            if last != "p-2":
                return self.plain(405)
            self.start_sse()
            with lock:
                mid = answers.get((self.path, "polled"))
            self.wfile.write(b"id: p-3\n" + sse({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": "polled done"}]}}))
            self.wfile.flush()
            return
        if not self.path.startswith(("/live", "/resume", "/dead")):
            return self.plain(405)
        self.start_sse()
        self.wfile.flush()
        log({"event": "stream", "path": self.path, "lastEventId": last})
        if self.path.startswith("/dead"):
            return
        if self.path.startswith("/resume") and last is None:
            self.wfile.write(b"id: ev-1\n" + sse({"jsonrpc": "2.0", "method": "notifications/message",
                                                 "params": {"level": "info", "data": "hello"}}))
            self.wfile.flush()
            return  # closed by the server: the client is expected to come back
        with lock:
            streams[self.path] = self.wfile
        time.sleep(30)  # held open; zero closes it when it is done

    def do_DELETE(self):
        self.plain(200)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def do_POST(self):
        global inits
        n = int(self.headers.get("Content-Length") or 0)
        msg = json.loads(self.rfile.read(n))
        path = self.path
        method, mid = msg.get("method"), msg.get("id")
        if path.startswith("/expire") and method != "initialize":
            want = "s%s-%d" % (path.strip("/"), generation.get(path, 0))
            if self.headers.get("Mcp-Session-Id") != want:
                log({"event": "expired", "path": path, "method": method})
                return self.plain(404, b'{"jsonrpc":"2.0","id":null,"error":'
                                       b'{"code":-32001,"message":"Session not found"}}')
        if method == "notifications/cancelled":
            rid = msg["params"]["requestId"]
            log({"event": "cancelled", "path": path, "requestId": rid,
                 "reason": msg["params"].get("reason")})
            with lock:
                ev = cancelled.setdefault((path, rid), threading.Event())
            ev.set()
            return self.plain(202)
        if method is None and mid is not None:  # the client answers our request
            log({"event": "answer", "path": path, "id": mid, "message": msg})
            with lock:
                answers[(path, mid)] = msg
                lock.notify_all()
            return self.plain(202)
        if mid is None:
            return self.plain(202)
        if method == "initialize" and path.startswith("/mute"):
            log({"event": "muted", "path": path})
            time.sleep(30)
            return
        if method == "initialize":
            with lock:
                inits += 1
                lock.notify_all()
                deadline = time.time() + 10
                while BARRIER and inits < BARRIER and time.time() < deadline:
                    lock.wait(deadline - time.time())
                together = inits >= BARRIER
            log({"event": "init", "path": path, "together": together})
            res = {"protocolVersion": msg["params"]["protocolVersion"],
                   "capabilities": {"tools": {}}, "serverInfo": {"name": "fake-http", "version": "1"}}
            body = json.dumps({"jsonrpc": "2.0", "id": mid, "result": res}).encode()
            sid = "s" + path.strip("/")
            if path.startswith("/expire"):
                sid += "-%d" % generation.get(path, 0)
            return self.plain(200, body, headers=[("Mcp-Session-Id", sid)])
        if method == "tools/list":
            tools = [{"name": "steps", "description": "three steps with progress",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "slow", "description": "runs until cancelled",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "asks", "description": "asks the client things first",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "samples", "description": "asks the client's model first",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "grow", "description": "adds a tool",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "forget", "description": "forgets the session",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "nap", "description": "answers after 1.5 s",
                      "inputSchema": {"type": "object", "properties": {}}},
                     {"name": "polled", "description": "closes its reply before the answer",
                      "inputSchema": {"type": "object", "properties": {}}}]
            if path in grown:
                tools.append({"name": "grown", "description": "added by grow",
                              "inputSchema": {"type": "object", "properties": {}}})
            body = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools}}).encode()
            return self.plain(200, body)
        if method == "tools/call":
            tool = msg["params"]["name"]
            token = (msg["params"].get("_meta") or {}).get("progressToken")
            log({"event": "call", "path": path, "id": mid, "tool": tool})
            self.start_sse()
            if tool == "steps":
                for i in (1, 2, 3):
                    self.wfile.write(sse({"jsonrpc": "2.0", "method": "notifications/progress",
                                          "params": {"progressToken": token, "progress": i,
                                                     "total": 3, "message": "step %d" % i}}))
                    self.wfile.flush()
                    time.sleep(0.05)
                self.wfile.write(sse({"jsonrpc": "2.0", "id": mid, "result": {
                    "content": [{"type": "text", "text": "all 3 steps done"}]}}))
                self.wfile.flush()
                return
            if tool == "polled":
                with lock:
                    answers[(path, "polled")] = mid
                self.wfile.write(b"id: p-1\nretry: 50\ndata: \n\n")
                self.wfile.write(b"id: p-2\n" + sse({"jsonrpc": "2.0",
                                                    "method": "notifications/progress",
                                                    "params": {"progressToken": token,
                                                               "progress": 1}}))
                self.wfile.flush()
                return  # closed before the answer: the client must resume
            if tool == "nap":
                time.sleep(1.5)
                self.wfile.write(sse({"jsonrpc": "2.0", "id": mid, "result": {
                    "content": [{"type": "text", "text": "rested"}]}}))
                self.wfile.flush()
                return
            if tool == "forget":
                with lock:
                    generation[path] = generation.get(path, 0) + 1
                self.wfile.write(sse({"jsonrpc": "2.0", "id": mid, "result": {
                    "content": [{"type": "text", "text": "forgotten"}]}}))
                self.wfile.flush()
                return
            if tool in ("grow", "grown"):
                if tool == "grow":
                    with lock:
                        grown.add(path)
                        stream = streams.get(path)
                    if stream:
                        stream.write(sse({"jsonrpc": "2.0",
                                          "method": "notifications/tools/list_changed"}))
                        stream.flush()
                self.wfile.write(sse({"jsonrpc": "2.0", "id": mid, "result": {
                    "content": [{"type": "text", "text": tool + " ran"}]}}))
                self.wfile.flush()
                return
            if tool in ("asks", "samples"):
                ids = ["ask-ping-%s" % mid, "ask-roots-%s" % mid]
                if tool == "samples":
                    ids = ["ask-sample-%s" % mid]
                    self.wfile.write(sse({"jsonrpc": "2.0", "id": ids[0],
                                          "method": "sampling/createMessage", "params": {
                        "messages": [{"role": "user", "content": {
                            "type": "text", "text": "summarize over HTTP"}}],
                        "maxTokens": 200}}))
                else:
                    self.wfile.write(sse({"jsonrpc": "2.0", "id": ids[0], "method": "ping"}))
                    self.wfile.write(sse({"jsonrpc": "2.0", "id": ids[1],
                                          "method": "roots/list"}))
                self.wfile.flush()
                with lock:
                    deadline = time.time() + 10
                    while time.time() < deadline and not all((path, i) in answers for i in ids):
                        lock.wait(deadline - time.time())
                    got = [answers.get((path, i)) for i in ids]
                self.wfile.write(sse({"jsonrpc": "2.0", "id": mid, "result": {
                    "content": [{"type": "text", "text": json.dumps(got)}]}}))
                self.wfile.flush()
                return
            self.wfile.write(sse({"jsonrpc": "2.0", "method": "notifications/progress",
                                  "params": {"progressToken": token, "progress": 1}}))
            self.wfile.flush()
            with lock:
                ev = cancelled.setdefault((path, mid), threading.Event())
            if not ev.wait(30):
                self.wfile.write(sse({"jsonrpc": "2.0", "id": mid, "result": {
                    "content": [{"type": "text", "text": "slow finished"}]}}))
            return
        body = json.dumps({"jsonrpc": "2.0", "id": mid,
                           "error": {"code": -32601, "message": "no such method"}}).encode()
        self.plain(200, body)


def main():
    s = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    s.daemon_threads = True
    print("PORT %d" % s.server_address[1], flush=True)
    try:
        s.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
