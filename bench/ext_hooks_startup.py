#!/usr/bin/env python3
"""bench/ext_hooks_startup.py — part 3 of bench/ext_hooks.sh: what 50 skills
and 50 custom commands add to zero's start (issue 16), side by side.

Two homes, one with no extensions and one with 50 skills (~/.config/zero/
skills/sN/SKILL.md) and 50 commands (~/.config/zero/commands/cN.md); the
command is `zero hooks list`, which loads the extensions as a run's start
does (the skills, whose names and descriptions go into the system prompt;
custom commands are read on first use) and prints only the hooks. N starts
of each, alternating (so load changes hit both alike), each timed alone:
  - wall: median and 10th percentile (the least contended starts) of each,
    and their differences;
  - CPU: user+sys of all the starts (rusage of the children), per start;
  - instructions: one start of each under callgrind, when valgrind is on
    PATH (exact, whatever the load).
Usage: ext_hooks_startup.py ZERO N WORKDIR
"""
import os, re, resource, shutil, statistics, subprocess, sys, time

ZERO, N, T = os.path.realpath(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def make_home(name, extensions):
    conf = os.path.join(T, name, "home/.config/zero")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "hooks.json"), "w") as f:
        f.write('{"hooks":[]}')
    for i in range(50 if extensions else 0):
        os.makedirs(os.path.join(conf, "skills/s%d" % i), exist_ok=True)
        os.makedirs(os.path.join(conf, "commands"), exist_ok=True)
        with open(os.path.join(conf, "skills/s%d/SKILL.md" % i), "w") as f:
            f.write("---\nname: s%d\ndescription: skill %d does a thing\n---\nbody\n" % (i, i))
        with open(os.path.join(conf, "commands/c%d.md" % i), "w") as f:
            f.write("---\ndescription: command %d\n---\nDo $ARGUMENTS\n" % i)
    ws = os.path.join(T, name, "ws")
    os.makedirs(ws, exist_ok=True)
    return ws, dict(os.environ, HOME=os.path.join(T, name, "home"),
                    XDG_CONFIG_HOME=os.path.join(T, name, "home/.config"))


homes = {"none": make_home("none", False), "50+50": make_home("full", True)}
devnull = os.open(os.devnull, os.O_WRONLY)


def start(name):
    """One `zero hooks list`: (wall s, cpu s)."""
    ws, env = homes[name]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    pid = os.posix_spawn(ZERO, [ZERO, "hooks", "list"], env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status = os.waitpid(pid, 0)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if status != 0:
        sys.exit("zero hooks list failed (status %d)" % status)
    return wall, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)


def instructions(name):
    """Instructions of one start under callgrind, or None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    ws, env = homes[name]
    out = os.path.join(T, "callgrind.%s" % name.replace("+", "_"))
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, ZERO, "hooks",
                        "list"], cwd=ws, env=env, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    return int(m.group(1)) if m else None


walls = {k: [] for k in homes}
cpus = {k: 0.0 for k in homes}
for i in range(N):
    for name in (("none", "50+50") if i % 2 == 0 else ("50+50", "none")):
        w, c = start(name)
        walls[name].append(w)
        cpus[name] += c
ms = lambda s: s * 1000.0
p10 = lambda v: sorted(v)[len(v) // 10]
med = {k: statistics.median(v) for k, v in walls.items()}
low = {k: p10(v) for k, v in walls.items()}
print("startup (zero hooks list, %d starts of each, alternating):" % N)
print("  wall median %.2f ms with 50 skills + 50 commands vs %.2f ms with none: +%.2f ms (x%.2f)"
      % (ms(med["50+50"]), ms(med["none"]), ms(med["50+50"] - med["none"]), med["50+50"] / med["none"]))
print("  wall 10th percentile %.2f ms vs %.2f ms: +%.2f ms" % (ms(low["50+50"]), ms(low["none"]),
                                                          ms(low["50+50"] - low["none"])))
print("  CPU %.2f ms vs %.2f ms per start: +%.2f ms" % (ms(cpus["50+50"]) / N, ms(cpus["none"]) / N,
                                                     ms(cpus["50+50"] - cpus["none"]) / N))
ins = {k: instructions(k) for k in homes}
if None not in ins.values():
    print("  instructions (callgrind) %.2f M vs %.2f M: +%.2f M" % (ins["50+50"] / 1e6, ins["none"] / 1e6,
                                                                (ins["50+50"] - ins["none"]) / 1e6))
