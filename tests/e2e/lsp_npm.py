"""Installs pyright (pinned in tests/lsp/package.json) into
tests/lsp/node_modules (gitignored), once; later runs reuse it.
require_pyright() returns the directory holding pyright-langserver, or skips
the test saying why (node / npm missing, registry unreachable) — never a
silent pass."""
import fcntl
import json
import os
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.normpath(os.path.join(HERE, "..", "lsp"))
PACKAGE = "pyright"


def _wanted():
    with open(os.path.join(DIR, "package.json")) as f:
        return json.load(f)["dependencies"][PACKAGE]


def _installed():
    try:
        with open(os.path.join(DIR, "node_modules", PACKAGE, "package.json")) as f:
            return json.load(f).get("version") == _wanted()
    except OSError:
        return False


def require_pyright(test):
    if not shutil.which("node") or not shutil.which("npm"):
        raise unittest.SkipTest("node/npm not installed: the pyright test needs them")
    with open(os.path.join(DIR, ".npm-lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed():
            r = subprocess.run(["npm", "install", "--prefix", DIR, "--no-audit", "--no-fund",
                                "--no-package-lock"], capture_output=True, text=True, timeout=600)
            if r.returncode != 0 or not _installed():
                raise unittest.SkipTest("npm install of %s failed (offline?): %s"
                                        % (PACKAGE, (r.stderr or r.stdout)[-500:]))
    return os.path.join(DIR, "node_modules", ".bin")
