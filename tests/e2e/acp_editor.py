"""A small ACP client in Python that plays an editor offering its files and
terminals (fs/read_text_file, fs/write_text_file, terminal/*) to `zero acp`,
over the same JSON-RPC lines the official SDK client sends
(tests/acp/client_editor.mjs is that one). The attack tests use this one:
it needs no npm, so it runs as uid 65534 too, and it records every request
zero sent, so a test can assert what never reached the editor.

    ed = Editor(zero_bin, cwd, env, buffers={path: "unsaved text"})
    ed.request("initialize", {...}); ed.request("session/new", {...})
    ...; ed.close()
    ed.requests        # [(method, params)] zero asked of the editor
    ed.updates         # session/update params, in order
    ed.terminal_env    # the environment this client's terminals start with
"""
import json
import os
import signal
import subprocess
import threading


class Editor:
    def __init__(self, zero_bin, cwd, env, buffers=None, answer="allow-once",
                 terminal_env=None, mode=None):
        argv = [zero_bin, "acp"] + (["--permission-mode", mode] if mode else [])
        self.stderr = open(os.path.join(env.get("TMPDIR", "/tmp"), "acp-stderr.log"), "w")
        self.p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.buffers = dict(buffers or {})
        self.answer = answer
        # What an editor's terminals inherit: its own environment.
        self.terminal_env = dict(terminal_env if terminal_env is not None else env)
        self.requests = []
        self.updates = []
        self.terminals = {}
        self.lock = threading.Lock()
        self.next_id = 1

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        with self.lock:
            self.p.stdin.write(json.dumps(msg) + "\n")
            self.p.stdin.flush()

    def reply(self, rid, result=None, error=None):
        msg = {"id": rid}
        if error:
            msg["error"] = {"code": -32603, "message": error}
        else:
            msg["result"] = result
        self.send(msg)

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def start(self, method, params):
        """Sends a request without waiting; returns its id (see wait)."""
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params})
        return rid

    def request(self, method, params, on_update=None):
        """Sends a request and serves zero's own requests until its answer."""
        return self.wait(self.start(method, params), on_update)

    def wait(self, rid, on_update=None):
        """Serves zero's requests until the answer to request rid (answers
        to others that arrive first are kept for their own wait)."""
        self.until(lambda ed: rid in ed.answers, on_update)
        return self.answers.pop(rid)

    def until(self, done, on_update=None):
        """Serves zero's requests and keeps its answers and updates until
        done(self) holds."""
        self.answers = getattr(self, "answers", {})
        while not done(self):
            line = self.p.stdout.readline()
            if not line:
                raise AssertionError("zero acp closed its output")
            msg = json.loads(line)
            if "method" not in msg:
                self.answers[msg.get("id")] = msg
                continue
            if msg["method"] == "session/update":
                self.updates.append(msg["params"])
                if on_update:
                    on_update(self, msg["params"])
                continue
            self.requests.append((msg["method"], msg["params"]))
            self.serve(msg)

    # ---- zero's requests -------------------------------------------------
    def serve(self, msg):
        m, params, rid = msg["method"], msg["params"], msg["id"]
        try:
            if m == "session/request_permission":
                self.reply(rid, {"outcome": {"outcome": "selected", "optionId": self.answer}})
            elif m == "fs/read_text_file":
                path = params["path"]
                if path in self.buffers:
                    self.reply(rid, {"content": self.buffers[path]})
                else:
                    with open(path) as f:
                        self.reply(rid, {"content": f.read()})
            elif m == "fs/write_text_file":
                with open(params["path"], "w") as f:
                    f.write(params["content"])
                self.buffers.pop(params["path"], None)
                self.reply(rid, None)
            elif m == "terminal/create":
                self.reply(rid, {"terminalId": self.create_terminal(params)})
            elif m == "terminal/output":
                t = self.terminals[params["terminalId"]]
                out = {"output": "".join(t["out"]), "truncated": False}
                if t["proc"].poll() is not None:
                    out["exitStatus"] = self.status(t)
                self.reply(rid, out)
            elif m == "terminal/wait_for_exit":
                t = self.terminals[params["terminalId"]]

                def wait():
                    t["proc"].wait()
                    t["reader"].join()
                    self.reply(rid, self.status(t))
                threading.Thread(target=wait, daemon=True).start()
            elif m in ("terminal/kill", "terminal/release"):
                t = self.terminals[params["terminalId"]]
                if t["proc"].poll() is None:
                    os.killpg(t["proc"].pid, signal.SIGKILL)
                self.reply(rid, None)
            else:
                self.reply(rid, error="method not found")
        except OSError as e:
            self.reply(rid, error=str(e))

    def create_terminal(self, params):
        env = dict(self.terminal_env)
        for kv in params.get("env") or []:
            env[kv["name"]] = kv["value"]
        proc = subprocess.Popen([params["command"]] + params.get("args", []),
                                cwd=params.get("cwd"), env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        t = {"proc": proc, "out": []}

        def read():
            for chunk in iter(lambda: proc.stdout.read(1), ""):
                t["out"].append(chunk)
        t["reader"] = threading.Thread(target=read, daemon=True)
        t["reader"].start()
        tid = "term-%d" % (len(self.terminals) + 1)
        self.terminals[tid] = t
        return tid

    @staticmethod
    def status(t):
        rc = t["proc"].returncode
        if rc is not None and rc < 0:
            return {"exitCode": None, "signal": signal.Signals(-rc).name}
        return {"exitCode": rc, "signal": None}

    def methods(self):
        return [m for m, _ in self.requests]

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=60)
        for t in self.terminals.values():
            if t["proc"].poll() is None:
                os.killpg(t["proc"].pid, signal.SIGKILL)
        self.stderr.close()
        return rc

    def initialize(self, fs=True, terminal=True):
        return self.request("initialize", {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": fs, "writeTextFile": fs},
                                   "terminal": terminal}})
