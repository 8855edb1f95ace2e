"""Installs the real MCP servers and the official SDK from npm, pinned, into
tests/e2e/.npm (gitignored), once; later runs reuse them. Tests call
require_npm() and are skipped, with the reason, when node / npm or the
packages are unavailable — never silently passed."""
import fcntl
import os
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = os.path.normpath(os.path.join(HERE, "..", ".npm"))
PACKAGES = {
    "@modelcontextprotocol/server-everything": "2026.8.31",
    "@modelcontextprotocol/server-filesystem": "2026.8.31",
    "@modelcontextprotocol/sdk": "1.32.2",
}


def module_path(name):
    return os.path.join(PREFIX, "node_modules", name)


def _installed():
    import json
    for name, version in PACKAGES.items():
        pj = os.path.join(module_path(name), "package.json")
        try:
            with open(pj) as f:
                if json.load(f).get("version") != version:
                    return False
        except OSError:
            return False
    return True


def require_npm(test):
    """Returns the node_modules directory, or skips the test saying why."""
    if not shutil.which("node") or not shutil.which("npm"):
        raise unittest.SkipTest("node/npm not installed: the real-MCP-server tests need them")
    os.makedirs(PREFIX, exist_ok=True)
    with open(os.path.join(PREFIX, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test files install once
        if not _installed():
            specs = ["%s@%s" % kv for kv in PACKAGES.items()]
            r = subprocess.run(["npm", "install", "--prefix", PREFIX, "--no-audit", "--no-fund",
                                "--no-save"] + specs, capture_output=True, text=True, timeout=600)
            if r.returncode != 0 or not _installed():
                raise unittest.SkipTest("npm install of the MCP test servers failed (offline?): "
                                        + (r.stderr or r.stdout)[-500:])
    return os.path.join(PREFIX, "node_modules")
