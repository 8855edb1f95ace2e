"""capslab.py — the lab's scenarios for capabilities that are not one agent
command each: a download through zero's egress proxy, `zero serve --mcp
--http` under load, a batch of 64 tasks 8 at once, and the memory of an
8-member swarm. Each returns

  {"rows": {name: {"runs": [measurement…]} | {"failed": why}},
   "peers": {agent: what its equivalent is, or that it has none},
   ...scenario figures}

where a measurement has at least wall_us, cpu_us and peak_rss_kb (the
whole process tree, treemeasure), so report.py renders them like the
agents' scenarios. The rows of one scenario run interleaved, round by
round, as the agents do. Python 3 standard library only.
"""

import http.server
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "mcp"))
import agents as agents_mod  # noqa: E402

BIG = 100 << 20          # egress: the download
BATCH_TASKS, BATCH_JOBS = 64, 8
MCP_CLIENTS, MCP_CALLS = 8, 250   # mcp_http: per client, each on its own session


def rounds(lab, rows, runs, warmup=None):
    """Runs each (name, fn) of `rows` once per round, the order rotating;
    fn(tag) -> (measurement, None) | (None, why). The first round is a
    warm-up (not kept) when the lab warms up. Returns {name: record}."""
    out = {n: {"runs": []} for n, _ in rows}
    warm = lab.warmup if warmup is None else warmup
    n = warm + runs
    for r in range(n):
        order = rows[r % len(rows):] + rows[:r % len(rows)]
        for name, fn in order:
            rec = out[name]
            if "failed" in rec:
                continue
            m, why = fn("%s-%d" % (name.replace(" ", "_").replace("/", "_"), r))
            if why:
                lab.say("%s run %d FAILED: %s" % (name, r, why))
                rec["failed"] = why
                continue
            lab.say("%s run %d: wall %.1f ms, cpu %.1f ms, peak %.1f MiB" % (
                name, r, m["wall_us"] / 1e3, m["cpu_us"] / 1e3, m["peak_rss_kb"] / 1024))
            for k in ("stdout", "stderr_tail", "request_times"):
                m.pop(k, None)
            if r >= warm:
                rec["runs"].append(m)
    return out


def peer_rows(lab, agent_names, agents, rows, peers, row_of):
    """Appends to `rows` the (name, fn) of each of `agents` that is
    installed and among --agents (row_of(agent) -> (name, fn, what its
    equivalent is)), and says in `peers` what each one ran or why not."""
    for agent in agents:
        ok, why = agent.available()
        if (agent_names and agent.name not in agent_names) or not ok:
            peers[agent.name] = "not run: %s" % (why or "not among --agents")
            continue
        name, fn, text = row_of(agent)
        rows.append((name, fn))
        peers[agent.name] = text


def run(lab, scenario, agent_names):
    try:
        return {"egress": egress, "mcp_http": mcp_http, "batch": batch, "swarm": swarm}[
            scenario](lab, agent_names)
    except Exception as e:  # a broken scenario is reported, the lab goes on
        lab.say("%s FAILED: %r" % (scenario, e))
        return {"failed": repr(e)}


# -- egress -------------------------------------------------------------------------
class _Big(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    chunk = b"\0" * (1 << 20)

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(BIG))
        self.end_headers()
        for _ in range(BIG >> 20):
            self.wfile.write(self.chunk)

    def log_message(self, *a):
        pass


def egress(lab, agent_names):
    """100 MiB from a loopback HTTP server by curl inside `zero sandbox
    exec`: network "scoped" (through zero's egress proxy, a thread of the
    zero process, so in the tree's CPU) against `--network` (the host's
    network, no proxy) and against curl with no sandbox at all (the floor).
    Every row's figures are of the whole tree: zero, bwrap, the inner stage,
    curl."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Big)
    srv.daemon_threads = True
    port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    home = os.path.join(lab.scratch, "home-egress")
    ws = os.path.join(lab.scratch, "ws-egress")
    os.makedirs(os.path.join(home, ".config", "zero"), exist_ok=True)
    os.makedirs(ws, exist_ok=True)
    hosts = os.path.join(home, "hosts")
    with open(hosts, "w") as f:
        f.write("127.0.0.1 bench.test\n")
    with open(os.path.join(home, ".config", "zero", "config.json"), "w") as f:
        json.dump({"sandbox": {"network": "scoped",
                               "allowedDomains": ["bench.test:%d" % port, "127.0.0.1"]}}, f)
    env = agents_mod.Agent(lab).env(home, "")
    env["ZERO_EGRESS_HOSTS"] = hosts
    curl = shutil.which("curl") or "curl"

    def dl(url):
        return [curl, "-sS", "-o", "/dev/null", "-w", "%{size_download}", url]

    def one(argv):
        def fn(tag):
            m = lab.measured(argv, env, ws, "egress-" + tag, timeout=300)
            got = m["stdout"].strip().split("\n")[-1] if m["stdout"].strip() else ""
            if m["status"] != 0 or got != str(BIG):
                return None, "exit %s, %r bytes: %s" % (m["status"], got,
                                                         m["stderr_tail"][-300:].strip())
            return m, None
        return fn
    rows = [("zero, scoped (egress proxy)",
             one([lab.zero, "sandbox", "exec", "--"] + dl("http://bench.test:%d/big" % port))),
            ("zero, --network (direct)",
             one([lab.zero, "sandbox", "exec", "--network", "--"] +
                 dl("http://127.0.0.1:%d/big" % port))),
            ("curl alone (no sandbox)", one(dl("http://127.0.0.1:%d/big" % port)))]
    try:
        out = {"rows": rounds(lab, rows, lab.runs)}
    finally:
        srv.shutdown()
        shutil.rmtree(ws, ignore_errors=True)
    out["size"] = BIG
    out["peers"] = {
        "claude": "its sandbox sends a command's traffic through its own HTTP/SOCKS proxy "
                  "(settings sandbox.network); that runs only inside its agent loop with its "
                  "sandbox on: not measured",
        "codex": "its sandbox has network on or off, no filtering proxy: no equivalent",
        "gemini": "no egress filtering of its own (Docker/Podman networking): no equivalent",
        "opencode": "no sandbox: no equivalent"}
    return out


# -- mcp_http -------------------------------------------------------------------------
def _cpu_s(pid):
    """CPU of a process's live threads (schedstat, ns); None when it is gone."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
            except OSError:
                continue
    except OSError:
        return None
    return total / 1e9


def _status_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def mcp_http(lab, agent_names):
    """`zero serve --mcp --http` on loopback under load: MCP_CLIENTS clients
    at once, each on its own connection and session, each making MCP_CALLS
    `tools/call` of read_file one after the other. Figures of the server
    process alone (its threads' CPU from schedstat, VmHWM), so the Python
    clients do not count: CPU per call, calls per second (wall, clients
    included), peak RSS. One server per round; rounds as the lab's runs."""
    import serve_client as sc
    work = os.path.join(lab.scratch, "ws-mcp")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "small.txt"), "w") as f:
        f.write("".join("line %d of a small file\n" % i for i in range(40)))
    home = os.path.join(lab.scratch, "home-mcp")
    os.makedirs(home, exist_ok=True)
    env = agents_mod.Agent(lab).env(home, "")
    call = {"name": "read_file", "arguments": {"path": "small.txt"}}

    def fn(tag):
        proc, _, port = sc.start(lab.zero, ["--http", "0"], work, env)
        if not port:
            return None, "zero serve did not start: %s" % (sc.stop(proc)[1] or "")[-300:]
        errors = []
        try:
            conns = []
            for _ in range(MCP_CLIENTS):
                c = sc.Conn(port)
                _, sid = sc.initialize(c)
                sc.rpc(c, sid, "tools/call", call)  # warm-up: first-use allocations
                conns.append((c, sid))

            def client(c, sid):
                try:
                    for i in range(MCP_CALLS):
                        r = sc.rpc(c, sid, "tools/call", call, id=10 + i)
                        if r.status != 200 or b'"isError":false' not in r.body:
                            errors.append(r.body[:200])
                            return
                except Exception as e:  # noqa: BLE001 (reported as the run's failure)
                    errors.append(repr(e))
            ts = [threading.Thread(target=client, args=cs) for cs in conns]
            cpu0 = _cpu_s(proc.pid)
            t0 = time.perf_counter()
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            wall = time.perf_counter() - t0
            cpu = _cpu_s(proc.pid) - cpu0
            hwm = _status_kib(proc.pid, "VmHWM")
            for c, _ in conns:
                c.close()
        finally:
            sc.stop(proc)
        if errors:
            return None, "a call failed: %r" % errors[0]
        n = MCP_CLIENTS * MCP_CALLS
        return {"wall_us": int(wall * 1e6), "cpu_us": int(cpu * 1e6), "peak_rss_kb": hwm,
                "calls": n, "cpu_per_call_us": cpu * 1e6 / n, "calls_per_s": n / wall,
                "procs": 1}, None
    out = {"rows": rounds(lab, [("zero serve --mcp --http", fn)], lab.runs)}
    shutil.rmtree(work, ignore_errors=True)
    out["clients"], out["calls"] = MCP_CLIENTS, MCP_CALLS
    out["peers"] = {
        "codex": "`codex mcp-server` speaks MCP over stdio only: no HTTP equivalent",
        "claude": "`claude mcp serve` speaks MCP over stdio only: no HTTP equivalent",
        "gemini": "no MCP server mode", "opencode": "no MCP server mode"}
    return out


# -- batch ---------------------------------------------------------------------------
# The peers' batch rows (report.py reads them by these names).
BATCH_ROWS = {"codex": "codex exec × 64, xargs -P 8", "claude": "claude -p × 64, xargs -P 8"}
BATCH_PEER_TEXT = {"codex": "64 `codex exec` (native) started by xargs -P 8",
                   "claude": "64 `claude -p` (native) started by xargs -P 8"}


def xargs_argv(agent):
    """argv_of(ws) for a peer's batch: `xargs -P BATCH_JOBS` starting the
    agent's own headless run (task_cmd, the prompt from prompts.txt) per
    line, its output discarded."""
    def argv_of(ws):
        cmd = " ".join(shlex.quote(a) for a in agent.task_cmd("{}", ws))
        # -d '\n': a line is one prompt, quotes and all (xargs would parse them).
        return ["sh", "-c", "xargs -d '\\n' -P %d -I{} %s < prompts.txt >/dev/null" % (
            BATCH_JOBS, cmd)]
    return argv_of


def batch(lab, agent_names):
    """BATCH_TASKS one-turn tasks, BATCH_JOBS at once, against one fake
    server per run: `zero batch --local -j 8` (its workers are `zero exec`
    runs) and, as the peers' equivalent (neither has a batch runner),
    `xargs -P 8` starting the peer's headless run per task: `codex exec`
    or `claude -p`, each its native binary. The whole tree: the batch
    runner or xargs and every task. A run passes when it exited 0, the
    server answered at least BATCH_TASKS scripted requests and, for zero,
    every task exited 0."""
    zero, codex = agents_mod.Zero(lab), agents_mod.Codex(lab)
    want = "batch task done"
    rows = []

    def runner(agent, argv_of):
        def fn(tag):
            tag = "batch-" + tag
            ws = os.path.join(lab.scratch, "ws-" + tag)
            shutil.rmtree(ws, ignore_errors=True)
            os.makedirs(ws)
            with open(os.path.join(ws, "tasks.jsonl"), "w") as f:
                # "worktree": false: the tasks share the directory, as the
                # xargs runs of codex exec do. Left out, zero batch gives each
                # task a git worktree of the repository the scratch lies in
                # (this checkout; the worktrees go under its main checkout).
                for i in range(BATCH_TASKS):
                    f.write(json.dumps({"id": "t%d" % i, "prompt": "say done %d" % i,
                                        "worktree": False}) + "\n")
            with open(os.path.join(ws, "prompts.txt"), "w") as f:
                f.write("".join("say done %d\n" % i for i in range(BATCH_TASKS)))
            home = os.path.join(lab.scratch, "home-batch-" + agent.name)
            os.makedirs(home, exist_ok=True)
            # A spare turn per task: an agent that retries a request (a
            # stream slow on a loaded machine) gets an answer, not the
            # server's "no scripted turn left"; the check counts at least 64.
            turns = [{"text": want}] * (2 * BATCH_TASKS)
            proc, base_url, sdir = lab.start_server(turns, agent, tag)
            try:
                agent.configure(home, base_url, ws)
                m = lab.measured(argv_of(ws), agent.env(home, base_url), ws, tag, timeout=900)
            finally:
                lab.stop_server(proc)
            reqs = [r for r in lab.server_requests(sdir) if r.get("turn") is not None]
            why = None
            if m["status"] != 0:
                why = "exit %s: %s" % (m["status"], m["stderr_tail"][-300:].strip())
            elif len(reqs) < BATCH_TASKS:
                why = "%d scripted requests, want at least %d" % (len(reqs), BATCH_TASKS)
            elif agent is zero:
                with open(os.path.join(ws, "results.jsonl")) as f:
                    ok = sum(json.loads(x).get("exitCode") == 0 for x in f if x.strip())
                if ok != BATCH_TASKS:
                    why = "%d of %d tasks exited 0" % (ok, BATCH_TASKS)
            m["requests"] = len(reqs)
            if why is None:
                shutil.rmtree(ws, ignore_errors=True)
                shutil.rmtree(sdir, ignore_errors=True)
            return (None, why) if why else (m, None)
        return fn

    if not agent_names or "zero" in agent_names:
        rows.append(("zero batch --local -j 8", runner(zero, lambda ws: [
            lab.zero, "batch", "tasks.jsonl", "--local", "-j", str(BATCH_JOBS)])))
    peers = {"gemini": "no batch runner: not run", "opencode": "no batch runner: not run"}
    # Neither peer has a batch runner: xargs reads one prompt a line and keeps
    # 8 of the agent's headless runs going, each its native binary, all in
    # the one workspace and the one isolated home.
    peer_rows(lab, agent_names, (codex, agents_mod.Claude(lab)), rows, peers,
              lambda a: (BATCH_ROWS[a.name], runner(a, xargs_argv(a)),
                         "no batch runner: %s" % BATCH_PEER_TEXT[a.name]))
    # At most 2 measured runs: a run is 64 agent runs, and warms itself.
    out = {"rows": rounds(lab, rows, max(1, min(lab.runs, 2)), warmup=0)}
    out["tasks"], out["jobs"] = BATCH_TASKS, BATCH_JOBS
    out["peers"] = peers
    return out


# -- swarm ----------------------------------------------------------------------------
SWARM_MEMBERS = 8
# The peers' swarm rows (report.py reads them by these names).
SWARM_ROWS = {"codex": "codex exec × 8 (native), side by side",
              "claude": "claude -p × 8 (native), side by side"}
SWARM_PEER_TEXT = {"codex": "no swarm: 8 `codex exec` (native) side by side",
                   "claude": "no headless team of separate runs (its sub-agents live inside "
                             "one process): 8 `claude -p` (native) side by side"}


class _ScriptedRequests:
    """The lab's fake server as bench/subagent's peak_while sees a model:
    bodies() lists the scripted requests that reached it so far."""

    def __init__(self, lab, sdir):
        self.lab, self.sdir = lab, sdir

    def bodies(self):
        return [r for r in self.lab.server_requests(self.sdir) if r.get("turn") is not None]


def side_by_side_rss(lab, agent, tmp, n, peak_while, wait_ms):
    """(peak, steady, steady_pss) KiB of n headless runs of a peer
    (task_cmd: `codex exec`, `claude -p`, each its native binary) started
    side by side, each in its own isolated home and workspace, all against
    one fake server whose turns take wait_ms, so all n wait on the model at
    once (peak_while, bench/subagent's). Raises when they did not."""
    turns = [{"text": "late", "delay_before_ms": wait_ms}] * (2 * n)
    proc, base_url, sdir = lab.start_server(turns, agent, "swarm-" + os.path.basename(tmp))
    procs = []
    try:
        for i in range(n):
            home = os.path.join(tmp, "%s%d" % (agent.name, i))
            ws = os.path.join(home, "ws")
            os.makedirs(ws)
            agent.configure(home, base_url, ws)
            procs.append(subprocess.Popen(
                agent.task_cmd("task %d" % i, ws), cwd=ws, env=agent.env(home, base_url),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True))
        model = _ScriptedRequests(lab, sdir)
        peak = peak_while([p.pid for p in procs], model, n)
        if len(model.bodies()) < n:
            raise RuntimeError("%d of %d runs reached the model" % (len(model.bodies()), n))
        return peak
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait(60)
        lab.stop_server(proc)
        shutil.rmtree(sdir, ignore_errors=True)


def swarm(lab, agent_names):
    """Memory of an 8-member swarm: zero's orchestrator (`zero exec` with
    swarm.enabled) spawns 8 members (background `zero exec` children, a git
    worktree each) whose model turns are slow, so all 8 wait at once; the
    whole tree's RSS is sampled (peak from the start, steady while all
    wait). The peers' equivalent (neither has a swarm): 8 headless runs
    started side by side, each waiting the same way — `codex exec` (Codex's
    native binary) and `claude -p` (Claude Code's). zero's measurement and
    the sampling are bench/subagent/bench.py's (one copy)."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "subagent"))
    import bench as subbench  # noqa: E402
    subbench.ZERO = lab.zero

    def env_in(tmp):
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "LANG": "C.UTF-8",
                "XDG_DATA_HOME": os.path.join(tmp, "data"),
                "XDG_CONFIG_HOME": os.path.join(tmp, "cfg"),
                "OPENAI_API_KEY": "sk-bench", "OPENAI_MODEL": "test-model"}

    def row(measure):
        def fn(tag):
            tmp = os.path.join(lab.scratch, "swarm-" + tag)
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            try:
                peak, steady, steady_pss = measure(tmp, env_in(tmp))
            except RuntimeError as e:
                return None, str(e)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            if not peak:
                return None, "no samples"
            # wall and CPU are not what this scenario measures (all wait on a
            # slow model); the report shows RSS only.
            return {"wall_us": 0, "cpu_us": 0, "peak_rss_kb": peak,
                    "steady_rss_kb": steady, "steady_pss_kb": steady_pss}, None
        return fn

    def peer_row(agent):
        return row(lambda tmp, env: side_by_side_rss(lab, agent, tmp, SWARM_MEMBERS,
                                                     subbench.peak_while, subbench.WAIT_MS))

    rows = []
    if not agent_names or "zero" in agent_names:
        rows.append(("zero swarm of 8", row(
            lambda tmp, env: subbench.swarm_rss(tmp, env, SWARM_MEMBERS))))
    peers = {"gemini": "no swarm: not run", "opencode": "no swarm: not run"}
    peer_rows(lab, agent_names, (agents_mod.Codex(lab), agents_mod.Claude(lab)), rows, peers,
              lambda a: (SWARM_ROWS[a.name], peer_row(a), SWARM_PEER_TEXT[a.name]))
    out = {"rows": rounds(lab, rows, max(1, min(lab.runs, 3)), warmup=0)}
    out["members"] = SWARM_MEMBERS
    out["peers"] = peers
    return out


def summary(rec):
    """(wall ms, CPU ms, peak RSS MiB) medians of a row's runs, or None."""
    runs = rec.get("runs") or []
    if not runs or "failed" in rec:
        return None
    return (statistics.median(r["wall_us"] for r in runs) / 1e3,
            statistics.median(r["cpu_us"] for r in runs) / 1e3,
            statistics.median(r["peak_rss_kb"] for r in runs) / 1024)
