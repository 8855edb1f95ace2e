"""The unprivileged pass of an attack test file, from any checkout.

Attack tests run twice when started as root: as root (CI, containers) and as
uid 65534 (nobody, via setpriv). The second pass must not depend on where
the checkout lies: a clone under /root or in a `mktemp -d` directory (0700)
cannot be read by uid 65534, so it could open neither the test file nor the
zero binary. Here the pass runs from a copy instead: the e2e directory (test
modules and helpers), tests/fixtures, and the zero binary with
zero-sandbox-inner beside it go to a fresh directory under /var/tmp (or
/tmp) that everyone may read, the copied test file runs there under
setpriv with ZERO_BIN, ZERO_SOURCE_DIR and the working directory pointing
into the copy, and the copy is removed afterwards.

Use from an attack file (tests/e2e/test_attack_<topic>.py), as its last
lines:

    if __name__ == "__main__":
        unpriv.main(__file__)

main() runs the root pass in this process (unittest.main) and the
unprivileged pass in the child; it exits 0 only when both passed. Started as
any other user, or as the unprivileged pass itself (ZERO_E2E_UNPRIV=1), it
only runs the tests. A test asks `unpriv.UNPRIV` which pass it is in.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
UNPRIV = os.environ.get("ZERO_E2E_UNPRIV") == "1"
PY = "/usr/bin/python3"  # root's pyenv may not be readable by uid 65534
NOBODY = 65534


def zero_bin():
    """The zero binary under test: $ZERO_BIN, else build/zero of this checkout."""
    return os.path.abspath(os.environ.get("ZERO_BIN")
                           or os.path.join(HERE, "..", "..", "build", "zero"))


def _readable_base():
    for d in ("/var/tmp", "/tmp"):
        if os.access(d, os.W_OK):
            return d
    return None


def attack_root(case, prefix, base):
    """Gives an attack test case its own tree under base (outside /tmp,
    which is private inside the sandbox): case.root (0755, so the
    unprivileged pass can enter it) holding the directories case.home,
    case.ws (the workspace) and case.outside (where an escape would write)."""
    case.root = tempfile.mkdtemp(prefix=prefix, dir=base)
    os.chmod(case.root, 0o755)
    case.home = os.path.join(case.root, "home")
    case.ws = os.path.join(case.root, "ws")
    case.outside = os.path.join(case.root, "outside")
    for d in (case.home, case.ws, case.outside):
        os.makedirs(d)


def make_readable_copy(test_file):
    """Copies what the unprivileged pass needs to a fresh directory every
    user may read; returns (copy root, path of the copied test file,
    environment additions). The layout mirrors a checkout (tests/e2e,
    tests/fixtures, build/zero) so paths computed from __file__ still work."""
    root = tempfile.mkdtemp(prefix="zero-unpriv-", dir=_readable_base())
    os.chmod(root, 0o755)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    src_tests = os.path.dirname(os.path.dirname(os.path.abspath(test_file)))
    shutil.copytree(os.path.dirname(os.path.abspath(test_file)),
                    os.path.join(root, "tests", "e2e"), ignore=skip)
    fixtures = os.path.join(src_tests, "fixtures")
    if os.path.isdir(fixtures):
        shutil.copytree(fixtures, os.path.join(root, "tests", "fixtures"), ignore=skip)
    build = os.path.join(root, "build")
    os.makedirs(build)
    zero = zero_bin()
    for name in (os.path.basename(zero), "zero-sandbox-inner"):
        src = os.path.join(os.path.dirname(zero), name)
        if os.path.exists(src):
            shutil.copy2(src, os.path.join(build, name))
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            os.chmod(p, 0o755 if os.access(p, os.X_OK) else 0o644)
    copied = os.path.join(root, "tests", "e2e", os.path.basename(test_file))
    env = {"ZERO_BIN": os.path.join(build, os.path.basename(zero)), "ZERO_SOURCE_DIR": root}
    return root, copied, env


def run_unprivileged(test_file):
    """Runs test_file as uid 65534 from a readable copy; returns its exit code."""
    root, copied, extra = make_readable_copy(test_file)
    try:
        env = dict(os.environ, ZERO_E2E_UNPRIV="1", HOME="/tmp",
                   PATH="/usr/local/bin:/usr/bin:/bin", PYTHONDONTWRITEBYTECODE="1", **extra)
        return subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                               "--clear-groups", PY, copied], env=env, cwd=root).returncode
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(test_file):
    """Runs the tests of the calling module (see the module doc)."""
    if os.geteuid() == 0 and not UNPRIV and shutil.which("setpriv"):
        child = run_unprivileged(test_file)
        prog = unittest.main(module="__main__", exit=False, verbosity=1)
        if child != 0:
            print("unprivileged pass FAILED (exit %d)" % child, file=sys.stderr)
        sys.exit(0 if prog.result.wasSuccessful() and child == 0 else 1)
    unittest.main(module="__main__", verbosity=1)
