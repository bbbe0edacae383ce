"""The ctypes layer over libe-hal: struct layouts and the calls themselves."""

import ctypes
import ctypes.util
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import needs_ehal, run_script

from epython import _ehal

INCLUDE = Path(__file__).resolve().parents[2] / "host" / "include"

STRUCTS = {
    "e_mmap_t": _ehal.e_mmap_t,
    "e_core_t": _ehal.e_core_t,
    "e_epiphany_t": _ehal.e_epiphany_t,
    "e_mem_t": _ehal.e_mem_t,
    "e_chip_t": _ehal.e_chip_t,
    "e_memseg_t": _ehal.e_memseg_t,
    "e_platform_t": _ehal.e_platform_t,
}


@pytest.mark.skipif(
    shutil.which("cc") is None or not INCLUDE.is_dir(), reason="needs cc and host/include"
)
def test_struct_layouts_match_the_c_headers(tmp_path):
    lines = [
        "#include <stdio.h>",
        "#include <stddef.h>",
        '#include "e-hal.h"',
        '#include "epsim.h"',
    ]
    lines.append("int main(void) {")
    structs = dict(STRUCTS, epsim_stats_t=_ehal.epsim_stats_t)
    for name, cls in structs.items():
        lines.append(f'printf("{name} %zu\\n", sizeof({name}));')
        for field, _ in cls._fields_:
            lines.append(f'printf("{name}.{field} %zu\\n", offsetof({name}, {field}));')
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run(["cc", "-I", str(INCLUDE), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    want = dict(line.rsplit(" ", 1) for line in out.splitlines())
    for name, cls in structs.items():
        assert int(want[name]) == ctypes.sizeof(cls), name
        for field, _ in cls._fields_:
            assert int(want[f"{name}.{field}"]) == getattr(cls, field).offset, f"{name}.{field}"


def test_a_library_that_is_not_libe_hal_is_refused():
    libc = ctypes.util.find_library("c")
    if libc is None:
        pytest.skip("no libc to load")
    with pytest.raises(_ehal.EhalError, match="not a libe-hal"):
        _ehal.Ehal(libc)
    with pytest.raises(_ehal.EhalError, match="cannot load"):
        _ehal.Ehal("/nonexistent/libe-hal.so")


@needs_ehal
def test_calls_reach_the_simulated_chip(tmp_path):
    out, err, rc = run_script(
        """
import os
os.environ["EPSIM_MODE"] = "deterministic"
from conftest import ehal_path
from epython._ehal import Ehal
h = Ehal(ehal_path())
assert h.is_epsim
h.init()
p = h.platform()
print("chip", p.rows, p.cols, p.row, p.col, hex(p.emem[0].ephy_base))
dev = h.open(0, 0, p.rows, p.cols)
mem = h.alloc(0x100000, 0x1000)
t0 = h.now()
h.write(dev, 1, 2, 0x4020, b"abcdefgh")
assert h.read(dev, 1, 2, 0x4020, 8) == b"abcdefgh"
h.write(mem, 0, 0, 8, b"12345678")
assert h.read(mem, 0, 0, 8, 8) == b"12345678"
print("advanced", h.now() > t0)
s = h.stats()
print("bytes", s["bytes_written"], s["bytes_read"])
try:
    h.write(dev, 9, 9, 0, b"x")
except Exception as e:
    print("error", type(e).__name__)
h.close(dev); h.free(mem); h.finalize()
""",
        tmp_path,
    )
    assert rc == 0, err
    assert out.splitlines() == [
        "chip 4 4 32 8 0x8e000000",
        "advanced True",
        "bytes 16 16",
        "error EhalError",
    ]
