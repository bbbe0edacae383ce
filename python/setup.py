"""Build of the epython package: the bundled libe-hal and firmware.

Why setuptools-rust: the package talks to the chip through the C ABI of
e-hal (a `cdylib`, loaded with ctypes), not through a CPython extension.
The same pure-Python layer then loads either epsim's drop-in libe-hal or
a real Parallella's `libe-hal.so` (`epython.configure(ehal=...)`), and the
simulator is not tied to the CPython ABI. setuptools-rust builds and
bundles a plain C-ABI cdylib (`Binding.NoBinding`); maturin's only path for
a non-pyo3 library wants cffi bindings generated from a header, which
would make cffi a dependency and bind the package to one library at build
time.

What this file does:
- builds `host/Cargo.toml` (crate epsim-host, library `e_hal`) with
  cargo's `hal` profile (release, but a panic unwinds to the C boundary
  and becomes E_ERR instead of aborting Python) and `--locked`, and puts
  the shared object in the package as `epython/_libehal<EXT_SUFFIX>`;
- copies the committed firmware `firmware/epython/epython.elf` into the
  package as `epython/firmware/epython.elf` (the repository keeps the
  one committed copy).

Build from the repository (`pip install ./python`): the paths below reach
outside this folder, so an sdist alone cannot be built.
"""

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools_rust import Binding, RustExtension

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIRMWARE = REPO / "firmware" / "epython" / "epython.elf"


class BuildPyWithFirmware(build_py):
    """build_py that also copies the firmware ELF into the package."""

    def run(self):
        super().run()
        dest = Path(self.build_lib) / "epython" / "firmware"
        if not FIRMWARE.is_file():
            if os.environ.get("EPYTHON_BUILD_WITHOUT_FIRMWARE"):
                self.warn(f"{FIRMWARE} is missing: the package will have no firmware")
                return
            raise SystemExit(
                f"epython: the firmware {FIRMWARE} is missing; build it with "
                "`make -C firmware` (or set EPYTHON_BUILD_WITHOUT_FIRMWARE=1 "
                "to build a package that cannot launch kernels)"
            )
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIRMWARE, dest / "epython.elf")


setup(
    rust_extensions=[
        RustExtension(
            "epython._libehal",
            path=str(REPO / "host" / "Cargo.toml"),
            binding=Binding.NoBinding,
            args=["--profile", "hal"],
            cargo_manifest_args=["--locked"],
        )
    ],
    cmdclass={"build_py": BuildPyWithFirmware},
)
