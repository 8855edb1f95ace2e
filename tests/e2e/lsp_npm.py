"""Installs pyright (pinned in tests/lsp/package.json) once into a cache
folder outside /tmp ($XDG_CACHE_HOME or ~/.cache, zero-tests/lsp-<version>);
later runs reuse it. Not into the checkout: zero starts language servers in
its sandbox, whose /tmp is private, so a checkout under /tmp (CI's clean
clone) would hold a pyright the sandboxed server cannot see — as a user's
global install, the cache is visible.
require_pyright() returns the directory holding pyright-langserver, or skips
the test saying why (node / npm missing, registry unreachable) — never a
silent pass. (acp_npm.py does the same for the ACP SDK; the two could share
one helper.)"""
import fcntl
import json
import os
import shutil
import subprocess
import unittest

PINNED = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsp",
                                      "package.json"))
with open(PINNED) as _f:
    WANTED = json.load(_f)["dependencies"]["pyright"]
DIR = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                   "zero-tests", "lsp-" + WANTED)


def _pinned_version_installed():
    wanted = WANTED
    try:
        with open(os.path.join(DIR, "node_modules", "pyright", "package.json")) as f:
            return json.load(f).get("version") == wanted
    except OSError:
        return False


def require_pyright(test):
    if not (shutil.which("node") and shutil.which("npm")):
        raise unittest.SkipTest("node/npm not installed: the pyright test needs them")
    os.makedirs(DIR, exist_ok=True)
    shutil.copyfile(PINNED, os.path.join(DIR, "package.json"))
    with open(os.path.join(DIR, ".npm-lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _pinned_version_installed():
            cmd = ["npm", "install", "--prefix", DIR, "--no-audit", "--no-fund",
                   "--no-package-lock"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if r.returncode != 0 or not _pinned_version_installed():
                out = (r.stderr or r.stdout)[-500:]
                raise unittest.SkipTest("npm install of pyright failed (offline?): " + out)
    return os.path.join(DIR, "node_modules", ".bin")
