#!/usr/bin/env python3
"""bench/ext_hooks_calls.py — part 1 of bench/ext_hooks.sh: what a no-op
beforeTool hook adds to a tool call (issue 16), side by side in one window.

For RUNS rounds, interleaved so the machine's load hits every variant alike:
  - `zero exec` against the fake model server making N read_file calls, with
    no hook, with a no-op hook (/bin/true) in the run's hook runner (one
    sandbox per run), and with a sandbox per hook call (ZERO_HOOK_RUNNER=off);
  - the floor: N bare starts of the same /bin/true by posix_spawn from this
    process (what starting the hook's process costs with no zero at all).
Figures per call: wall (best round), CPU (user+sys of the whole process
tree: zero, bwrap, the runner, the hooks; best round) and the hooks' own
round trips as zero records them (durationMs in stream-json: request to
answer, the runner's one start excluded; median). Prints a table.
Usage: ext_hooks_calls.py ZERO N RUNS WORKDIR
"""
import json, os, resource, statistics, subprocess, sys, time

ZERO, N, RUNS, T = os.path.realpath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.join(T, "home/.config/zero")
WS = os.path.join(T, "ws")
os.makedirs(CONF, exist_ok=True)
os.makedirs(WS, exist_ok=True)
for i in range(N):
    with open(os.path.join(WS, "a%d.txt" % i), "w") as f:
        f.write("hello %d\n" % i)
SCRIPT = os.path.join(T, "script.json")
with open(SCRIPT, "w") as f:
    json.dump([{"tool_calls": [{"name": "read_file", "arguments": {"path": "a%d.txt" % i}}]}
               for i in range(N)] + [{"text": "done"}], f)
HOOK = {"hooks": [{"id": "noop", "event": "beforeTool", "command": "/bin/true", "args": []}]}
ENV = dict(os.environ, HOME=os.path.join(T, "home"), XDG_CONFIG_HOME=os.path.join(T, "home/.config"),
           OPENAI_API_KEY="sk-bench", OPENAI_MODEL="bench")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def one_run(hooks, env_extra):
    """One zero exec: (wall s, cpu s, [hook durationMs])."""
    with open(os.path.join(CONF, "hooks.json"), "w") as f:
        json.dump(hooks, f)
    srv = subprocess.Popen([sys.executable, os.path.join(HERE, "../tests/e2e/fake_server.py"), SCRIPT],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = srv.stdout.readline().split()[1]
    env = dict(ENV, OPENAI_BASE_URL="http://127.0.0.1:%s/v1" % port, **env_extra)
    c0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run([ZERO, "exec", "--output-format", "stream-json", "--max-turns", str(N + 5),
                        "read the files"], cwd=WS, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    srv.kill()
    srv.wait()
    if p.returncode != 0:
        sys.exit("zero exec failed: " + p.stderr[-2000:])
    durs = []
    for line in p.stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        rec = ev.get("hook") if isinstance(ev.get("hook"), dict) else ev
        if isinstance(rec, dict) and rec.get("hookId") == "noop":
            durs.append(rec.get("durationMs", 0))
    return wall, cpu, durs


def floor():
    """N bare posix_spawns of /bin/true, stdin a payload pipe: (wall, cpu)."""
    c0, t0 = children_cpu(), time.perf_counter()
    for _ in range(N):
        r, w = os.pipe()
        pid = os.posix_spawn("/bin/true", ["/bin/true"], ENV,
                             file_actions=[(os.POSIX_SPAWN_DUP2, r, 0)])
        os.close(r)
        try:
            os.write(w, b'{"toolName":"read_file"}\n')
        except BrokenPipeError:  # it exited unread, as a hook may
            pass
        os.close(w)
        os.waitpid(pid, 0)
    return time.perf_counter() - t0, children_cpu() - c0


variants = [("none", {"hooks": []}, {}), ("runner", HOOK, {}),
            ("per-call", HOOK, {"ZERO_HOOK_RUNNER": "off"})]
res = {k: [] for k, _, _ in variants}
fl = []
for _ in range(RUNS):
    for name, hooks, extra in variants:
        res[name].append(one_run(hooks, extra))
    fl.append(floor())
best = {k: (min(r[0] for r in v), min(r[1] for r in v)) for k, v in res.items()}
ms = lambda s: s * 1000.0 / N
fw, fc = min(f[0] for f in fl), min(f[1] for f in fl)
for name in ("runner", "per-call"):
    d = [x for r in res[name] for x in r[2]]
    print("no-op beforeTool hook, %-8s: +%6.2f ms wall, +%6.2f ms CPU per call; hook round trip "
          "median %.1f ms (%d hooks)" % (name, ms(best[name][0] - best["none"][0]),
                                         ms(best[name][1] - best["none"][1]),
                                         statistics.median(d) if d else -1, len(d)))
print("floor, a bare posix_spawn of /bin/true: %.2f ms wall, %.2f ms CPU per start" % (ms(fw), ms(fc)))
print("run without hooks: %.0f ms wall, %.0f ms CPU for %d calls" % (best["none"][0] * 1000,
                                                                    best["none"][1] * 1000, N))
