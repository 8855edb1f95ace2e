#!/usr/bin/env python3
"""bench/ext_hooks_calls.py — part 1 of bench/ext_hooks.sh: what a no-op
beforeTool hook adds to a tool call (issue 16), side by side in one window.

For RUNS rounds, alternating so the machine's load hits the variants alike:
  - `zero exec` against the fake model server making N read_file calls, with
    no hook, with a no-op hook (/bin/true) in the run's hook runner (one
    sandbox per run), and with a sandbox per hook call (ZERO_HOOK_RUNNER=off);
  - the floor: N bare starts of the same /bin/true by posix_spawn from this
    process (what starting the hook's process costs with no zero at all).

Where the time is read:
  - per call: the fake server logs when each request arrives; the gap
    between two requests is one turn of zero (the answer parsed, the tool
    call gated — the hook runs here —, run, recorded, the next request
    sent). Turns 2..N (the runner is up by then) of every round are pooled
    per variant; the figure is median(with) - median(without), the mean
    beside it (the mean carries the load's spikes, which hit the variant
    with more process wake-ups harder), and the same difference between
    each variant's quietest round (lowest median turn: least contended);
  - the runner's start: the first turn's gap, with - without (median of the
    rounds): the one sandbox build the first hook waits for when the model
    answers at once, as the fake server does (a real model's first answer
    usually takes longer than the build, which then costs no wait);
  - the whole run: (best wall with - best wall without) / N, everything
    included (the runner's start spread over the N calls);
  - CPU: user+sys of the whole process tree (zero, bwrap, the runner, the
    hooks), best round, per call;
  - the hook's round trip as zero records it (durationMs in stream-json:
    request to answer, the runner's start excluded; median).
The fake server runs with FAKE_SERVER_NODELAY=1: without it every response
stalls ~40 ms on Nagle + delayed ACK, which buries a millisecond in noise.
Usage: ext_hooks_calls.py ZERO N RUNS WORKDIR
"""
import json, os, resource, statistics, subprocess, sys, time

ZERO, N, RUNS, T = os.path.realpath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.join(T, "home/.config/zero")
WS = os.path.join(T, "ws")
LOG = os.path.join(T, "requests.jsonl")
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


def hook_durations(stdout):
    """The durationMs of every run of the noop hook in a stream-json log."""
    durs = []
    for line in stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        rec = ev.get("hook") if isinstance(ev.get("hook"), dict) else ev
        if isinstance(rec, dict) and rec.get("hookId") == "noop":
            durs.append(rec.get("durationMs", 0))
    return durs


def one_run(hooks, env_extra):
    """One zero exec: {wall, cpu (s), gaps (s, between requests), durs (ms)}."""
    with open(os.path.join(CONF, "hooks.json"), "w") as f:
        json.dump(hooks, f)
    if os.path.exists(LOG):
        os.unlink(LOG)
    srv = subprocess.Popen([sys.executable, os.path.join(HERE, "../tests/e2e/fake_server.py"), SCRIPT,
                            "--log", LOG], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env=dict(os.environ, FAKE_SERVER_NODELAY="1"))
    port = srv.stdout.readline().split()[1]
    env = dict(ENV, OPENAI_BASE_URL="http://127.0.0.1:%s/v1" % port, **env_extra)
    c0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run([ZERO, "exec", "--output-format", "stream-json", "--max-turns", str(N + 5),
                        "read the files"], cwd=WS, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0  # before the server is reaped
    srv.kill()
    srv.wait()
    if p.returncode != 0:
        sys.exit("zero exec failed: " + p.stderr[-2000:])
    with open(LOG) as f:
        arrivals = [json.loads(line)["time"] for line in f]
    if len(arrivals) != N + 1:
        sys.exit("expected %d requests, the server saw %d" % (N + 1, len(arrivals)))
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    return {"wall": wall, "cpu": cpu, "gaps": gaps, "durs": hook_durations(p.stdout)}


def floor():
    """N bare posix_spawns of /bin/true, stdin a payload pipe: per start
    wall times (s) and the CPU of them all."""
    c0, walls = children_cpu(), []
    for _ in range(N):
        t0 = time.perf_counter()
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
        walls.append(time.perf_counter() - t0)
    return walls, children_cpu() - c0


# none and runner alternate (ABBA: each goes first as often), the floor in
# between; the per-call variant runs after them all: its N sandboxes leave
# the kernel tearing down N network namespaces for a while after it ends,
# which would slow whatever ran next (a bias, not noise).
variants = {"none": ({"hooks": []}, {}), "runner": (HOOK, {}),
            "per-call": (HOOK, {"ZERO_HOOK_RUNNER": "off"})}
res = {k: [] for k in variants}
floor_walls, floor_cpu = [], []
for i in range(RUNS):
    for name in ("none", "runner") if i % 2 == 0 else ("runner", "none"):
        res[name].append(one_run(*variants[name]))
    w, c = floor()
    floor_walls += w
    floor_cpu.append(c)
for i in range(RUNS):
    res["per-call"].append(one_run(*variants["per-call"]))

ms = lambda s: s * 1000.0


def steady(name):
    return [g for r in res[name] for g in r["gaps"][1:]]


base_med, base_mean = statistics.median(steady("none")), statistics.mean(steady("none"))
base_quiet = min(statistics.median(r["gaps"][1:]) for r in res["none"])
print("per tool call, %d calls x %d rounds; turn = one request-to-request gap of zero" % (N, RUNS))
print("  no hook: turn median %.2f ms, mean %.2f ms" % (ms(base_med), ms(base_mean)))
for name in ("runner", "per-call"):
    g = steady(name)
    med, mean = statistics.median(g), statistics.mean(g)
    first = statistics.median([r["gaps"][0] - n["gaps"][0] for r, n in zip(res[name], res["none"])])
    whole = (min(r["wall"] for r in res[name]) - min(r["wall"] for r in res["none"])) / N
    cpu = (min(r["cpu"] for r in res[name]) - min(r["cpu"] for r in res["none"])) / N
    durs = [d for r in res[name] for d in r["durs"]]
    quiet = min(statistics.median(r["gaps"][1:]) for r in res[name])
    print("  no-op beforeTool hook, %-8s: +%.2f ms per call (median turn %.2f ms, x%.2f); mean +%.2f ms;"
          " quietest rounds +%.2f ms" % (name, ms(med - base_med), ms(med), med / base_med,
                                         ms(mean - base_mean), ms(quiet - base_quiet)))
    print("      first call +%.1f ms (waits for the sandbox); whole run +%.2f ms wall, +%.2f ms CPU per call;"
          " hook round trip median %.1f ms (%d hooks)"
          % (ms(first), ms(whole), ms(cpu), statistics.median(durs) if durs else -1, len(durs)))
print("  floor, a bare posix_spawn of /bin/true: median %.2f ms wall, %.2f ms CPU per start"
      % (ms(statistics.median(floor_walls)), ms(min(floor_cpu)) / N))
