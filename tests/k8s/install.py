#!/usr/bin/env python3
"""Installs the pinned kubernetes-models package (package.json /
package-lock.json beside this file: Kubernetes' own API schemas compiled to
ajv validators) into tests/k8s/node_modules with `npm ci`, once, the way
tests/conformance/install.py does for the MCP suite (its helpers, reused).
Used by .ci/run's deps stage and by tests/e2e/test_batch_k8s.py. As a script
it exits 0 when the package is ready, 1 (saying why) otherwise."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "kubernetes-models"

_spec = importlib.util.spec_from_file_location(
    "conformance_install", os.path.join(HERE, "..", "conformance", "install.py"))
_pin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_pin)


def ensure():
    """Returns None when the schemas are ready, else why they are not."""
    return _pin.ensure(HERE, PACKAGE)


def validator_path():
    return os.path.join(HERE, "validate.mjs")


if __name__ == "__main__":
    why = ensure()
    if why:
        print("k8s schema install:", why, file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
