"""searchlab.py — scenario (f): zero's grep and glob tools against ripgrep on
the same large tree (bench/lab/searchtree.py), the same queries, the same
matches.

zero runs each query as `zero tools run grep|glob ARGS -C TREE`: the tool the
model calls, with the process start-up, argument checking, permission
decision, redaction and output budget of a model call. rg runs with the flags
that ask the same question. Before anything is timed, both outputs are
compared as sets of lines; a query whose answers differ is reported as
failed, not timed. Then both run interleaved (one warm-up each, so both see a
warm page cache), measured as whole process trees like every other scenario.
"""

import json
import os
import re
import shlex
import shutil
import subprocess

# (key, title, zero tool, zero arguments, rg argv). Every query's output fits
# zero's tool-output budget, so the whole answer reaches the model.
QUERIES = [
    ("grep_files", "grep, literal → file list", "grep",
     {"pattern": "bjmporkn", "head_limit": 100000},
     ["rg", "-l", "-e", "bjmporkn"]),
    ("grep_content", "grep, regex → matching lines", "grep",
     {"pattern": "^#define [A-Z]+_Q[a-z]+ 0x[0-9a-f]{2}ff$", "output_mode": "content",
      "head_limit": 100000},
     ["rg", "-n", "-e", "^#define [A-Z]+_Q[a-z]+ 0x[0-9a-f]{2}ff$"]),
    ("grep_count", "grep, regex → counts per file", "grep",
     {"pattern": "^struct br[a-z]*_ops \\{", "output_mode": "count", "head_limit": 100000},
     ["rg", "-c", "-e", "^struct br[a-z]*_ops \\{"]),
    ("glob", "glob `vendor/[a-f]*/**/*_test.go`", "glob",
     {"pattern": "vendor/[a-f]*/**/*_test.go", "limit": 1000},
     ["rg", "--files", "-g", "vendor/[a-f]*/**/*_test.go"]),
]


# The word of the in-agent variant (scenario search_turn): each agent lists
# the files that mention it with its own search tool, inside one model turn.
AGENT_WORD = "bjmporkn"
_PATH_RE = re.compile(r"vendor/[A-Za-z0-9_.\[\]/-]+?\.(?:c|h|go|py|rs|js|md)\b")


def tool_results_text(body):
    """The tool results in a request body, in any of the wire protocols
    (Responses function_call_output, Chat role "tool", Anthropic
    tool_result, Gemini functionResponse) — not the rest of the prompt,
    which may list the workspace's files (Gemini CLI's does)."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            if x.get("type") in ("function_call_output", "custom_tool_call_output",
                                 "tool_result") or \
                    x.get("role") == "tool" or "functionResponse" in x:
                out.append(json.dumps(x))
                return
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(body)
    return "\n".join(out)


def check_agent_result(lab, reqs):
    """None when the tool result an agent sent back to the model names files
    that mention AGENT_WORD and no other file; else why not. (Agents cap
    their answers differently — opencode at 100 matches — so a subset
    counts, an empty or wrong one does not.)"""
    tree = lab.search_tree()
    if not hasattr(lab, "search_truth"):
        # stdin from /dev/null: given a readable stdin (a pipe) and no path,
        # rg searches stdin instead of the tree.
        r = subprocess.run(["rg", "-l", "-e", AGENT_WORD], cwd=tree, capture_output=True,
                           text=True, stdin=subprocess.DEVNULL)
        lab.search_truth = set(r.stdout.split())
    answer = [r for r in reqs if r.get("turn") == 1]
    if not answer:
        return "no request carried the tool result back"
    text = tool_results_text(answer[0].get("body"))
    named = set(_PATH_RE.findall(text))
    if not named:
        return "its tool result names no matching file"
    wrong = sorted(named - lab.search_truth)
    if wrong:
        return "its tool result names files without the word: %s" % wrong[:3]
    return None


def zero_argv(lab, tool, args, tree):
    return [lab.zero, "tools", "run", tool, json.dumps(args), "-C", tree]


def run_callgrind(lab, wrap):
    """zero's first query under valgrind (for the instruction counts and the
    guard): (measurement, None) or (None, why)."""
    key, _, tool, args, rg = QUERIES[0]
    tree = lab.search_tree()
    home = os.path.join(lab.scratch, "home-search")
    os.makedirs(home, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": home,
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "TMPDIR": home}
    m = lab.measured(wrap + zero_argv(lab, tool, args, tree), env, tree, "cg-search",
                     timeout=600)
    if m["status"] != 0:
        return None, "exit %s: %s" % (m["status"], m["stderr_tail"][-300:])
    want = subprocess.run(rg, cwd=tree, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL).stdout
    why = check_outputs(m["stdout"], want)
    return (None, "different matches: " + why) if why else (m, None)


def lines_of(text):
    return sorted(x for x in text.split("\n") if x.strip())


def check_outputs(zero_out, rg_out):
    """None when zero and rg found the same lines, else what differs."""
    if "output truncated" in zero_out or "[showing " in zero_out:
        return "zero's output was cut to its budget; the query must fit it"
    z, r = lines_of(zero_out), lines_of(rg_out)
    if z == r:
        return None
    zs, rs = set(z), set(r)
    only_z, only_r = sorted(zs - rs)[:3], sorted(rs - zs)[:3]
    return "%d lines from zero, %d from rg; only zero: %s; only rg: %s" % (
        len(z), len(r), only_z, only_r)


def rg_version(lab):
    return lab.capture(["rg", "--version"]).split("\n")[0].strip() or "not installed"


def run(lab):
    """The scenario: {"tree": summary, "rg": version, "queries": {key: {...}}}."""
    out = {"rg": rg_version(lab), "queries": {}}
    if not shutil.which("rg"):
        out["failed"] = "ripgrep (rg) is not installed (apt-get install ripgrep)"
        return out
    tree = lab.search_tree()
    out["tree"] = lab.tree_summary
    home = os.path.join(lab.scratch, "home-search")
    os.makedirs(home, exist_ok=True)
    # An isolated home and temp dir (spill files, if any, land there).
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": home,
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "TMPDIR": home}
    for key, title, tool, args, rg in QUERIES:
        cmds = {"zero": zero_argv(lab, tool, args, tree), "rg": rg}
        q = {"title": title, "zero_cmd": "zero tools run %s '%s'" % (tool, json.dumps(args)),
             "rg_cmd": " ".join(shlex.quote(a) for a in rg),
             "results": {"zero": {"runs": []}, "rg": {"runs": []}}}
        out["queries"][key] = q
        for r in range(lab.warmup + lab.runs):
            order = ["zero", "rg"] if r % 2 == 0 else ["rg", "zero"]
            got = {}
            for who in order:
                m = lab.measured(cmds[who], env, tree, "search-%s-%s-%d" % (key, who, r))
                got[who] = m
                if m["status"] != 0:
                    q["failed"] = "%s exited %s: %s" % (who, m["status"], m["stderr_tail"][-300:])
            if "failed" in q:
                break
            why = check_outputs(got["zero"]["stdout"], got["rg"]["stdout"])
            if why:
                q["failed"] = "different matches: " + why
                break
            q["matches"] = len(lines_of(got["rg"]["stdout"]))
            for who, m in got.items():
                m.pop("stdout", None)
                if r >= lab.warmup:
                    q["results"][who]["runs"].append(m)
            lab.say("search %s run %d: zero %.1f ms / %.1f ms CPU / %.1f MiB; "
                    "rg %.1f ms / %.1f ms CPU / %.1f MiB" % (
                        key, r, got["zero"]["wall_us"] / 1e3, got["zero"]["cpu_us"] / 1e3,
                        got["zero"]["peak_rss_kb"] / 1024, got["rg"]["wall_us"] / 1e3,
                        got["rg"]["cpu_us"] / 1e3, got["rg"]["peak_rss_kb"] / 1024))
        if "failed" in q:
            lab.say("search %s FAILED: %s" % (key, q["failed"]))
    return out
