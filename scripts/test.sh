#!/usr/bin/env bash
# THE test command (README and .ci/run call exactly this):
#   1. the Rust workspace's tests;
#   2. the epython package installed as a user installs it (`pip install
#      ./python`, which builds the bundled libe-hal) into a fresh venv;
#   3. its pytest suite against that installed copy.
# Needs: cargo, a C compiler, Python 3.9+ with pip and venv, and PyPI (for
# setuptools-rust and pytest) unless they are cached.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

cargo test --workspace --locked

VENV=${EPYTHON_TEST_VENV:-$ROOT/target/venv-test}
PYTHON=${PYTHON:-python3}
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet ./python pytest pytest-timeout

# From the repository root, not python/: `import epython` must find the
# installed package, not the source folder (test_install checks it). A
# kernel that never returns hangs its wait(): --timeout turns such a test
# into a failure instead of a stuck run.
EPYTHON_REQUIRE_INSTALLED=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
    --timeout=120 python/tests
