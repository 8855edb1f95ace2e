#!/usr/bin/env python3
"""latency.py — overhead from a token's arrival on the socket to its bytes on
zero's stdout (-o text), per protocol.

The fake server (FAKE_SERVER_WRITE_LOG) records the time right after it
flushed each HTTP chunk; one chunk holds one text event of a known word, sent
every DELAY ms so chunks never coalesce. This script reads zero's stdout
through a pipe and timestamps each word as it appears. Overhead = stdout time
- write time, matched word by word; the median and p90 are printed, with the
same measurement for `curl -sN` of the same stream as the baseline (the
least a client does: read the socket, write the bytes).

usage: latency.py ZERO_BIN [WORDS] [DELAY_MS]
"""
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "..", "..", "tests", "e2e", "fake_server.py")


def run_one(zero, proto, words, delay_ms, tmp, client="zero"):
    text = "".join("w%03d " % i for i in range(words))
    script = os.path.join(tmp, "script.json")
    with open(script, "w") as f:
        json.dump([{"text": text, "delay_ms": delay_ms, "usage": {"prompt_tokens": 1}}], f)
    wlog = os.path.join(tmp, "writes.log")
    open(wlog, "w").close()
    env = dict(os.environ, FAKE_SERVER_WRITE_LOG=wlog)
    srv = subprocess.Popen([sys.executable, SERVER, script], stdout=subprocess.PIPE, env=env,
                           text=True)
    port = int(srv.stdout.readline().split()[1])
    root = "http://127.0.0.1:%d" % port
    home = tempfile.mkdtemp(dir=tmp)
    zenv = {"PATH": os.environ["PATH"], "HOME": home, "XDG_CONFIG_HOME": home + "/c",
            "XDG_DATA_HOME": home + "/d"}
    if proto == "chat":
        zenv.update(OPENAI_BASE_URL=root + "/v1", OPENAI_API_KEY="k", OPENAI_MODEL="m")
    elif proto == "responses":
        zenv.update(OPENAI_BASE_URL=root + "/v1", OPENAI_API_KEY="k", OPENAI_MODEL="m")
        os.makedirs(home + "/c/zero")
        with open(home + "/c/zero/config.json", "w") as f:
            json.dump({"providers": [{"name": "openai", "wireApi": "responses"}]}, f)
    elif proto == "anthropic":
        zenv.update(ANTHROPIC_BASE_URL=root, ANTHROPIC_API_KEY="k", ANTHROPIC_MODEL="m")
    else:
        zenv.update(GEMINI_BASE_URL=root, GEMINI_API_KEY="k", GEMINI_MODEL="m")
    if client == "zero":
        cmd = [zero, "exec", "-o", "text", "hi"]
    else:
        body = json.dumps({"model": "m", "stream": True, "messages": []})
        cmd = ["curl", "-sN", "-H", "Content-Type: application/json", "-d", body,
               root + "/v1/chat/completions"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=zenv,
                         cwd=home)
    seen = {}
    buf = b""
    fd = p.stdout.fileno()
    while True:
        r, _, _ = select.select([fd], [], [], 10)
        if not r:
            break
        chunk = os.read(fd, 65536)
        t = time.time()
        if not chunk:
            break
        buf += chunk
        # Each word "wNNN" is complete once its trailing space arrived.
        text_now = buf.decode("utf-8", "replace")
        for i in range(len(seen), words):
            w = "w%03d " % i
            if w in text_now:
                seen[i] = t
            else:
                break
    p.wait()
    srv.terminate()
    srv.wait()
    srv.stdout.close()
    with open(wlog) as f:
        writes = [float(l.split()[0]) for l in f if l.strip()]
    # Chunk k carries word k-offset: the first chunks (role / created /
    # block start events) carry no word. Match each word to the write of the
    # chunk that completed it: the latest write before the word was seen.
    lat = []
    for i, t in seen.items():
        before = [w for w in writes if w <= t]
        if before:
            lat.append((t - before[-1]) * 1000.0)
    return lat


def main():
    zero = os.path.abspath(sys.argv[1])
    words = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    delay = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    with tempfile.TemporaryDirectory(prefix="zero-lat-") as tmp:
        print("client\tprotocol\twords\tmedian_ms\tp90_ms")
        for client, proto in (("curl", "chat"), ("zero", "chat"), ("zero", "responses"),
                              ("zero", "anthropic"), ("zero", "gemini")):
            lat = run_one(zero, proto, words, delay, tmp, client)
            if not lat:
                print("%s\t%s\t0\t-\t-" % (client, proto))
                continue
            lat.sort()
            print("%s\t%s\t%d\t%.3f\t%.3f" % (client, proto, len(lat), statistics.median(lat),
                                             lat[int(len(lat) * 0.9) - 1]))


if __name__ == "__main__":
    main()
