"""Real package managers through the egress proxy (issue 19, "Real parts"):
`python3 -m pip download` from a local package index and `npm install`
from a local registry, run by `zero sandbox exec` with network "scoped".

The test serves both on the host's loopback (a static "simple" index with a
wheel it builds, and a registry document with a tarball it packs), reached
by names of a test-only resolver file (ZERO_EGRESS_HOSTS). The allowed name
works; the same server under a name on no list is refused by the proxy and
never sees a connection.
"""
import base64
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unpriv  # noqa: E402

ZERO_BIN = unpriv.zero_bin()
UNPRIV = unpriv.UNPRIV
PY = "/usr/bin/python3"


class Files(http.server.ThreadingHTTPServer):
    """Serves a dict of path -> (content type, bytes); counts connections."""
    daemon_threads = True

    def __init__(self):
        self.files = {}
        self.connections = 0
        self.paths = []
        lock = threading.Lock()
        self.lock = lock

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(h):
                path = h.path.split("?")[0]
                if path.startswith("http://"):  # absolute form: strip the origin
                    path = "/" + path.split("/", 3)[3]
                with lock:
                    self.paths.append(path)
                got = self.files.get(path)
                if not got:
                    h.send_response(404)
                    h.send_header("Content-Length", "0")
                    h.end_headers()
                    return
                h.send_response(200)
                h.send_header("Content-Type", got[0])
                h.send_header("Content-Length", str(len(got[1])))
                h.end_headers()
                h.wfile.write(got[1])

            def log_message(h, *a):
                pass

        super().__init__(("127.0.0.1", 0), H)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def verify_request(self, request, client_address):
        with self.lock:
            self.connections += 1
        return True

    def stop(self):
        self.shutdown()
        self.server_close()


def wheel():
    """A minimal, valid pure-Python wheel of "zdemo" 1.0."""
    buf = io.BytesIO()
    files = {
        "zdemo/__init__.py": b"VALUE = 42\n",
        "zdemo-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: zdemo\nVersion: 1.0\n",
        "zdemo-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join("%s,sha256=%s,%d\n" % (
        n, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode(), len(b))
        for n, b in files.items()) + "zdemo-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(buf, "w") as z:
        for n, b in files.items():
            z.writestr(n, b)
        z.writestr("zdemo-1.0.dist-info/RECORD", record)
    return buf.getvalue()


def npm_tarball():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in (("package/package.json",
                            json.dumps({"name": "zdemo", "version": "1.0.0",
                                        "main": "index.js"}).encode()),
                           ("package/index.js", b"module.exports = 42;\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@unittest.skipUnless(shutil.which("bwrap"), "needs bubblewrap")
class PackageManagers(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="zero-egress-pkg-")
        os.chmod(self.root, 0o755)
        self.home = os.path.join(self.root, "home")
        self.ws = os.path.join(self.root, "ws")
        os.makedirs(self.home)
        os.makedirs(self.ws)
        os.chmod(self.ws, 0o777)
        hosts = os.path.join(self.root, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 pypi.test npm.test evil.test\n")
        self.srv = Files()
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "LANG": "C.UTF-8",
            "ZERO_EGRESS_HOSTS": hosts,
        }
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"sandbox": {"network": "scoped", "allowedDomains": [
                "pypi.test:%d" % self.srv.port, "npm.test:%d" % self.srv.port, "127.0.0.1"]}}, f)

    def tearDown(self):
        self.srv.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def sx(self, script):
        return subprocess.run([ZERO_BIN, "sandbox", "exec", "--", "/bin/sh", "-c", script],
                              cwd=self.ws, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=240)

    @unittest.skipUnless(subprocess.run([PY, "-m", "pip", "--version"],
                                        capture_output=True).returncode == 0, "needs pip")
    def test_pip_download_from_an_allowed_index_only(self):
        whl = wheel()
        self.srv.files["/simple/zdemo/"] = ("text/html", (
            '<html><body><a href="/files/zdemo-1.0-py3-none-any.whl#sha256=%s">'
            'zdemo-1.0-py3-none-any.whl</a></body></html>'
            % hashlib.sha256(whl).hexdigest()).encode())
        self.srv.files["/files/zdemo-1.0-py3-none-any.whl"] = ("application/octet-stream", whl)
        pip = ("%s -m pip download --disable-pip-version-check --no-cache-dir --no-deps "
               "--retries 0 --timeout 20 -d dl --index-url http://%%s:%d/simple/ "
               "--trusted-host %%s zdemo" % (PY, self.srv.port))
        r = self.sx(pip % ("pypi.test", "pypi.test") + " && sha256sum dl/*.whl")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(hashlib.sha256(whl).hexdigest(), r.stdout)
        self.assertIn("/files/zdemo-1.0-py3-none-any.whl", self.srv.paths)

        before = self.srv.connections
        r = self.sx("rm -rf dl; " + pip % ("evil.test", "evil.test"))
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "dl", "zdemo-1.0-py3-none-any.whl")))
        self.assertEqual(self.srv.connections, before)  # evil.test never reached the server
        self.assertIn("evil.test", r.stderr)  # zero's line saying how to allow it

    @unittest.skipUnless(shutil.which("npm"), "needs npm")
    def test_npm_install_from_an_allowed_registry_only(self):
        tgz = npm_tarball()
        base = "http://npm.test:%d" % self.srv.port
        doc = {"name": "zdemo", "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {
            "name": "zdemo", "version": "1.0.0", "main": "index.js",
            "dist": {"tarball": base + "/zdemo/-/zdemo-1.0.0.tgz",
                     "shasum": hashlib.sha1(tgz).hexdigest(),
                     "integrity": "sha512-" + base64.b64encode(
                         hashlib.sha512(tgz).digest()).decode()}}}}
        self.srv.files["/zdemo"] = ("application/json", json.dumps(doc).encode())
        self.srv.files["/zdemo/-/zdemo-1.0.0.tgz"] = ("application/octet-stream", tgz)
        with open(os.path.join(self.ws, "package.json"), "w") as f:
            json.dump({"name": "app", "version": "1.0.0", "private": True}, f)
        npm = ("npm install --no-audit --no-fund --no-update-notifier --fetch-retries=0 "
               "--cache=$PWD/.npmcache --registry=http://%s:" + str(self.srv.port) + "/ zdemo")
        r = self.sx(npm % "npm.test" + " && node -e 'console.log(require(\"zdemo\"))'")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.strip().splitlines()[-1], "42")
        self.assertIn("/zdemo/-/zdemo-1.0.0.tgz", self.srv.paths)

        before = self.srv.connections
        r = self.sx("rm -rf node_modules package-lock.json .npmcache; " + npm % "evil.test")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "node_modules", "zdemo")))
        self.assertEqual(self.srv.connections, before)
        self.assertIn("evil.test", r.stderr)


if __name__ == "__main__":
    unpriv.main(__file__)
