"""Installs pyright (pinned in tests/lsp/package.json) into
tests/lsp/node_modules (gitignored), once; later runs reuse it.
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

DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsp"))


def _pinned_version_installed():
    with open(os.path.join(DIR, "package.json")) as f:
        wanted = json.load(f)["dependencies"]["pyright"]
    try:
        with open(os.path.join(DIR, "node_modules", "pyright", "package.json")) as f:
            return json.load(f).get("version") == wanted
    except OSError:
        return False


def require_pyright(test):
    if not (shutil.which("node") and shutil.which("npm")):
        raise unittest.SkipTest("node/npm not installed: the pyright test needs them")
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
