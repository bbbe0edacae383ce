"""The chip runtime: boot, per-core command queues, launches and waiting.

Owns: where things go (the SRAM split between the firmware's heap, the
host-managed code cache and the argument buffer; the DRAM slots; the shared
DRAM areas for big modules and big arguments), the host side of the
firmware's protocol (PROTOCOL.md section 5), the scheduler (commands queue
per core and run in submission order on that core; a core is free again as
soon as its result has reached the host), and how the host waits.

Waiting. In epsim's deterministic mode the chip advances only inside
e-hal calls, so every wait drives it from the calling thread:
`epsim_run_until_cores_idle` over the cores that run what the caller waits
for (exact: it stops at the cycle a core goes idle), in slices of at most
SLICE_CYCLES so print records show while a kernel runs, then one e_read of
the DRAM status table's range over every core with a command in flight
(protocol 2: a scalar result is inside the status, so an empty or scalar
launch costs the host one e_write and one e_signal per core, and its share
of that read). Without that call it uses
epsim_run in small slices; with a board's libe-hal (no epsim_* symbols) it
polls the DRAM status with e_read and a short sleep.
"""

import collections
import os
import struct
import sys
import tempfile
import time
from pathlib import Path

from . import _values
from ._ehal import Ehal, EhalError

# ---------------------------------------------------------------- the map

INFO = 0x4080
CONFIG = 0x40A0
CONTROL = 0x40E0
CONTROL_ABORT_SEQ = CONTROL + 0
CONTROL_PRINT_ACK = CONTROL + 4
USER_BASE = 0x4100
MAILBOX = 0x7FE0  # 32 bytes at the end of SRAM, `seq` its last word
MAILBOX_SIZE = 32

INFO_MAGIC = 0x32595045  # "EPY2"
PROTOCOL_VERSION = 2

# The SRAM above the firmware's own area: 0x4100..CODE_BASE is the
# firmware's (postboxes, globals, Python stack, heaps), then the code cache
# and the argument buffer, both written only by the host. Arguments go at
# the END of the argument buffer, right below the mailbox, so that one
# e_write carries them and the mailbox.
CODE_BASE = 0x6000
CODE_SIZE = 0x1800
ARGS_BASE = CODE_BASE + CODE_SIZE
ARGS_SIZE = MAILBOX - ARGS_BASE

# External memory (device addresses relative to the first external memory,
# 0x8e000000 on a Parallella): big modules shared by every core, big
# arguments (one area per core), then one slot per core.
DRAM_MODULES = 0x0
DRAM_MODULES_SIZE = 0x80000
DRAM_ARGS = 0x80000
DRAM_ARGS_SIZE = 0x7F000
DRAM_STATUS = 0xFF000  # the status table: core n's 64-byte status at +64 n
DRAM_SLOTS = 0x100000
DRAM_SLOTS_END = 0x1000000  # the slots end below 0x8f000000 (e-hal's shm)
SLOT_SIZE_MAX = 0x40000

STATUS_SIZE = 64
STATUS_INLINE = 8  # status word where a result of at most 8 bytes is
SLOT_RESULT = 0x100
SLOT_PRINT = 0x4000
SLOT_PRINT_SIZE = 0x4000
SLOT_MIN = 0x10000

# mailbox commands
CMD_CALL = 1
CMD_SETGLOBAL = 2
CMD_GETGLOBAL = 3
CMD_PING = 4
CMD_CLEARGLOBALS = 5

# status.state
BOOTING, READY, RUNNING, DONE, ERROR, PRINTFULL, ABORTED = range(7)
STATE_NAMES = ["BOOTING", "READY", "RUNNING", "DONE", "ERROR", "PRINTFULL", "ABORTED"]

SLICE_CYCLES = 1_000_000  # at most this long between looks at print records
FALLBACK_SLICE = 20_000  # epsim_run slices when run_until_cores_idle is missing
BOOT_CYCLES = 50_000_000
ABORT_GRACE_CYCLES = 10_000_000
BOARD_CLOCK_HZ = 600e6  # cycles -> seconds for timeouts on a board
BOARD_POLL_S = 0.0002
ACK_POLLS = 10_000  # looks at the status after a print acknowledgement
ACK_STEP_CYCLES = 64

_STATUS = struct.Struct("<16I")

# ---------------------------------------------------------------- errors


class DeviceError(RuntimeError):
    """A command failed on a core. Attributes: core, kernel, kind (the
    [errors] name of isa.txt, e.g. 'ZERODIV'), exception (the Python
    exception it stands for), line, filename, function, detail."""

    def __init__(
        self, message, core, kernel, kind, exception=None, filename=None, line=None, function=None
    ):
        super().__init__(message)
        self.core = core
        self.kernel = kernel
        self.kind = kind
        self.exception = exception
        self.filename = filename
        self.line = line
        self.function = function


class DeviceTimeout(DeviceError):
    """A kernel ran past its timeout_cycles and was aborted."""


# ---------------------------------------------------------------- chip spec

_HDF = """// written by epython for chip={spec}
PLATFORM_VERSION {version}
NUM_CHIPS 1
CHIP {chip}
CHIP_ROW 32
CHIP_COL 8
NUM_EXT_MEMS 1
EMEM ext0
EMEM_BASE_ADDRESS 0x8e000000
EMEM_EPI_BASE 0x8e000000
EMEM_SIZE 0x02000000
EMEM_TYPE RDWR
"""


def parse_chip(spec):
    """(chip name, group rows, group cols) for "e16", "e64" or "RxC".

    "RxC" is a workgroup of R x C cores at the corner of the smallest chip
    that holds it (an E16 up to 4 x 4, an E64 up to 8 x 8): the cores the
    package uses, numbered row-major from 0.
    """
    s = str(spec).strip().lower()
    if s in ("e16", "e16g301"):
        return "E16G301", 4, 4
    if s in ("e64", "e64g401"):
        return "E64G401", 8, 8
    parts = s.split("x")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        rows, cols = int(parts[0]), int(parts[1])
        if rows >= 1 and cols >= 1:
            if rows <= 4 and cols <= 4:
                return "E16G301", rows, cols
            if rows <= 8 and cols <= 8:
                return "E64G401", rows, cols
            raise ValueError(
                f"chip={spec!r}: epsim's e-hal simulates an E16G301 (4x4) or an "
                "E64G401 (8x8); a workgroup can be at most 8x8"
            )
    raise ValueError(f'chip={spec!r}: expected "e16", "e64" or "RxC" (e.g. "2x4")')


# ---------------------------------------------------------------- commands

QUEUED, STARTED, FINISHED = "queued", "running", "finished"


class Command:
    """One mailbox command for one core and what became of it."""

    def __init__(self, core, cmd, label, code=None, payload=b"", gid=0, timeout_cycles=None):
        self.core = core
        self.cmd = cmd
        self.label = label
        self.code = code
        self.payload = payload
        self.gid = gid
        self.group = 0
        self.timeout_cycles = timeout_cycles
        self.state = QUEUED
        self.seq = None
        self.result = None
        self.error = None
        self.aborted_at = None
        self.taken = False  # returned by wait_any already
        # host clock (cycles) when the host began writing the launch, when
        # it signalled, and when the result reached it; raw status stamps.
        self.t_begin = None
        self.t_signal = None
        self.t_result = None
        self.status = None


class CoreState:
    def __init__(self, num, row, col):
        self.num = num
        self.row = row
        self.col = col
        self.queue = collections.deque()
        self.current = None
        self.seq = 0
        self.cache = collections.OrderedDict()  # code key -> (addr, size), LRU order
        self.print_seen = 0
        self.print_acks = 0
        self.broken = None  # why the core cannot take commands any more


# ---------------------------------------------------------------- runtime


def _default_firmware():
    here = Path(__file__).resolve().parent
    for p in (
        here / "firmware" / "epython.elf",
        here.parent.parent / "firmware" / "epython" / "epython.elf",
    ):
        if p.is_file():
            return p
    return None


def _default_ehal():
    here = Path(__file__).resolve().parent
    import importlib.machinery

    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        p = here / ("_libehal" + suffix)
        if p.is_file():
            return p
    return None


class Runtime:
    """The booted chip and its scheduler. One per process."""

    def __init__(self, chip=None, mode=None, trace=None, ehal=None, firmware=None):
        self.chip_spec = chip
        self.timing = mode
        self.trace_path = trace
        self.ehal_path = ehal or os.environ.get("EPYTHON_EHAL") or _default_ehal()
        self.firmware = firmware or os.environ.get("EPYTHON_FIRMWARE") or _default_firmware()
        self.hal = None
        self.dev = None
        self.mem = None
        self.cores = []
        self.booted = False
        self._hdf_file = None
        self._dram_module_next = DRAM_MODULES
        self._dram_modules = {}  # code key -> device address
        self._codes = {}  # code key -> code object (kept alive while cached)
        self._idle_run = 16

    # ------------------------------------------------------------ boot

    def boot(self):
        if self.booted:
            return
        if self.ehal_path is None:
            raise RuntimeError(
                "epython: no libe-hal: the package was installed without its bundled "
                "library; set EPYTHON_EHAL or configure(ehal=...) to a libe-hal.so"
            )
        if self.firmware is None or not Path(self.firmware).is_file():
            raise RuntimeError(
                f"epython: the firmware {self.firmware or 'epython.elf'} is missing "
                "(build it with `make -C firmware`, or set EPYTHON_FIRMWARE)"
            )
        # The package drives the chip: it advances only when we wait on it.
        os.environ["EPSIM_MODE"] = "deterministic"
        if self.timing is not None:
            os.environ["EPSIM_TIMING"] = self.timing
        hal = Ehal(self.ehal_path)
        try:
            self._boot(hal)
        except BaseException:
            self.booted = True  # so that shutdown() releases what was set up
            self.shutdown()
            raise
        self.booted = True

    def _boot(self, hal):
        hdf = None
        group = None
        if self.chip_spec is not None:
            chip, rows, cols = parse_chip(self.chip_spec)
            version = "PARALLELLA1601" if chip == "E16G301" else "PARALLELLA6401"
            f = tempfile.NamedTemporaryFile("w", prefix="epython-", suffix=".hdf", delete=False)
            f.write(_HDF.format(spec=self.chip_spec, version=version, chip=chip))
            f.close()
            self._hdf_file = f.name
            hdf = f.name
            group = (rows, cols)
        hal.init(hdf)
        self.hal = hal
        if hal.is_epsim and hal.has("epsim_set_mode"):
            hal.check(hal.epsim_set_mode(1), "epsim_set_mode(EPSIM_DETERMINISTIC)")
        plat = hal.platform()
        rows, cols = group if group else (plat.rows, plat.cols)
        if rows > plat.rows or cols > plat.cols:
            raise ValueError(
                f"a {rows}x{cols} workgroup does not fit the {plat.rows}x{plat.cols} chip"
            )
        self.rows, self.cols = rows, cols
        self.row0, self.col0 = plat.row, plat.col
        self.ncores = rows * cols
        if self.ncores > 64:
            raise ValueError(f"the firmware supports at most 64 cores, not {self.ncores}")
        self.emem_base = int(plat.emem[0].ephy_base) if plat.emem else 0x8E000000
        slot = (DRAM_SLOTS_END - DRAM_SLOTS) // self.ncores
        self.slot_size = min(SLOT_SIZE_MAX, slot - slot % 0x2000)
        self.args_area = (DRAM_ARGS_SIZE // self.ncores) & ~7
        if self.trace_path is not None:
            if not hal.has("epsim_trace_start"):
                raise RuntimeError(f"{hal.path} has no epsim_trace_start: cannot trace")
            path = os.fspath(self.trace_path)
            fmt = 1 if path.endswith((".json", ".jsonl")) else 0
            hal.check(hal.epsim_trace_start(os.fsencode(path), fmt), f"epsim_trace_start({path!r})")
        self.dev = hal.open(0, 0, rows, cols)
        self.mem = hal.alloc(0, DRAM_SLOTS + self.ncores * self.slot_size)
        self.cores = [CoreState(n, n // cols, n % cols) for n in range(self.ncores)]
        hal.load_group(self.firmware, self.dev, rows, cols, start=False)
        for core in self.cores:
            config = struct.pack(
                "<16I",
                core.num,
                self.ncores,
                self.row0,
                self.col0,
                rows,
                cols,
                self.slot_addr(core.num),
                self.slot_size,
                CODE_BASE,
                CODE_SIZE,
                ARGS_BASE,
                ARGS_SIZE,
                core.num + 1,
                self.emem_base + DRAM_STATUS,
                0,
                0,
            )
            # config, then zeros up to the end of control, and a zero
            # mailbox: seq 0 is "no command".
            hal.write(self.dev, core.row, core.col, CONFIG, config + bytes(64 + 32))
            hal.write(self.dev, core.row, core.col, MAILBOX, bytes(MAILBOX_SIZE))
        hal.write(self.mem, 0, 0, DRAM_STATUS, bytes(STATUS_SIZE * self.ncores))
        hal.start_group(self.dev)
        self._wait_ready()

    def _wait_ready(self):
        waiting = list(self.cores)
        t0 = self._now()
        wall0 = time.monotonic()
        while waiting:
            self._advance([(c.row, c.col) for c in waiting], SLICE_CYCLES)
            statuses = self._statuses(waiting)
            waiting = [c for c in waiting if statuses[c.num][0] != READY]
            if not waiting:
                break
            spent = (
                (self._now() - t0)
                if self.hal.is_epsim
                else (time.monotonic() - wall0) * BOARD_CLOCK_HZ
            )
            if spent > BOOT_CYCLES:
                self._check_info(waiting[:1])  # another protocol's firmware?
                by_state = {}
                for c in waiting:
                    state = self._status(c)[0]
                    name = STATE_NAMES[state] if state < len(STATE_NAMES) else f"state {state}"
                    by_state.setdefault(name, []).append(str(c.num))
                states = "; ".join(f"{k} on cores {', '.join(v)}" for k, v in by_state.items())
                raise RuntimeError(
                    f"epython: the firmware {self.firmware} did not become READY within "
                    f"{BOOT_CYCLES} cycles ({states})"
                )
        self._check_info(self.cores)

    def _check_info(self, cores):
        for core in cores:
            magic, version = struct.unpack(
                "<II", self.hal.read(self.dev, core.row, core.col, INFO, 8)
            )
            if magic != INFO_MAGIC or version != PROTOCOL_VERSION:
                raise RuntimeError(
                    f"epython: core {core.num} runs firmware {self.firmware} with magic "
                    f"{magic:#x}, protocol {version}; this epython package speaks protocol "
                    f"{PROTOCOL_VERSION} (magic {INFO_MAGIC:#x}): the firmware and the package "
                    "disagree (rebuild the firmware or reinstall the package)"
                )

    def shutdown(self):
        """Release the chip (e_close, e_free, e_finalize); safe to call twice."""
        if not self.booted:
            return
        self.booted = False
        hal = self.hal
        if hal is not None:
            try:
                if self.trace_path is not None and hal.has("epsim_trace_stop"):
                    hal.epsim_trace_stop()
                if self.dev is not None:
                    hal.close(self.dev)
                if self.mem is not None:
                    hal.free(self.mem)
                hal.finalize()
            except EhalError:
                pass
        if self._hdf_file:
            try:
                os.unlink(self._hdf_file)
            except OSError:
                pass
            self._hdf_file = None

    # ------------------------------------------------------------ addresses

    def slot_off(self, n):
        return DRAM_SLOTS + n * self.slot_size

    def slot_addr(self, n):
        return self.emem_base + self.slot_off(n)

    @staticmethod
    def status_off(n):
        return DRAM_STATUS + n * STATUS_SIZE

    def _now(self):
        return self.hal.now() if self.hal.is_epsim else None

    def now(self):
        return self._now()

    # ------------------------------------------------------------ submitting

    def check_cores(self, target):
        """The list of core numbers in `target` (int or iterable), checked."""
        if isinstance(target, bool):
            raise ValueError(f"target={target!r}: expected a core number or a list of them")
        if isinstance(target, int):
            target = [target]
        try:
            cores = list(target)
        except TypeError:
            raise ValueError(
                f"target={target!r}: expected a core number or a list of them"
            ) from None
        seen = set()
        for t in cores:
            if isinstance(t, bool) or not isinstance(t, int):
                raise ValueError(f"target core {t!r} is not a core number")
            if not 0 <= t < self.ncores:
                raise ValueError(f"target core {t} is outside the chip (cores 0-{self.ncores - 1})")
            if t in seen:
                raise ValueError(f"target core {t} is given twice")
            seen.add(t)
        if not cores:
            raise ValueError("target is empty: no core to run on")
        return sorted(cores)

    def pick_auto(self, n):
        """`n` cores: idle ones first (lowest numbers), then the least busy."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= self.ncores:
            raise ValueError(f"auto={n!r}: expected a number of cores from 1 to {self.ncores}")

        def load(c):
            return (c.current is not None) + len(c.queue)

        order = sorted(self.cores, key=lambda c: (load(c), c.num))
        return sorted(c.num for c in order[:n])

    def submit(self, commands):
        """Queue `commands` (one per core) and start those whose core is free."""
        group = 0
        for c in commands:
            group |= 1 << c.core
        for c in commands:
            c.group = group
            core = self.cores[c.core]
            if core.broken:
                raise RuntimeError(f"core {core.num} cannot take commands: {core.broken}")
            core.queue.append(c)
        for c in commands:
            self._start_next(self.cores[c.core])

    def _start_next(self, core):
        if core.current is not None or not core.queue:
            return
        c = core.queue.popleft()
        core.current = c
        try:
            self._launch(core, c)
        except Exception as e:  # noqa: BLE001 - the command carries the error
            core.current = None
            c.state = FINISHED
            c.error = e
            self._start_next(core)

    def _place_payload(self, core, data):
        """Where a payload too big for the argument buffer goes (DRAM)."""
        if len(data) > self.args_area:
            raise MemoryError(
                f"the arguments take {len(data)} bytes; at most {self.args_area} fit "
                f"(SRAM buffer {ARGS_SIZE}, DRAM area {self.args_area})"
            )
        off = DRAM_ARGS + core.num * self.args_area
        self.hal.write(self.mem, 0, 0, off, data)
        return self.emem_base + off

    def _module_addr(self, core, code):
        key = id(code)
        self._codes[key] = code
        if key in core.cache:
            core.cache.move_to_end(key)
            return core.cache[key][0]
        if key in self._dram_modules:
            return self._dram_modules[key]
        size = (int(code.size) + 7) & ~7
        if size > CODE_SIZE:
            off = self._dram_module_next
            if off + size > DRAM_MODULES + DRAM_MODULES_SIZE:
                raise MemoryError(
                    f"kernel {code.name!r} ({size} bytes) does not fit the "
                    f"{DRAM_MODULES_SIZE}-byte DRAM module area any more"
                )
            addr = self.emem_base + off
            image = code.image(addr)
            self.hal.write(self.mem, 0, 0, off, image)
            self._dram_module_next = off + size
            self._dram_modules[key] = addr
            return addr
        while True:
            addr = self._cache_gap(core, size)
            if addr is not None:
                break
            core.cache.popitem(last=False)  # evict the least recently used
        image = code.image(addr)
        if len(image) > size:
            raise RuntimeError(
                f"kernel {code.name!r}: image of {len(image)} bytes, size {code.size}"
            )
        self.hal.write(self.dev, core.row, core.col, addr, image)
        core.cache[key] = (addr, size)
        return addr

    @staticmethod
    def _cache_gap(core, size):
        spans = sorted(core.cache.values())
        at = CODE_BASE
        for addr, sz in spans:
            if addr - at >= size:
                return at
            at = max(at, addr + sz)
        if CODE_BASE + CODE_SIZE - at >= size:
            return at
        return None

    def _launch(self, core, c):
        hal = self.hal
        c.t_begin = self._now()
        module = args = args_len = 0
        index = c.gid
        inline = b""
        if c.cmd == CMD_CALL:
            module = self._module_addr(core, c.code)
            index = int(getattr(c.code, "entry", 0))
        if c.cmd in (CMD_CALL, CMD_SETGLOBAL):
            args_len = len(c.payload)
            if args_len <= ARGS_SIZE:
                # right below the mailbox, in the same write
                inline = bytes(c.payload) + bytes(-args_len % 8)
                args = MAILBOX - len(inline)
            else:
                args = self._place_payload(core, c.payload)
        core.seq = (core.seq + 1) & 0xFFFFFFFF or 1
        c.seq = core.seq
        mailbox = struct.pack(
            "<8I",
            c.cmd,
            module,
            index,
            args,
            args_len,
            c.group & 0xFFFFFFFF,
            c.group >> 32,
            c.seq,
        )
        core.print_seen = 0
        hal.write(self.dev, core.row, core.col, MAILBOX - len(inline), inline + mailbox)
        hal.signal(self.dev, core.row, core.col)
        c.t_signal = self._now()
        c.wall_signal = time.monotonic()
        c.state = STARTED

    # ------------------------------------------------------------ waiting

    def _status(self, core):
        return _STATUS.unpack(self.hal.read(self.mem, 0, 0, self.status_off(core.num), STATUS_SIZE))

    def _statuses(self, cores):
        """{core number: status} for `cores`, read with one e_read of the
        table's range from the lowest to the highest of them."""
        lo = min(c.num for c in cores)
        hi = max(c.num for c in cores)
        data = self.hal.read(self.mem, 0, 0, self.status_off(lo), (hi - lo + 1) * STATUS_SIZE)
        return {c.num: _STATUS.unpack_from(data, (c.num - lo) * STATUS_SIZE) for c in cores}

    def _advance(self, coords, limit):
        """Let the chip run until one of the cores at `coords` goes idle, or a while."""
        hal = self.hal
        if not hal.is_epsim:
            time.sleep(BOARD_POLL_S)
            return
        if not hal.has("epsim_run_until_cores_idle"):
            hal.run(min(FALLBACK_SLICE, limit))
            return
        if hal.has("epsim_core_idle"):
            busy = [rc for rc in coords if not hal.core_idle(*rc)]
        else:
            busy = coords
        if busy:
            before = hal.now()
            if hal.run_until_cores_idle(busy, True, limit) and hal.now() == before:
                hal.run(16)
            self._idle_run = 16
            return
        # Every core we wait on sleeps (just signalled and not yet awake, or
        # waiting for another core): let time pass, longer each time.
        hal.run(min(self._idle_run, limit))
        self._idle_run = min(self._idle_run * 2, SLICE_CYCLES)

    def _drain_prints(self, core, upto):
        if upto > core.print_seen:
            base = self.slot_off(core.num) + SLOT_PRINT
            data = self.hal.read(self.mem, 0, 0, base + core.print_seen, upto - core.print_seen)
            core.print_seen = upto
            for line in _values.print_records(data):
                sys.stdout.write(f"[device {core.num}] {line}\n")

    def _poll(self, core, st):
        """Look at a core's status `st`; finish its command if it is over."""
        c = core.current
        if c is None:
            return False
        state, seq = st[0], st[1]
        if seq != c.seq:
            return False
        print_len = st[7]
        if state == PRINTFULL:
            self._drain_prints(core, min(print_len, SLOT_PRINT_SIZE))
            core.print_acks += 1
            core.print_seen = 0
            self.hal.write(
                self.dev,
                core.row,
                core.col,
                CONTROL_PRINT_ACK,
                struct.pack("<I", core.print_acks),
            )
            self.hal.signal(self.dev, core.row, core.col)
            self._await_resume(core, c)
            return True
        if state == RUNNING:
            if print_len >= core.print_seen:
                self._drain_prints(core, min(print_len, SLOT_PRINT_SIZE))
            return False
        if state not in (DONE, ERROR, ABORTED):
            return False
        if (st[5] - st[2]) & 0x80000000:
            # t_done before t_recv: the firmware has written the new seq
            # but not yet the new state (the old DONE still shows).
            return False
        self._drain_prints(core, min(print_len, SLOT_PRINT_SIZE))
        c.status = st
        if state == DONE:
            n = st[6]
            if c.cmd in (CMD_CALL, CMD_GETGLOBAL):
                if n <= 8:
                    # a scalar result: inside the status
                    data = struct.pack("<2I", *st[STATUS_INLINE : STATUS_INLINE + 2])[:n]
                else:
                    data = self.hal.read(self.mem, 0, 0, self.slot_off(core.num) + SLOT_RESULT, n)
                try:
                    c.result = _values.deserialise_all(data) if data else None
                except ValueError as e:
                    c.error = RuntimeError(
                        f"core {core.num}: {c.label}: bad result from the device: {e}"
                    )
        elif state == ERROR:
            c.error = self._device_error(core, c, st)
        else:
            c.error = self._why_aborted(core, c, answered=True)
        c.t_result = self._now()
        c.state = FINISHED
        core.current = None
        self._start_next(core)
        return True

    def _await_resume(self, core, c):
        """Until the firmware has taken a print acknowledgement (its status
        leaves PRINTFULL). The status has no count of acknowledgements, so
        a later PRINTFULL at the same print_len would look the same: watch
        the chip closely until it resumes, which it does at once."""
        for _ in range(ACK_POLLS):
            if self.hal.is_epsim:
                self.hal.run(ACK_STEP_CYCLES)
            st = self._status(core)
            if st[1] != c.seq or st[0] != PRINTFULL:
                return
        raise RuntimeError(
            f"core {core.num}: the firmware did not resume after print acknowledgement "
            f"{core.print_acks} ({c.label})"
        )

    def _device_error(self, core, c, st):
        from . import _isa

        kind_num, func, pc, a, b, depth = st[8], st[9], st[10], st[11], st[12], st[13]
        name, exc, template = _isa.ERRORS.get(
            kind_num, (f"ERROR{kind_num}", "RuntimeError", "error {a} {b}")
        )
        if name == "TYPE":
            fa = _values.TAG_NAMES.get(a, str(a))
            fb = _values.TAG_NAMES.get(b, str(b)) if b != 0xFFFFFFFF else None
            detail = (
                f"unsupported operand type(s): {fa} and {fb}" if fb else f"bad operand type: {fa}"
            )
        else:
            sa = a - (1 << 32) if a & 0x80000000 else a
            detail = template.format(a=sa, b=b)
        filename = line = function = None
        where = ""
        if c.code is not None and hasattr(c.code, "where"):
            try:
                filename, line, function = c.code.where(func, pc)
                where = f" at {filename}:{line} (in {function})"
            except Exception:  # noqa: BLE001 - a bad location must not hide the error
                where = f" at function {func}, word {pc}"
        err = DeviceError(
            f"{c.label} failed on core {core.num}{where}: {exc}: {detail}",
            core.num,
            c.label,
            name,
            exc,
            filename,
            line,
            function,
        )
        err.depth = depth
        err.detail = (a, b)
        return err

    def _abort(self, core, c, spent):
        c.aborted_at = spent
        self.hal.write(self.dev, core.row, core.col, CONTROL_ABORT_SEQ, struct.pack("<I", c.seq))
        self.hal.signal(self.dev, core.row, core.col)

    def _why_aborted(self, core, c, answered):
        tail = "was aborted" if answered else "did not answer the abort; the core is out of use"
        return DeviceTimeout(
            f"{c.label} on core {core.num} ran past its timeout of {c.timeout_cycles} "
            f"cycles and {tail}",
            core.num,
            c.label,
            "TIMEOUT",
            "TimeoutError",
        )

    def _spent(self, c):
        if self.hal.is_epsim:
            return self.hal.now() - c.t_signal
        return (time.monotonic() - c.wall_signal) * BOARD_CLOCK_HZ

    def _check_timeouts(self):
        for core in self.cores:
            c = core.current
            if c is None or c.state != STARTED:
                continue
            if c.aborted_at is None:
                if c.timeout_cycles is not None:
                    spent = self._spent(c)
                    if spent >= c.timeout_cycles:
                        self._abort(core, c, spent)
            elif self._spent(c) - c.aborted_at > ABORT_GRACE_CYCLES:
                core.broken = f"it did not answer the abort of {c.label}"
                c.error = self._why_aborted(core, c, answered=False)
                c.state = FINISHED
                core.current = None
                for q in core.queue:
                    q.state = FINISHED
                    q.error = RuntimeError(f"core {core.num} cannot take commands: {core.broken}")
                core.queue.clear()

    def _limit(self):
        """Cycles to run before the next timeout is due (or a slice)."""
        limit = SLICE_CYCLES
        if not self.hal.is_epsim:
            return limit
        now = self.hal.now()
        for core in self.cores:
            c = core.current
            if c is not None and c.timeout_cycles is not None and c.aborted_at is None:
                limit = min(limit, max(1, c.t_signal + c.timeout_cycles - now))
        return limit

    def progress(self, commands):
        """Drive the chip once towards `commands`: one advance, then one look."""
        watch = []
        for c in commands:
            if c.state != FINISHED:
                core = self.cores[c.core]
                if core.current is not None and (core.row, core.col) not in watch:
                    watch.append((core.row, core.col))
        if not watch:
            return
        self._advance(watch, self._limit())
        busy = [core for core in self.cores if core.current is not None]
        if busy:
            statuses = self._statuses(busy)
            for core in busy:
                self._poll(core, statuses[core.num])
        self._check_timeouts()

    def wait(self, commands):
        while any(c.state != FINISHED for c in commands):
            self.progress(commands)

    def wait_any(self, commands):
        """Until one of `commands` not yet taken has finished; returns it."""
        while True:
            for c in sorted(commands, key=lambda c: c.core):
                if c.state == FINISHED and not c.taken:
                    return c
            if all(c.taken for c in commands):
                return None
            self.progress(commands)

    def stats(self):
        if not self.hal.is_epsim:
            return {}
        return self.hal.stats()
