"""e-hal through ctypes: the C ABI of libe-hal, epsim's drop-in or a board's.

Owns: the ctypes mirrors of e-hal's structs, the argument types of the
functions the package calls, and the turning of e-hal's return codes into
Python exceptions. Nothing here knows the firmware's protocol.

The structs use the platform's native `long` for `off_t`, `size_t` and
pointers, so they match both LP64 (x86-64, aarch64; epsim's layout in
host/include/epiphany-hal-data.h) and the ILP32 ARM of a Parallella, where
the ESDK is built with a 32-bit `off_t`.

The `epsim_*` controls (host/include/epsim.h) exist only in epsim's
libe-hal; `Ehal.has(name)` says whether the loaded library has one, and a
real board's library simply has none.
"""

import ctypes
import os
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_int,
    c_long,
    c_size_t,
    c_ssize_t,
    c_uint,
    c_ulonglong,
    c_void_p,
)

E_OK = 0
E_ERR = -1
E_WARN = -2

E_FALSE = 0
E_TRUE = 1

EPSIM_FREE = 0
EPSIM_DETERMINISTIC = 1

# off_t as the ESDK builds it: a C long (64-bit on LP64, 32-bit on ARM).
c_off_t = c_long


class e_mmap_t(Structure):
    _fields_ = [
        ("objtype", c_int),
        ("phy_base", c_off_t),
        ("page_base", c_off_t),
        ("page_offset", c_off_t),
        ("map_size", c_size_t),
        ("mapped_base", c_void_p),
        ("base", c_void_p),
    ]


class e_core_t(Structure):
    _fields_ = [
        ("objtype", c_int),
        ("id", c_uint),
        ("row", c_uint),
        ("col", c_uint),
        ("mems", e_mmap_t),
        ("regs", e_mmap_t),
    ]


class e_epiphany_t(Structure):
    # `priv` is epsim's; a board's e-hal stops at memfd. The struct is only
    # ever allocated here and filled by e_open, so the extra word is harmless.
    _fields_ = [
        ("objtype", c_int),
        ("type", c_int),
        ("num_cores", c_uint),
        ("base_coreid", c_uint),
        ("row", c_uint),
        ("col", c_uint),
        ("rows", c_uint),
        ("cols", c_uint),
        ("core", POINTER(POINTER(e_core_t))),
        ("memfd", c_int),
        ("priv", c_void_p),
    ]


class e_mem_t(Structure):
    _fields_ = [
        ("objtype", c_int),
        ("phy_base", c_off_t),
        ("page_base", c_off_t),
        ("page_offset", c_off_t),
        ("map_size", c_size_t),
        ("ephy_base", c_off_t),
        ("emap_size", c_size_t),
        ("mapped_base", c_void_p),
        ("base", c_void_p),
        ("memfd", c_int),
        ("priv", c_void_p),
    ]


class e_chip_t(Structure):
    _fields_ = [
        ("objtype", c_int),
        ("type", c_int),
        ("version", c_char * 32),
        ("arch", c_uint),
        ("base_coreid", c_uint),
        ("row", c_uint),
        ("col", c_uint),
        ("rows", c_uint),
        ("cols", c_uint),
        ("num_cores", c_uint),
        ("sram_base", c_uint),
        ("sram_size", c_uint),
        ("regs_base", c_uint),
        ("regs_size", c_uint),
        ("ioregs_n", c_off_t),
        ("ioregs_e", c_off_t),
        ("ioregs_s", c_off_t),
        ("ioregs_w", c_off_t),
    ]


class e_memseg_t(Structure):
    _fields_ = [
        ("objtype", c_int),
        ("phy_base", c_off_t),
        ("ephy_base", c_off_t),
        ("size", c_size_t),
        ("type", c_int),
    ]


class e_platform_t(Structure):
    _fields_ = [
        ("objtype", c_int),
        ("type", c_int),
        ("version", c_char * 32),
        ("hal_ver", c_uint),
        ("initialized", c_int),
        ("num_chips", c_uint),
        ("chip", POINTER(e_chip_t)),
        ("row", c_uint),
        ("col", c_uint),
        ("rows", c_uint),
        ("cols", c_uint),
        ("num_emems", c_int),
        ("emem", POINTER(e_memseg_t)),
        ("target_ops", c_void_p),
        ("priv", c_void_p),
    ]


class epsim_stats_t(Structure):
    _fields_ = [
        ("cycles", c_ulonglong),
        ("host_cycles", c_ulonglong),
        ("calls", c_ulonglong),
        ("write_txns", c_ulonglong),
        ("read_txns", c_ulonglong),
        ("bytes_written", c_ulonglong),
        ("bytes_read", c_ulonglong),
        ("instret", c_ulonglong),
    ]


class EhalError(RuntimeError):
    """An e-hal call failed (E_ERR or a short transfer)."""


# name -> (restype, argtypes); the e-hal functions every libe-hal has.
_CORE_API = {
    "e_init": (c_int, [c_char_p]),
    "e_get_platform_info": (c_int, [POINTER(e_platform_t)]),
    "e_finalize": (c_int, []),
    "e_open": (c_int, [POINTER(e_epiphany_t), c_uint, c_uint, c_uint, c_uint]),
    "e_close": (c_int, [POINTER(e_epiphany_t)]),
    "e_alloc": (c_int, [POINTER(e_mem_t), c_off_t, c_size_t]),
    "e_free": (c_int, [POINTER(e_mem_t)]),
    "e_read": (c_ssize_t, [c_void_p, c_uint, c_uint, c_off_t, c_void_p, c_size_t]),
    "e_write": (c_ssize_t, [c_void_p, c_uint, c_uint, c_off_t, c_void_p, c_size_t]),
    "e_load_group": (
        c_int,
        [c_char_p, POINTER(e_epiphany_t), c_uint, c_uint, c_uint, c_uint, c_int],
    ),
    "e_start_group": (c_int, [POINTER(e_epiphany_t)]),
    "e_reset_group": (c_int, [POINTER(e_epiphany_t)]),
    "e_signal": (c_int, [POINTER(e_epiphany_t), c_uint, c_uint]),
}

# The epsim_* extensions: looked up one by one, absent on a board.
_EPSIM_API = {
    "epsim_set_mode": (c_int, [c_int]),
    "epsim_get_mode": (c_int, []),
    "epsim_run": (c_int, [c_ulonglong]),
    "epsim_run_until_idle": (c_int, [c_ulonglong]),
    "epsim_now": (c_ulonglong, []),
    "epsim_stats": (c_int, [POINTER(epsim_stats_t)]),
    "epsim_run_until_cores_idle": (
        c_int,
        [POINTER(c_uint), POINTER(c_uint), c_uint, c_int, c_ulonglong],
    ),
    "epsim_core_idle": (c_int, [c_uint, c_uint]),
    "epsim_trace_start": (c_int, [c_char_p, c_int]),
    "epsim_trace_stop": (c_int, []),
}


class Ehal:
    """One loaded libe-hal: its functions with argument types, and checks."""

    def __init__(self, path):
        self.path = os.fspath(path)
        try:
            # RTLD_GLOBAL is not needed: nothing else links against it.
            self.lib = ctypes.CDLL(self.path)
        except OSError as e:
            raise EhalError(f"cannot load libe-hal {self.path!r}: {e}") from None
        for name, (res, args) in _CORE_API.items():
            fn = getattr(self.lib, name, None)
            if fn is None:
                raise EhalError(f"{self.path}: not a libe-hal (no {name})")
            fn.restype = res
            fn.argtypes = args
        self._epsim = {}
        for name, (res, args) in _EPSIM_API.items():
            fn = getattr(self.lib, name, None)
            if fn is not None:
                fn.restype = res
                fn.argtypes = args
                self._epsim[name] = fn

    def has(self, name):
        """True if this library has the epsim_* function `name`."""
        return name in self._epsim

    @property
    def is_epsim(self):
        return self.has("epsim_now")

    def __getattr__(self, name):
        # e_* functions come straight from the library (restype set above).
        if name.startswith("epsim_"):
            try:
                return self._epsim[name]
            except KeyError:
                raise AttributeError(f"{self.path} has no {name}") from None
        raise AttributeError(name)

    # ------------------------------------------------------------ checks

    def check(self, rc, what):
        if rc == E_ERR:
            hint = "" if os.environ.get("EPSIM_VERBOSE") else " (EPSIM_VERBOSE=1 says why)"
            raise EhalError(f"{what} failed{hint}")
        return rc

    def init(self, hdf=None):
        arg = None if hdf is None else os.fsencode(hdf)
        self.check(self.lib.e_init(arg), f"e_init({hdf!r})")

    def platform(self):
        """The e_platform global e_init filled (its chip and emem pointers too)."""
        try:
            return e_platform_t.in_dll(self.lib, "e_platform")
        except ValueError:
            p = e_platform_t()
            self.check(self.lib.e_get_platform_info(ctypes.byref(p)), "e_get_platform_info")
            return p

    def open(self, row, col, rows, cols):
        dev = e_epiphany_t()
        self.check(
            self.lib.e_open(ctypes.byref(dev), row, col, rows, cols),
            f"e_open({row}, {col}, {rows}, {cols})",
        )
        return dev

    def alloc(self, offset, size):
        mem = e_mem_t()
        self.check(
            self.lib.e_alloc(ctypes.byref(mem), offset, size),
            f"e_alloc(offset {offset:#x}, {size:#x} bytes)",
        )
        return mem

    def write(self, dev, row, col, addr, data):
        """e_write all of `data` (bytes) at `addr` of core (row, col) or of `dev`'s memory."""
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        n = self.lib.e_write(ctypes.addressof(dev), row, col, addr, buf, len(data))
        if n != len(data):
            where = f"core ({row},{col})" if isinstance(dev, e_epiphany_t) else "external memory"
            raise EhalError(f"e_write of {len(data)} bytes at {addr:#x} of {where} returned {n}")

    def read(self, dev, row, col, addr, size):
        buf = ctypes.create_string_buffer(size)
        n = self.lib.e_read(ctypes.addressof(dev), row, col, addr, buf, size)
        if n != size:
            where = f"core ({row},{col})" if isinstance(dev, e_epiphany_t) else "external memory"
            raise EhalError(f"e_read of {size} bytes at {addr:#x} of {where} returned {n}")
        return buf.raw

    def load_group(self, elf, dev, rows, cols, start=False):
        self.check(
            self.lib.e_load_group(
                os.fsencode(elf), ctypes.byref(dev), 0, 0, rows, cols, E_TRUE if start else E_FALSE
            ),
            f"e_load_group({os.fspath(elf)!r})",
        )

    def start_group(self, dev):
        self.check(self.lib.e_start_group(ctypes.byref(dev)), "e_start_group")

    def reset_group(self, dev):
        self.check(self.lib.e_reset_group(ctypes.byref(dev)), "e_reset_group")

    def signal(self, dev, row, col):
        self.check(self.lib.e_signal(ctypes.byref(dev), row, col), f"e_signal({row}, {col})")

    def close(self, dev):
        self.check(self.lib.e_close(ctypes.byref(dev)), "e_close")

    def free(self, mem):
        self.check(self.lib.e_free(ctypes.byref(mem)), "e_free")

    def finalize(self):
        self.check(self.lib.e_finalize(), "e_finalize")

    # ------------------------------------------------------------ epsim_*

    def now(self):
        """The host's clock in cycles (epsim only)."""
        return int(self._epsim["epsim_now"]())

    def stats(self):
        s = epsim_stats_t()
        self.check(self._epsim["epsim_stats"](ctypes.byref(s)), "epsim_stats")
        return {name: int(getattr(s, name)) for name, _ in epsim_stats_t._fields_}

    def run(self, cycles):
        self.check(self._epsim["epsim_run"](cycles), f"epsim_run({cycles})")

    def run_until_cores_idle(self, coords, any_, max_cycles):
        """True when all (or any) of the cores at `coords` are idle, False at the limit."""
        n = len(coords)
        rows = (c_uint * n)(*[r for r, _ in coords])
        cols = (c_uint * n)(*[c for _, c in coords])
        rc = self._epsim["epsim_run_until_cores_idle"](rows, cols, n, 1 if any_ else 0, max_cycles)
        self.check(rc, "epsim_run_until_cores_idle")
        # E_OK when the condition holds; at the limit epsim returns E_WARN
        # (-2 in epiphany-hal-data.h; some notes say 1): anything else.
        return rc == E_OK

    def core_idle(self, row, col):
        return self.check(self._epsim["epsim_core_idle"](row, col), "epsim_core_idle") > 0
