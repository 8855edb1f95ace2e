#!/usr/bin/env python3
"""A scripted stand-in for the daemon's `zero exec` worker
(ZERO_DAEMON_WORKER_EXE), for tests of the pool's behaviour: retries,
exit codes, queueing, draining, live attach.

The daemon runs it as `daemon_worker.py exec --output-format stream-json
[flags…] --prompt SPEC`; SPEC is a JSON object:
  "lines":      lines to print first (default none)
  "secret":     with "report": a string whose presence in any variable is reported
  "report":     true: first print one JSON line describing this process
                (argv, cwd, pid, pgid, sid, the ZERO_SANDBOX* environment, and
                "remote_env": every variable whose name or value mentions the
                remote bridge's token)
  "log":        a file to which one line per start is appended ("start <time>")
  "fail_first": exit with "exit" on the first N starts (counted in "log"), then 0
  "wait_file":  print "waiting", then wait for this file before going on
  "child_sleep": start a child `sleep N` in the same process group first
  "sleep":      seconds to sleep before exiting (ignoring nothing: SIGKILL ends it)
  "exit":       the exit code (default 0)
"""
import json
import os
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    spec = {}
    if "--prompt" in argv:
        spec = json.loads(argv[argv.index("--prompt") + 1])
    starts = 0
    if spec.get("log"):
        with open(spec["log"], "a") as f:
            f.write("start %.3f %d\n" % (time.time(), os.getpid()))
        with open(spec["log"]) as f:
            starts = sum(1 for l in f if l.startswith("start"))
    if spec.get("report"):
        env = {k: v for k, v in os.environ.items() if k.startswith("ZERO_SANDBOX")}
        fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
        secret = spec.get("secret", "\0")
        remote_env = {k: v for k, v in os.environ.items()
                      if "DAEMON_REMOTE" in k or secret in v}
        print(json.dumps({"type": "report", "argv": argv, "cwd": os.getcwd(), "pid": os.getpid(),
                          "pgid": os.getpgid(0), "sid": os.getsid(0), "env": env,
                          "fds": fds, "remote_env": remote_env}), flush=True)
    if spec.get("child_sleep"):
        subprocess.Popen(["sleep", str(spec["child_sleep"])])
    for line in spec.get("lines", []):
        print(line, flush=True)
    if spec.get("wait_file"):
        print(json.dumps({"type": "waiting"}), flush=True)
        while not os.path.exists(spec["wait_file"]):
            time.sleep(0.02)
        print(json.dumps({"type": "released"}), flush=True)
    if spec.get("sleep"):
        time.sleep(spec["sleep"])
    code = spec.get("exit", 0)
    if "fail_first" in spec:
        code = spec.get("exit", 1) if starts <= spec["fail_first"] else 0
    print(json.dumps({"type": "run_end", "exitCode": code}), flush=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
