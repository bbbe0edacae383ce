"""The installed package: `pip install ./python` put epython, its libe-hal
and its firmware into site-packages (scripts/test.sh sets
EPYTHON_REQUIRE_INSTALLED=1 so this cannot be skipped there)."""

import os
import sysconfig
from pathlib import Path

import pytest

import epython
from epython import _chip
from epython._ehal import Ehal

INSTALLED = (
    Path(epython.__file__).resolve().parent.parent
    == Path(sysconfig.get_paths()["purelib"]).resolve()
    or "site-packages" in Path(epython.__file__).parts
)


def test_epython_comes_from_site_packages_with_its_library_and_firmware():
    if not INSTALLED:
        if os.environ.get("EPYTHON_REQUIRE_INSTALLED"):
            pytest.fail(f"epython was imported from {epython.__file__}, not site-packages")
        pytest.skip(f"epython imported from the source tree ({epython.__file__})")
    pkg = Path(epython.__file__).resolve().parent
    lib = _chip._default_ehal()
    assert lib is not None and Path(lib).parent == pkg, lib
    fw = _chip._default_firmware()
    assert fw is not None and Path(fw) == pkg / "firmware" / "epython.elf", fw
    hal = Ehal(lib)
    assert hal.is_epsim and hal.has("epsim_run")
    assert fw.read_bytes()[:4] == b"\x7fELF"
