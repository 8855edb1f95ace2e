#!/usr/bin/env python3
"""Installs the pinned MCP conformance suite (package.json / package-lock.json
beside this file) into tests/conformance/node_modules with `npm ci`, once;
later calls see the pinned version there and do nothing. Used by .ci/run's
deps stage and by tests/e2e/test_mcp_conformance.py. As a script it exits 0
when the suite is ready, 1 (saying why) when node/npm are missing or npm
cannot reach the registry."""
import fcntl
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "@modelcontextprotocol/conformance"


def pinned_version(here=HERE, package=PACKAGE):
    with open(os.path.join(here, "package.json")) as f:
        return json.load(f)["dependencies"][package]


def cli_path():
    return os.path.join(HERE, "node_modules", PACKAGE, "dist", "index.js")


def installed(here=HERE, package=PACKAGE):
    try:
        with open(os.path.join(here, "node_modules", package, "package.json")) as f:
            return json.load(f).get("version") == pinned_version(here, package)
    except (OSError, ValueError):
        return False


def ensure(here=HERE, package=PACKAGE):
    """Returns None when the suite is ready, else why it is not. Another
    pinned npm package (tests/k8s) passes its folder and package name."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "node/npm not installed"
    with open(os.path.join(here, ".install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel callers install once
        if installed(here, package):
            return None
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=here,
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0 or not installed(here, package):
            return "npm ci of %s@%s failed (offline?): %s" % (
                package, pinned_version(here, package), (r.stderr or r.stdout).strip()[-400:])
    return None


if __name__ == "__main__":
    why = ensure()
    if why:
        print("conformance install:", why, file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
