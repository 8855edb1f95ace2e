"""A tiny language server for zero's LSP tests (stdlib only): LSP base
protocol on stdin/stdout. Usage: fake_lsp.py MODE [STATE_DIR [PORT]]

Diagnostics: every line holding "BAD" is an error ("bad token here"), every
line holding "WARN" a warning, published (with the document's version) after
each didOpen / didChange.

MODE
  normal      as above
  crash-once  exits on the first didChange if STATE_DIR/crashed does not
              exist yet (creating it): the next start behaves normally
  hang        answers initialize, then never publishes anything
  garbage     answers initialize, then writes a malformed frame
  asks        normal, but before reading the body of the first message over
              100 KB (a big file's didOpen) it sends zero a request
              (workspace/configuration): zero is then blocked writing that
              frame and reads to unblock itself; a reply written into the
              middle of the frame would corrupt it (the server exits 4)
  late        publishes a didChange's diagnostics LATE_S seconds after it,
              and, as clangd does, nothing for a text it already published
              (zero must wait for late ones, not send the same text again)
  probe       normal, and each document's diagnostics carry one more error
              saying what the server could do: write STATE_DIR/escaped (a
              directory outside the workspace), see OPENAI_API_KEY,
              connect to 127.0.0.1:PORT
"""
import json
import os
import sys
import threading

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
STATE = sys.argv[2] if len(sys.argv) > 2 else "."
inp, out = sys.stdin.buffer, sys.stdout.buffer
LATE_S = 1.1  # after a 1000 ms bound: the first wait always misses, the next has 900 ms to spare
SEND_LOCK = threading.Lock()  # the late mode publishes from timer threads
PUBLISHED = {}  # uri -> the text last published, for the late mode


def send(msg):
    body = json.dumps(msg).encode()
    with SEND_LOCK:
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()


ASKED = []


def read():
    length = None
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    if MODE == "asks" and length > 100000 and not ASKED:
        ASKED.append(1)
        send({"jsonrpc": "2.0", "id": 7, "method": "workspace/configuration",
              "params": {"items": [{"section": "fake"}]}})
    body = inp.read(length)
    try:
        return json.loads(body)
    except ValueError:
        sys.stderr.write("fake-lsp: a frame's body is not JSON (interleaved frames?)\n")
        sys.stderr.flush()
        os._exit(4)


def probe():
    notes = []
    target = os.path.join(STATE, "escaped")
    try:
        with open(target, "w") as f:
            f.write("x")
        notes.append("wrote " + target)
    except OSError as e:
        notes.append("write denied: %s" % e.strerror)
    notes.append("key visible" if os.environ.get("OPENAI_API_KEY") else "key hidden")
    port = os.environ.get("FAKE_LSP_PORT") or (sys.argv[3] if len(sys.argv) > 3 else "")
    if port:
        import socket
        try:
            socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
            notes.append("connected")
        except OSError as e:
            notes.append("connect denied: %s" % (e.strerror or e))
    return "; ".join(notes)


def publish(uri, version, text):
    diags = []
    for i, line in enumerate(text.split("\n")):
        for word, sev, msg in (("BAD", 1, "bad token here"), ("WARN", 2, "suspicious")):
            col = line.find(word)
            if col >= 0:
                diags.append({"range": {"start": {"line": i, "character": col},
                                        "end": {"line": i, "character": col + len(word)}},
                              "severity": sev, "source": "fake", "message": msg})
    if MODE == "probe":
        diags.append({"range": {"start": {"line": 0, "character": 0},
                                "end": {"line": 0, "character": 0}},
                      "severity": 1, "source": "fake", "message": "probe: " + probe()})
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "version": version, "diagnostics": diags}})


while True:
    m = read()
    method = m.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {
            "capabilities": {"textDocumentSync": 1}, "serverInfo": {"name": "fake-lsp"}}})
        if MODE == "garbage":
            out.write(b"Content-Length: nonsense\r\n\r\n{}")
            out.flush()
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    elif method == "exit":
        sys.exit(0)
    elif method in ("textDocument/didOpen", "textDocument/didChange"):
        p = m["params"]
        doc = p["textDocument"]
        text = doc["text"] if method.endswith("didOpen") else p["contentChanges"][-1]["text"]
        if MODE == "crash-once" and method.endswith("didChange"):
            marker = os.path.join(STATE, "crashed")
            if not os.path.exists(marker):
                open(marker, "w").close()
                sys.stderr.write("fake-lsp: crashing on purpose\n")
                sys.stderr.flush()
                os._exit(3)
        if MODE == "late":
            if PUBLISHED.get(doc["uri"]) != text:
                PUBLISHED[doc["uri"]] = text
                args = (doc["uri"], doc["version"], text)
                if method.endswith("didOpen"):
                    publish(*args)
                else:
                    timer = threading.Timer(LATE_S, publish, args)
                    timer.daemon = True
                    timer.start()
        elif MODE != "hang":
            publish(doc["uri"], doc["version"], text)
