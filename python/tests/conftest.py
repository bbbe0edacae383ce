"""Shared test helpers: what is available (libe-hal, firmware, compiler),
and running a script in a fresh interpreter."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from epython import _chip

TESTS = Path(__file__).resolve().parent


def ehal_path():
    return os.environ.get("EPYTHON_EHAL") or _chip._default_ehal()


def firmware_path():
    return os.environ.get("EPYTHON_FIRMWARE") or _chip._default_firmware()


def have_compiler():
    return importlib.util.find_spec("epython.compiler") is not None


needs_ehal = pytest.mark.skipif(
    ehal_path() is None, reason="no libe-hal (install the package or set EPYTHON_EHAL)"
)
needs_chip = pytest.mark.skipif(
    ehal_path() is None or firmware_path() is None,
    reason="no libe-hal or no firmware/epython/epython.elf",
)
needs_compiler = pytest.mark.skipif(not have_compiler(), reason="epython.compiler not written yet")


def run_script(code, tmp_path, name="script.py", env=None, timeout=300):
    """Run `code` as a script file in a fresh interpreter; (stdout, stderr, rc)."""
    script = tmp_path / name
    script.write_text(code)
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(
        [str(TESTS)] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else [])
    )
    if env:
        e.update(env)
    p = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=e,
        cwd=str(tmp_path),
        timeout=timeout,
    )
    return p.stdout, p.stderr, p.returncode
