"""A small MCP server over stdio for the sampling and subscription tests.
argv[1] is a log file: every message received is appended to it (one JSON
per line), so a test can see what zero sent (capabilities, answers).

Tools:
  ask       sends sampling/createMessage with its arguments "prompt",
            "maxTokens" (default 50000) and "n" (how many requests, default
            1) while the call runs, then returns, as JSON text, every answer
            it got ({"result": …} or {"error": …}).
With argv[2] "eager" it asks for a sampling as soon as it is initialized,
outside any call, and logs the answer like everything else.
Resources (capability resources.subscribe, unless argv[2] is "nosub"):
  test://watched   resources/subscribe to it is answered, then three
                   notifications/resources/updated for it follow, then one
                   notifications/resources/list_changed.
"""
import json
import sys

log = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else ""
subscribe = mode != "nosub"


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    with open(log, "a") as f:
        f.write(line if line.endswith("\n") else line + "\n")
    return json.loads(line)


def sample(args, k):
    """One sampling request; waits for its answer, answering what else comes."""
    rid = "sample-%d" % k
    send({"jsonrpc": "2.0", "id": rid, "method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": args.get("prompt", "")}}],
        "systemPrompt": "You answer for the sampling server.",
        "maxTokens": args.get("maxTokens", 50000),
        "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8}}})
    while True:
        msg = receive()
        if msg.get("id") == rid and "method" not in msg:
            return {k2: msg[k2] for k2 in ("result", "error") if k2 in msg}
        handle(msg)


def handle(msg):
    method = msg.get("method")
    if method == "initialize":
        caps = {"tools": {}, "resources": {"subscribe": subscribe, "listChanged": True}}
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "capabilities": caps,
            "serverInfo": {"name": "sampler", "version": "1"}}})
    elif method == "notifications/initialized" and mode == "eager":
        sample({"prompt": "asked outside any call"}, 0)
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{
            "name": "ask", "description": "asks the client's model",
            "inputSchema": {"type": "object", "properties": {"prompt": {"type": "string"}}}}]}})
    elif method == "tools/call":
        args = msg["params"].get("arguments") or {}
        answers = [sample(args, k) for k in range(int(args.get("n", 1)))]
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "content": [{"type": "text", "text": json.dumps(answers)}]}})
    elif method == "resources/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"resources": [
            {"uri": "test://watched", "name": "watched"}]}})
    elif method == "resources/subscribe":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        uri = msg["params"]["uri"]
        for _ in range(3):
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": uri}})
        send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
    elif "id" in msg and "method" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})


while True:
    handle(receive())
