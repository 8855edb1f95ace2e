"""Installs the official Agent Client Protocol library (@agentclientprotocol/sdk,
pinned in tests/acp/package.json) into tests/acp/node_modules (gitignored),
once; later runs reuse it. require_acp_sdk() skips the test, saying why, when
node / npm or the package are unavailable — never a silent pass."""
import fcntl
import json
import os
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.normpath(os.path.join(HERE, "..", "acp"))
PACKAGE = "@agentclientprotocol/sdk"


def _wanted():
    with open(os.path.join(CLIENT_DIR, "package.json")) as f:
        return json.load(f)["dependencies"][PACKAGE]


def _installed():
    try:
        with open(os.path.join(CLIENT_DIR, "node_modules", PACKAGE, "package.json")) as f:
            return json.load(f).get("version") == _wanted()
    except OSError:
        return False


def require_acp_sdk(test):
    """Returns the test client's directory (tests/acp), or skips the test."""
    if not shutil.which("node") or not shutil.which("npm"):
        raise unittest.SkipTest("node/npm not installed: the ACP client test needs them")
    with open(os.path.join(CLIENT_DIR, ".npm-lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed():
            r = subprocess.run(["npm", "install", "--prefix", CLIENT_DIR, "--no-audit", "--no-fund",
                                "--no-package-lock"], capture_output=True, text=True, timeout=600)
            if r.returncode != 0 or not _installed():
                raise unittest.SkipTest("npm install of %s failed (offline?): %s"
                                        % (PACKAGE, (r.stderr or r.stdout)[-500:]))
    return CLIENT_DIR
