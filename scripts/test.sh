#!/usr/bin/env bash
# THE test command (README and .ci/run call exactly this):
#   1. the Rust workspace's tests;
#   2. the epython package installed as a user installs it (`pip install
#      ./python`, which builds the bundled libe-hal) into a fresh venv;
#   3. its pytest suite against that installed copy.
# Needs: cargo, a C compiler, Python 3.9+ with pip and venv, and PyPI (for
# setuptools-rust and pytest) unless they are cached; for the 32-bit
# libe-hal test, the rustup target i686-unknown-linux-gnu and gcc-multilib,
# which it installs when it can (below).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# The 32-bit libe-hal test (host/tests/lib32.rs) needs the Rust target
# i686-unknown-linux-gnu and a C compiler that links -m32 programs
# (gcc-multilib). Add them when we can: rustup, and apt-get only as root.
# With both there the test must run (EPSIM_REQUIRE_LIB32); without, it
# says it was skipped.
lib32_prerequisites() {
    local t=i686-unknown-linux-gnu
    if ! rustup target list --installed 2>/dev/null | grep -qx "$t"; then
        rustup target add "$t" >/dev/null 2>&1 || echo "test.sh: cannot add the Rust target $t (rustup)" >&2
    fi
    if ! printf 'int main(void) { return 0; }\n' | "${CC:-cc}" -m32 -x c - -o /dev/null 2>/dev/null; then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            { apt-get install -y -q gcc-multilib || { apt-get update -q && apt-get install -y -q gcc-multilib; }; } >/dev/null 2>&1 ||
                echo "test.sh: apt-get install gcc-multilib failed" >&2
        else
            echo "test.sh: no 32-bit C compiler (gcc-multilib), and not root with apt-get to install it" >&2
        fi
    fi
    if rustup target list --installed 2>/dev/null | grep -qx "$t" &&
        printf 'int main(void) { return 0; }\n' | "${CC:-cc}" -m32 -x c - -o /dev/null 2>/dev/null; then
        export EPSIM_REQUIRE_LIB32=1
    else
        echo "test.sh: the 32-bit libe-hal test will be skipped" >&2
    fi
}
lib32_prerequisites

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
