"""epython: offload decorated Python functions to the cores of an Epiphany chip.

    from epython import offload

    @offload
    def add(a, b):
        return a + b

    add(10, 20)          # [30] * 16: one result per core, in core order

The functions are compiled on the host into the bytecode of
firmware/epython/isa.txt and run by the epython firmware on every core of
epsim's simulated chip (or of a real board: `configure(ehal=...)`). The API
follows the original ePython's `epython` module in Python 3 spelling
(`async_=` for `async=`, which is a keyword now).

Profiling. `handle.profile()` gives, per core, cycles of the host's clock
(epsim_now): when the host began writing the launch (`host_begin`), when it
signalled the core (`signal`), when the core started the kernel (`start`),
when it ended (`end`), when the firmware had written the result
(`device_done`) and when the result reached the host (`host_result`). The
device stamps come from the core's own timer (the status t_* fields) and
are anchored at the signal: `start = signal + (t_start - t_recv)`, so the
few cycles the core takes to wake up and see the command count as zero.
"""

import ast
import atexit
import dis
import functools
import inspect
import linecache
import threading

from . import _chip, _values
from ._chip import (
    CMD_CALL,
    CMD_GETGLOBAL,
    CMD_SETGLOBAL,
    FINISHED,
    QUEUED,
    STARTED,
    Command,
    DeviceError,
    DeviceTimeout,
    Runtime,
    parse_chip,
)

__all__ = [
    "offload",
    "offload_single",
    "offload_multiple",
    "waitAll",
    "define_on_device",
    "copy_to_device",
    "copy_from_device",
    "configure",
    "chip",
    "DeviceError",
    "DeviceTimeout",
    "Handle",
]

__version__ = "0.1.0"

_OPTION_NAMES = ("async_", "async", "target", "auto", "all", "timeout_cycles")

_lock = threading.RLock()
_settings = {"chip": None, "mode": None, "trace": None, "ehal": None, "firmware": None}
_runtime = None
# Device-resident variables: name -> (gid, host value given at definition).
_device_globals = {}
_globals_version = 0


# ---------------------------------------------------------------- set-up


def configure(chip=None, mode=None, trace=None, ehal=None, firmware=None):
    """Choose the chip before the first launch.

    chip: "e16" (the Parallella's E16G301, the default), "e64" (E64G401) or
    "RxC" (a workgroup of R x C cores). mode: "timed" (cycle-accurate, the
    default) or "functional". trace: a file that records every instruction
    and every host access (JSON lines if it ends in .json or .jsonl, else
    text). ehal: another libe-hal.so (a real board's); EPYTHON_EHAL does the
    same. firmware: another epython.elf.
    """
    if chip is not None:
        parse_chip(chip)
    if mode is not None and mode not in ("timed", "functional"):
        raise ValueError(f'mode={mode!r}: expected "timed" or "functional"')
    with _lock:
        if _runtime is not None and _runtime.booted:
            raise RuntimeError("configure() must come before the first launch: the chip is running")
        for key, value in (
            ("chip", chip),
            ("mode", mode),
            ("trace", trace),
            ("ehal", ehal),
            ("firmware", firmware),
        ):
            if value is not None:
                _settings[key] = value


def _rt():
    """The booted runtime (booting it, and defining pending globals, at first use)."""
    global _runtime
    with _lock:
        if _runtime is None or not _runtime.booted:
            _runtime = Runtime(**_settings)
            _runtime.boot()
            for name, (gid, value) in _device_globals.items():
                _send_global(_runtime, name, gid, value, list(range(_runtime.ncores))).wait()
        return _runtime


def _shutdown():
    global _runtime
    with _lock:
        if _runtime is not None:
            _runtime.shutdown()
            _runtime = None


atexit.register(_shutdown)


class Chip:
    """The chip the package runs on: its size, clock and statistics."""

    def __init__(self, rt):
        self._rt = rt
        self.rows = rt.rows
        self.cols = rt.cols
        self.ncores = rt.ncores
        self.row0 = rt.row0
        self.col0 = rt.col0

    @property
    def cycles(self):
        """The host's clock in simulated cycles (None on a real board)."""
        return self._rt.now()

    def stats(self):
        """epsim_stats as a dict (cycles, host_cycles, calls, ..., instret)."""
        return self._rt.stats()

    def __repr__(self):
        at = f"({self.row0},{self.col0})"
        return f"<epython chip {self.rows}x{self.cols} at {at}, cycle {self.cycles}>"


def chip():
    """The chip (booted at the first call)."""
    return Chip(_rt())


# ---------------------------------------------------------------- handles


class Handle:
    """The commands of one launch or copy, one per core."""

    def __init__(self, rt, commands, label, unwrap=None):
        self._rt = rt
        self._commands = sorted(commands, key=lambda c: c.core)
        self.label = label
        self._unwrap = unwrap

    @property
    def cores(self):
        return [c.core for c in self._commands]

    def _raise_first(self, commands):
        failed = [c for c in commands if c.error is not None]
        if failed:
            err = failed[0].error
            if len(failed) > 1 and isinstance(err, DeviceError):
                err.args = (f"{err.args[0]} (and {len(failed) - 1} more core(s) failed)",)
            raise err

    def wait(self):
        """The results in core order, once every core has finished."""
        with _lock:
            self._rt.wait(self._commands)
        self._raise_first(self._commands)
        for c in self._commands:
            c.taken = True
        return [c.result for c in self._commands]

    def wait_any(self):
        """{core: result} of one core that has finished (and was not returned before)."""
        with _lock:
            c = self._rt.wait_any(self._commands)
        if c is None:
            raise RuntimeError(f"{self.label}: every core's result was taken by wait_any already")
        c.taken = True
        self._raise_first([c])
        return {c.core: c.result}

    def test(self):
        """True when every core's result is available (lets the chip run a little)."""
        with _lock:
            rt = self._rt
            start = rt.now()
            before = [c.state for c in self._commands]
            # Until one of our cores goes idle (a command of ours changed
            # state), or one slice of the chip's time has passed.
            while any(c.state != FINISHED for c in self._commands):
                rt.progress(self._commands)
                if [c.state for c in self._commands] != before:
                    break
                if start is None or rt.now() - start >= _chip.SLICE_CYCLES:
                    break
        return all(c.state == FINISHED for c in self._commands)

    def number_running(self):
        return sum(c.state == STARTED for c in self._commands)

    def number_outstanding(self):
        """Commands submitted but not started yet (their core is busy)."""
        return sum(c.state == QUEUED for c in self._commands)

    def profile(self):
        """{core: cycles of the host's clock}; see the module's doc."""
        out = {}
        for c in self._commands:
            p = {
                "host_begin": c.t_begin,
                "signal": c.t_signal,
                "start": None,
                "end": None,
                "device_done": None,
                "host_result": c.t_result,
            }
            if c.status is not None and c.t_signal is not None:
                t_recv, t_start, t_end, t_done = c.status[2:6]

                def at(t, t_recv=t_recv, base=c.t_signal):
                    return base + ((t - t_recv) & 0xFFFFFFFF)

                p["start"] = at(t_start)
                p["end"] = at(t_end)
                p["device_done"] = at(t_done)
                p["kernel_cycles"] = (t_end - t_start) & 0xFFFFFFFF
            out[c.core] = p
        return out

    def __repr__(self):
        done = sum(c.state == FINISHED for c in self._commands)
        return f"<epython handle {self.label}: {done}/{len(self._commands)} cores finished>"


def waitAll(*handles):  # noqa: N802 - the original ePython's name
    """[h.wait() for h in handles]."""
    return [h.wait() for h in handles]


# ---------------------------------------------------------------- offload


def _check_value(value, what):
    try:
        return _values.serialise(value)
    except _values.ValueProblem as p:
        raise p.kind(f"{what}{p.path}: {p}") from None


def _choose_cores(rt, target, auto, all_):
    if auto is not None:
        return rt.pick_auto(auto)
    if target is not None:
        return rt.check_cores(target)
    if all_:
        return list(range(rt.ncores))
    raise ValueError("no cores chosen: target=None, auto=None and all=False")


def _split_options(kwargs, defaults):
    opts = dict(defaults)
    for name in _OPTION_NAMES:
        if name in kwargs:
            value = kwargs.pop(name)
            opts["async_" if name == "async" else name] = value
    return opts


def _compile(fn, device_globals):
    try:
        from .compiler import compile_kernel
    except ImportError as e:
        raise ImportError(f"epython: the kernel compiler is not available ({e})") from e
    return compile_kernel(fn, device_globals)


class Kernel:
    """A function offloaded to the chip; calling it launches it."""

    def __init__(self, fn, options, code=None):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._options = options
        self._signature = inspect.signature(fn)
        self._code = code
        self._code_version = None if code is None else "fixed"
        self._code_key = None
        if code is None:
            # A SyntaxError shows at decoration; except a name that is not
            # defined yet: it may be a device variable defined later, so
            # that one waits for the first call.
            try:
                self._get_code()
            except SyntaxError as e:
                if getattr(e, "undefined_name", None) is None:
                    raise

    def _get_code(self):
        if self._code_version == "fixed":
            return self._code
        if self._code is None or self._code_version != _globals_version:
            gids = {name: gid for name, (gid, _) in _device_globals.items()}
            self._code = None
            self._code_version = _globals_version
            self._code = _compile(self._fn, gids)
        return self._code

    def disassemble(self):
        """The compiled bytecode of the kernel and the functions it calls, as text."""
        return self._get_code().disassemble()

    def __call__(self, *args, **kwargs):
        opts = _split_options(kwargs, self._options)
        code = self._get_code()
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"kernel {self.__name__!r}: {e}") from None
        bound.apply_defaults()
        values = []
        for name, value in bound.arguments.items():
            values.append(value)
            _check_value(value, f"argument {name!r} of kernel {self.__name__!r}")
        payload = _values.serialise(values)
        timeout = opts.get("timeout_cycles")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1
        ):
            raise ValueError(f"timeout_cycles={timeout!r}: expected a positive number of cycles")
        with _lock:
            rt = _rt()
            cores = _choose_cores(rt, opts.get("target"), opts.get("auto"), opts.get("all", True))
            label = f"kernel {self.__name__!r}"
            commands = [
                Command(n, CMD_CALL, label, code=code, payload=payload, timeout_cycles=timeout)
                for n in cores
            ]
            rt.submit(commands)
            handle = Handle(rt, commands, label)
        if opts.get("async_"):
            return handle
        return handle.wait()


_DEFAULTS = {"async_": False, "target": None, "auto": None, "all": True, "timeout_cycles": None}


def offload(fn=None, **options):
    """@offload or @offload(async_=False, target=None, auto=None, all=True, timeout_cycles=None).

    A blocking call returns the list of the cores' results in core order;
    `async_=True` (or **{"async": True}) returns a Handle. The same keywords
    at call time override the decorator's for that call; other keyword
    arguments bind to the kernel's parameters.
    """
    unknown = set(options) - set(_OPTION_NAMES)
    if unknown:
        raise TypeError(f"offload: unknown option(s) {', '.join(sorted(unknown))}")
    opts = _split_options(dict(options), _DEFAULTS)
    if fn is None:
        return lambda f: Kernel(f, opts)
    if not callable(fn):
        raise TypeError(f"offload: expected a function, not {type(fn).__name__}")
    return Kernel(fn, opts)


def offload_single(fn=None):
    """Asynchronous, on any one idle core."""
    opts = dict(_DEFAULTS, async_=True, auto=1, all=False)
    if fn is None:
        return lambda f: Kernel(f, opts)
    return Kernel(fn, opts)


def offload_multiple(fn=None, cores=None):
    """Asynchronous, on `cores` idle cores."""
    if cores is None:
        raise ValueError("offload_multiple needs cores=N")
    opts = dict(_DEFAULTS, async_=True, auto=cores, all=False)
    if fn is None:
        return lambda f: Kernel(f, opts)
    return Kernel(fn, opts)


# ---------------------------------------------------------------- device data


def _name_from_bytecode(frame):
    """The name the call at `frame`'s current instruction loaded as its last
    positional argument, read from the bytecode (no source needed: the
    interactive prompt, exec'd strings); None if it is not a plain name."""
    instructions = list(dis.get_instructions(frame.f_code))
    # f_lasti may point into the call's inline caches (3.11+): the call is
    # the last instruction starting at or before it.
    at = max((k for k, i in enumerate(instructions) if i.offset <= frame.f_lasti), default=None)
    if at is None or not instructions[at].opname.startswith("CALL"):
        return None
    k = at - 1
    while k >= 0 and instructions[k].opname in ("PRECALL", "CACHE", "KW_NAMES"):
        k -= 1
    if k >= 0 and instructions[k].opname in (
        "LOAD_NAME",
        "LOAD_GLOBAL",
        "LOAD_FAST",
        "LOAD_DEREF",
        "LOAD_CLASSDEREF",
    ):
        return instructions[k].argval
    return None


def _name_at_call_site(frame, func_name):
    """The variable name passed as the first argument of `func_name(...)` at `frame`."""
    filename = frame.f_code.co_filename
    lineno = frame.f_lineno
    lines = linecache.getlines(filename, frame.f_globals)
    if not lines:
        name = _name_from_bytecode(frame)
        if name is not None:
            return name, None
        return None, f"the source of {filename} is not available"
    try:
        tree = ast.parse("".join(lines), filename)
    except SyntaxError:
        return None, f"{filename} cannot be parsed"
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        called = (
            f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        )
        if called != func_name:
            continue
        end = getattr(node, "end_lineno", node.lineno)
        if not node.lineno <= lineno <= end:
            continue
        if node.args and isinstance(node.args[0], ast.Name):
            names.add(node.args[0].id)
        else:
            names.add(None)
    if len(names) == 1 and None not in names:
        return names.pop(), None
    if not names:
        return None, f"no call of {func_name} found at {filename}:{lineno}"
    return None, f"the argument at {filename}:{lineno} is not a plain variable name"


def _send_global(rt, name, gid, value, cores):
    payload = _check_value(value, f"device variable {name!r}")
    label = f"copy_to_device({name!r})"
    commands = [Command(n, CMD_SETGLOBAL, label, payload=payload, gid=gid) for n in cores]
    rt.submit(commands)
    return Handle(rt, commands, label)


def define_on_device(var, name=None):
    """Give every core its own copy of the variable passed (found by its name
    at the call site: `define_on_device(a)` defines `a`; pass name= where
    the call site's source cannot be read)."""
    global _globals_version
    if name is None:
        frame = inspect.currentframe().f_back
        try:
            name, why = _name_at_call_site(frame, "define_on_device")
        finally:
            del frame
        if name is None:
            raise ValueError(
                f"define_on_device: cannot find the variable's name ({why}); "
                "pass it as define_on_device(value, name='...')"
            )
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"define_on_device: name={name!r} is not a Python identifier")
    _check_value(var, f"device variable {name!r}")
    with _lock:
        if name in _device_globals:
            gid = _device_globals[name][0]
        else:
            gid = len(_device_globals)
            _globals_version += 1
        _device_globals[name] = (gid, var)
        if _runtime is not None and _runtime.booted:
            _send_global(_runtime, name, gid, var, list(range(_runtime.ncores))).wait()


def _gid(name):
    try:
        return _device_globals[name][0]
    except KeyError:
        known = ", ".join(sorted(_device_globals)) or "none"
        raise ValueError(
            f"no device variable named {name!r} (defined: {known}); define_on_device it first"
        ) from None


def copy_to_device(name, value, target=None, async_=False, **kw):
    """Set every target core's copy of device variable `name` (default: all cores)."""
    async_ = kw.pop("async", async_)
    if kw:
        raise TypeError(f"copy_to_device: unexpected keyword(s) {', '.join(kw)}")
    gid = _gid(name)
    _check_value(value, f"device variable {name!r}")
    with _lock:
        rt = _rt()
        cores = _choose_cores(rt, target, None, True)
        handle = _send_global(rt, name, gid, value, cores)
    if async_:
        return handle
    handle.wait()
    return None


def copy_from_device(name, target=None, async_=False, **kw):
    """Every target core's copy of device variable `name`, in core order."""
    async_ = kw.pop("async", async_)
    if kw:
        raise TypeError(f"copy_from_device: unexpected keyword(s) {', '.join(kw)}")
    gid = _gid(name)
    with _lock:
        rt = _rt()
        cores = _choose_cores(rt, target, None, True)
        label = f"copy_from_device({name!r})"
        commands = [Command(n, CMD_GETGLOBAL, label, gid=gid) for n in cores]
        rt.submit(commands)
        handle = Handle(rt, commands, label)
    if async_:
        return handle
    return handle.wait()
