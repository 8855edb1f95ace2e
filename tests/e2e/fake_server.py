#!/usr/bin/env python3
"""fake_server.py — a loopback fake of the OpenAI Chat Completions API, and
(chosen by request path) of the OpenAI Responses API (POST /v1/responses),
the Anthropic Messages API (POST /v1/messages) and the Gemini API
(POST /v1beta/models/<model>:streamGenerateContent?alt=sse); their stream
formats live in fake_protocols.py.

Speaks the streaming wire format byte for byte (HTTP/1.1, chunked transfer
encoding, `data: {chat.completion.chunk}\\n\\n` events, a usage chunk when
stream_options.include_usage is set, `data: [DONE]\\n\\n`) and can misbehave on
purpose: odd chunk sizes that split lines and UTF-8 characters, keep-alive
comments, fragmented tool-call arguments, HTTP errors with Retry-After, streams
cut or hung mid-answer.

Usage:  python3 fake_server.py SCRIPT.json [--log REQUESTS.jsonl] [--port N]
                                           [--models a,b]

Prints `PORT <n>` as its first stdout line (flushed) once it listens on
127.0.0.1. SCRIPT.json is a list of turns consumed in order, one per
POST /v1/chat/completions (or /chat/completions). See README.md next to this
file for the turn format. Python 3 standard library only.
"""

import argparse
import json
import os
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_anthropic  # noqa: E402
import fake_protocols  # noqa: E402

DEFAULT_ERRORS = {
    400: ("Bad request", "invalid_request_error"),
    401: ("Incorrect API key provided", "invalid_request_error"),
    403: ("You are not allowed to access this resource", "invalid_request_error"),
    404: ("The model does not exist or you do not have access to it", "invalid_request_error"),
    429: ("Rate limit reached for requests", "requests"),
    500: ("The server had an error while processing your request", "server_error"),
    502: ("Bad gateway", "server_error"),
    503: ("The engine is currently overloaded, please try again later", "server_error"),
    504: ("Gateway timeout", "server_error"),
    529: ("Overloaded", "overloaded_error"),
}

REASONS = {529: "Overloaded"}

# FAKE_SERVER_WRITE_LOG=path: one "<unix time> <bytes>" line per HTTP chunk
# written, taken just before the write (bench/providers/latency.py).
WRITE_LOG = os.environ.get("FAKE_SERVER_WRITE_LOG")

# FAKE_SERVER_NODELAY=1: TCP_NODELAY on every connection, so a response's
# small writes (headers, then each SSE event) leave at once instead of
# waiting, by Nagle's rule, for the client's delayed ACK (about 40 ms per
# response on loopback). Off by default: the tests' timings stay as they
# were; benchmarks that time zero's own work per turn turn it on.
NODELAY = os.environ.get("FAKE_SERVER_NODELAY") == "1"


class Script:
    """The scripted turns, consumed in order across all connections."""

    def __init__(self, turns, log_path):
        self.turns = list(turns)
        self.next = 0
        self.lock = threading.Lock()
        self.log_path = log_path
        self.log_lock = threading.Lock()
        self.log_file = open(log_path, "a", encoding="utf-8") if log_path else None

    def take(self, raw=b""):
        """The first unused turn this request may take: one without a
        "match" key, or whose "match" string occurs in the request body
        (several request streams at once: a parent and its sub-agents)."""
        with self.lock:
            if not hasattr(self, "used"):
                self.used = set()
            for i in range(self.next, len(self.turns)):
                if i in self.used:
                    continue
                want = self.turns[i].get("match") if isinstance(self.turns[i], dict) else None
                if want is not None and want.encode("utf-8") not in raw:
                    continue
                self.used.add(i)
                while self.next in self.used:
                    self.next += 1
                return self.turns[i], i
            return None, len(self.turns)

    def log(self, record):
        if not self.log_file:
            return
        with self.log_lock:
            self.log_file.write(json.dumps(record, ensure_ascii=False) + "\n")
            self.log_file.flush()


def split_text(text, piece):
    """Splits text into deltas: words with their following space by default,
    or pieces of `piece` characters."""
    if not text:
        return []
    if piece and piece > 0:
        return [text[i:i + piece] for i in range(0, len(text), piece)]
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in " \n":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def sse(obj):
    if isinstance(obj, str):
        return ("data: " + obj + "\n\n").encode("utf-8")
    # Compact separators, non-ASCII kept as UTF-8: what OpenAI sends.
    return ("data: " + json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n\n").encode(
        "utf-8")


def tool_arguments(call):
    args = call.get("arguments", {})
    if isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


def usage_object(turn, request, text, reasoning, calls):
    u = dict(turn.get("usage") or {})
    # Like a real provider, the prompt counts the tool definitions too.
    prompt_chars = len(json.dumps(request.get("messages", []), ensure_ascii=False)) + \
        len(json.dumps(request.get("tools", []), ensure_ascii=False))
    completion_chars = len(text) + len(reasoning) + sum(len(tool_arguments(c)) for c in calls)
    prompt = u.get("prompt_tokens", max(1, prompt_chars // 4))
    completion = u.get("completion_tokens", max(1, completion_chars // 4))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": u.get("total_tokens", prompt + completion),
        "prompt_tokens_details": {"cached_tokens": u.get("cached_tokens", 0), "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": u.get("reasoning_tokens", 0),
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def protocol_for(path):
    """chat | responses | anthropic | gemini for a POST path, or None."""
    if path in ("/v1/chat/completions", "/chat/completions"):
        return "chat"
    if path in ("/v1/responses", "/responses"):
        return "responses"
    if path in ("/v1/messages", "/messages"):
        return "anthropic"
    if "/models/" in path and (path.endswith(":streamGenerateContent")
                               or path.endswith(":generateContent")):
        return "gemini"
    return None


def system_text(body):
    """The system prompt of a request in any of the four protocols ("" if none):
    Chat's first system message, Responses' instructions (or first
    system/developer input message), Anthropic's system, Gemini's
    systemInstruction. Text parts are joined."""
    def text_of(c):
        if isinstance(c, str):
            return c
        if isinstance(c, list):
            return "".join(text_of(x) for x in c)
        if isinstance(c, dict):
            if "text" in c and isinstance(c["text"], str):
                return c["text"]
            return text_of(c.get("content") or c.get("parts") or "")
        return ""
    if not isinstance(body, dict):
        return ""
    for key in ("instructions", "system", "systemInstruction"):
        if body.get(key):
            return text_of(body[key])
    for m in (body.get("messages") or body.get("input") or []):
        if isinstance(m, dict) and m.get("role") in ("system", "developer"):
            return text_of(m.get("content"))
        if isinstance(m, dict):
            break
    return ""


def gemini_unary_answer(text, path):
    """A whole GenerateContentResponse answering with text, for a POST to
    models/<model>:generateContent."""
    model = path.split("/models/", 1)[-1].split(":", 1)[0]
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                              "totalTokenCount": 2},
            "modelVersion": model}


def last_user_text(body):
    """The text of a request's last message when the user sent it ("" if
    not): Chat's and Anthropic's messages, Responses' input, Gemini's
    contents. Text parts are joined."""
    if not isinstance(body, dict):
        return ""
    msgs = body.get("messages") or body.get("input") or body.get("contents") or []
    last = msgs[-1] if isinstance(msgs, list) and msgs else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return ""
    parts = last.get("content") if "content" in last else last.get("parts")
    if isinstance(parts, str):
        return parts
    return "".join(p["text"] for p in parts or []
                   if isinstance(p, dict) and isinstance(p.get("text"), str))


def stream_events(turn, index, request, protocol="chat", path="", issued=None):
    """The list of SSE event byte strings for a streaming turn (issued:
    fake_anthropic.new_issued(), what an Anthropic answer sent)."""
    if protocol != "chat" and "raw_sse" not in turn and "raw_sse_file" not in turn:
        if protocol == "responses":
            return fake_protocols.responses_events(turn, index, request)
        if protocol == "anthropic":
            return fake_protocols.anthropic_events(turn, index, request, issued)
        model = path.split("/models/", 1)[-1].split(":", 1)[0]
        return fake_protocols.gemini_events(turn, index, request, model)
    if "raw_sse" in turn:
        return [turn["raw_sse"].encode("utf-8")]
    if "raw_sse_file" in turn:
        with open(turn["raw_sse_file"], "rb") as f:
            return [f.read()]
    model = request.get("model") or "fake-model"
    base = {
        "id": "chatcmpl-fake%d" % index,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_fake",
    }

    def chunk(delta, finish=None):
        c = dict(base)
        c["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        if include_usage:
            c["usage"] = None
        return sse(c)

    opts = request.get("stream_options") or {}
    include_usage = bool(opts.get("include_usage"))
    text = turn.get("text", "")
    reasoning = turn.get("reasoning", "")
    calls = turn.get("tool_calls") or []
    piece = turn.get("text_piece", 0)
    reasoning_field = turn.get("reasoning_field", "reasoning_content")

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    for r in split_text(reasoning, piece):
        events.append(chunk({reasoning_field: r}))
    for t in split_text(text, piece):
        events.append(chunk({"content": t}))
    frag = int(turn.get("args_fragment", 7)) or 7
    for i, call in enumerate(calls):
        call_id = call.get("id", "call_%d_%d" % (index, i))
        events.append(chunk({"tool_calls": [{
            "index": i, "id": call_id, "type": "function",
            "function": {"name": call.get("name", ""), "arguments": ""}}]}))
        args = tool_arguments(call)
        for j in range(0, len(args), frag):
            events.append(chunk({"tool_calls": [{
                "index": i, "function": {"arguments": args[j:j + frag]}}]}))
    if "stream_error" in turn:
        err = turn["stream_error"]
        if isinstance(err, str):
            err = {"message": err, "type": "server_error", "param": None, "code": None}
        events.append(sse({"error": err}))
    else:
        finish = turn.get("finish_reason", "tool_calls" if calls else "stop")
        if not turn.get("no_finish"):
            events.append(chunk({}, finish))
        if include_usage and not turn.get("no_usage"):
            u = dict(base)
            u["choices"] = []
            u["usage"] = usage_object(turn, request, text, reasoning, calls)
            events.append(sse(u))
    if not turn.get("no_done"):
        events.append(sse("[DONE]"))
    return events


def completion_object(turn, index, request):
    """A non-streamed chat.completion for requests with "stream": false."""
    text = turn.get("text", "")
    reasoning = turn.get("reasoning", "")
    calls = turn.get("tool_calls") or []
    msg = {"role": "assistant", "content": text or None, "refusal": None}
    if reasoning:
        msg[turn.get("reasoning_field", "reasoning_content")] = reasoning
    if calls:
        msg["tool_calls"] = [{
            "id": c.get("id", "call_%d_%d" % (index, i)), "type": "function",
            "function": {"name": c.get("name", ""), "arguments": tool_arguments(c)}}
            for i, c in enumerate(calls)]
    return {
        "id": "chatcmpl-fake%d" % index,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or "fake-model",
        "choices": [{"index": 0, "message": msg, "logprobs": None,
                     "finish_reason": turn.get("finish_reason", "tool_calls" if calls else "stop")}],
        "usage": usage_object(turn, request, text, reasoning, calls),
        "system_fingerprint": "fp_fake",
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = NODELAY  # socketserver.StreamRequestHandler's switch
    server_version = "fake-openai/1"
    sys_version = ""

    def version_string(self):
        return self.server_version

    def log_message(self, fmt, *args):  # keep stderr quiet; the log file has it all
        pass

    # -- request plumbing ------------------------------------------------

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def record(self, raw, turn_index):
        body = None
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError):
            body = None
        rec = {
            "method": self.command,
            "path": self.path,
            "headers": {k: v for k, v in self.headers.items()},
            "body": body,
            "turn": turn_index,
            "time": time.time(),
        }
        if raw and body is None:
            rec["raw_body"] = raw.decode("utf-8", "replace")
        self.server.script.log(rec)
        return body if isinstance(body, dict) else {}

    def send_json(self, status, obj, extra_headers=None):
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(status, REASONS.get(status))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    # -- routes ------------------------------------------------------------

    def do_GET(self):
        path = self.path.split("?")[0]
        self.record(b"", None)
        if path == "/api/tags":  # Ollama's native model list
            self.send_json(200, {"models": [
                {"name": m, "model": m, "size": 1000, "details": {"family": "fake"}}
                for m in self.server.models]})
        elif path in ("/v1/models", "/models"):
            now = int(time.time())
            self.send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": now, "owned_by": "fake"}
                for m in self.server.models]})
        else:
            self.send_json(404, {"error": {"message": "fake server: no route for GET " + path,
                                           "type": "invalid_request_error"}})

    def do_POST(self):
        path = self.path.split("?")[0]
        raw = self.read_body()
        protocol = protocol_for(path)
        self.protocol = protocol or "chat"
        if protocol is None:
            self.record(raw, None)
            self.send_json(404, {"error": {"message": "fake server: no route for POST " + path,
                                           "type": "invalid_request_error"}})
            return
        if self.server.auto_answers:
            try:
                body = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                body = None
            system, user = system_text(body), last_user_text(body)
            for where, key, text in self.server.auto_answers:
                if (system.startswith(key) if where == "system" else key in user):
                    # --auto-answer(-user): an agent's side request (a
                    # title generator, a classifier, a compaction summary)
                    # gets a fixed answer and does not consume the script,
                    # whenever it comes.
                    self.record(raw, None)
                    if path.endswith(":generateContent"):
                        # Gemini's unary call (its loop check): one JSON
                        # response, not a stream.
                        self.send_json(200, gemini_unary_answer(text, path))
                        return
                    self.stream({"text": text}, -1, body if isinstance(body, dict) else {},
                                protocol, path)
                    return
        if self.server.auto_summary is not None:
            try:
                body = json.loads(raw.decode("utf-8"))
                msgs = body.get("messages") or [{}]
                first = msgs[0].get("content") or ""
            except (ValueError, UnicodeDecodeError, AttributeError):
                body, first = None, ""
            if isinstance(first, str) and first.startswith("You summarize"):
                # --auto-summary: compaction requests get a fixed summary and
                # do not consume the script (long scripted runs, benchmarks).
                self.record(raw, None)
                self.stream({"text": self.server.auto_summary}, -1, body or {})
                return
        turn, index = self.server.script.take(raw)
        request = self.record(raw, index if turn is not None else None)
        if turn is None:
            self.send_json(500, {"error": {"message": "fake server: no scripted turn left",
                                           "type": "server_error"}})
            return
        if turn.get("delay_before_ms"):
            time.sleep(turn["delay_before_ms"] / 1000.0)
        if turn.get("silent"):  # accepts the request, never answers
            self.hang()
            return
        if protocol == "anthropic":
            bad = fake_anthropic.request_problem(
                request, getattr(self.server, "anthropic_issued", None) or
                fake_anthropic.new_issued())
            if bad:  # the real API's refusal, before any answer
                self.send_json(400, {"type": "error", "error": {
                    "type": "invalid_request_error", "message": bad},
                    "request_id": "req_fake%d" % index})
                return
        problems = fake_protocols.gemini_schema_problems(request) if protocol == "gemini" else []
        if problems:
            # As the real API: the request is refused before any answer.
            self.send_json(400, {"error": {"code": 400, "message": "* " + "\n* ".join(problems),
                                           "status": "INVALID_ARGUMENT"}})
            return
        status = int(turn.get("status", 200))
        if status != 200:
            self.fault(turn, status)
        elif protocol == "chat" and request.get("stream") is False:
            self.send_json(200, completion_object(turn, index, request), turn.get("headers"))
        else:
            self.stream(turn, index, request, protocol, path)

    def fault(self, turn, status):
        msg, typ = DEFAULT_ERRORS.get(status, ("HTTP %d" % status, "server_error"))
        err = turn.get("error", {"message": msg, "type": typ, "param": None, "code": None})
        headers = dict(turn.get("headers") or {})
        if "retry_after" in turn:
            headers["Retry-After"] = turn["retry_after"]
        if "raw_error" in turn:  # a non-JSON body, e.g. a proxy's HTML page
            data = turn["raw_error"].encode("utf-8")
            self.send_response(status, REASONS.get(status))
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, str(v))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            return
        if self.protocol != "chat":
            body = fake_protocols.error_body(self.protocol, status, msg, typ, turn)
            self.send_json(status, body, headers)
            return
        self.send_json(status, {"error": err}, headers)

    def stream(self, turn, index, request, protocol="chat", path=""):
        events = stream_events(turn, index, request, protocol, path,
                               getattr(self.server, "anthropic_issued", None))
        keepalive = turn.get("keepalive")
        ka = fake_protocols.keepalive_bytes(protocol)
        body = b""
        if keepalive:
            body += ka
        for ev in events:
            body += ev
            if keepalive:
                body += ka
        # The HTTP chunks: fixed-size pieces (splitting lines and UTF-8
        # characters) or one chunk per SSE event.
        size = int(turn.get("chunk_size", 0))
        if size > 0:
            pieces = [body[i:i + size] for i in range(0, len(body), size)]
        else:
            pieces, off = [], 0
            if keepalive:
                pieces.append(body[:len(ka)])
                off = len(pieces[0])
            for ev in events:
                n = len(ev) + (len(ka) if keepalive else 0)
                pieces.append(body[off:off + n])
                off += n
        limit = None
        mode = None
        if "cut_after_bytes" in turn:
            limit, mode = int(turn["cut_after_bytes"]), "cut"
        elif "hang_after_bytes" in turn:
            limit, mode = int(turn["hang_after_bytes"]), "hang"
        elif "keepalive_forever_after_bytes" in turn:
            limit, mode = int(turn["keepalive_forever_after_bytes"]), "keepalive"

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-request-id", "req_fake%d" % index)
        for k, v in (turn.get("headers") or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.flush()

        delay = turn.get("delay_ms", 0) / 1000.0
        sent = 0
        try:
            for i, piece in enumerate(pieces):
                if limit is not None and sent + len(piece) > limit:
                    piece = piece[:limit - sent]
                if piece:
                    t_write = time.time()
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                    self.wfile.flush()
                    sent += len(piece)
                    if WRITE_LOG:  # benchmarks: when each piece was handed to the socket
                        with open(WRITE_LOG, "a") as wl:
                            wl.write("%.6f %d\n" % (t_write, len(piece)))
                if limit is not None and sent >= limit:
                    break
                if delay and i + 1 < len(pieces):
                    time.sleep(delay)
            if mode == "cut":
                self.cut()
                return
            if mode == "hang":
                self.hang()
                return
            if mode == "keepalive":
                self.keepalive_forever(ka, turn.get("keepalive_every_ms", 100) / 1000.0)
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def cut(self):
        """Closes the connection without the terminating chunk."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def keepalive_forever(self, ka, every):
        """Sends only keep-alives until the client goes away."""
        self.close_connection = True
        deadline = time.time() + float(os.environ.get("FAKE_SERVER_HANG_MAX_S", "600"))
        try:
            while time.time() < deadline:
                self.wfile.write(b"%x\r\n" % len(ka) + ka + b"\r\n")
                self.wfile.flush()
                time.sleep(every)
        except OSError:
            return

    def hang(self):
        """Sends nothing more and waits until the client goes away."""
        self.close_connection = True
        deadline = time.time() + float(os.environ.get("FAKE_SERVER_HANG_MAX_S", "600"))
        while time.time() < deadline:
            r, _, _ = select.select([self.connection], [], [], 0.2)
            if r:
                try:
                    if not self.connection.recv(4096, socket.MSG_PEEK):
                        return
                    self.connection.recv(4096)
                except OSError:
                    return


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def exit_with_parent():
    """A test that dies without stopping its server must not leave it behind
    (holding the test runner's pipes open): exit once reparented."""
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def dump(protocol, turn_path, out):
    """Writes the SSE body of one scripted turn (for tests/fixtures)."""
    with open(turn_path, encoding="utf-8") as f:
        turn = json.load(f)
    request = turn.pop("request", {"model": "fake-model", "stream": True,
                                   "stream_options": {"include_usage": True}})
    path = "/v1beta/models/%s:streamGenerateContent" % request.get("model", "fake-model")
    events = stream_events(turn, 0, request, protocol, path)
    out.write(b"".join(events))


def main(argv):
    if argv[:1] == ["--dump"]:
        dump(argv[1], argv[2], sys.stdout.buffer)
        return
    ap = argparse.ArgumentParser(description="fake model server (Chat Completions, Responses, "
                                 "Anthropic Messages, Gemini)")
    ap.add_argument("script", help="JSON file: a list of turns")
    ap.add_argument("--log", help="append one JSON line per request to this file")
    ap.add_argument("--port", type=int, default=0, help="port (default: any free one)")
    ap.add_argument("--models", default="fake-model",
                    help="comma-separated ids for GET /v1/models")
    ap.add_argument("--auto-summary", metavar="TEXT",
                    help="answer compaction requests (system prompt starting 'You summarize') "
                         "with TEXT without consuming a scripted turn")
    ap.add_argument("--auto-answer-user", metavar="WORDS=TEXT", action="append", default=[],
                    help="answer any request whose last message is the user's and contains "
                         "WORDS with TEXT, without consuming a scripted turn (repeatable; a "
                         "compaction request that keeps the agent's system prompt)")
    ap.add_argument("--auto-answer", metavar="PREFIX=TEXT", action="append", default=[],
                    help="answer any request whose system prompt starts with PREFIX with TEXT, "
                         "without consuming a scripted turn (repeatable; an agent's title or "
                         "classifier requests in benchmarks)")
    ap.add_argument("--keep-running", action="store_true",
                    help="do not exit when the parent process goes away")
    args = ap.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        turns = json.load(f)
    if isinstance(turns, dict):
        turns = turns.get("turns", [])
    if not isinstance(turns, list):
        sys.exit("fake_server: %s must hold a JSON list of turns" % args.script)
    if not args.keep_running:
        threading.Thread(target=exit_with_parent, daemon=True).start()
    httpd = Server(("127.0.0.1", args.port), Handler)
    httpd.script = Script(turns, args.log)
    httpd.models = [m for m in args.models.split(",") if m]
    httpd.auto_summary = args.auto_summary
    httpd.auto_answers = []
    httpd.anthropic_issued = fake_anthropic.new_issued()
    for where, opt, specs in (("system", "--auto-answer PREFIX=TEXT", args.auto_answer),
                              ("user", "--auto-answer-user WORDS=TEXT", args.auto_answer_user)):
        for spec in specs:
            key, sep, text = spec.partition("=")
            if not sep or not key:
                sys.exit("fake_server: %s wanted, got %r" % (opt, spec))
            httpd.auto_answers.append((where, key, text))
    sys.stdout.write("PORT %d\n" % httpd.server_address[1])
    sys.stdout.flush()
    try:
        httpd.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()


if __name__ == "__main__":
    main(sys.argv[1:])
