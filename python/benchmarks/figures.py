"""The epython figures of the README, measured.

    python python/benchmarks/figures.py            # every figure
    python python/benchmarks/figures.py launch     # one group: size launch rate interp pi

Simulated figures (cycles) are exact and repeat run for run (deterministic
mode); wall-clock figures depend on the machine and its load: the script
prints the median of several repetitions.
"""

import os
import pathlib
import statistics
import subprocess
import sys
import time

from epython import offload

ROOT = pathlib.Path(__file__).resolve().parents[2]
MHZ = 600


def firmware_size():
    """Bytes of SRAM the firmware's loadable sections and bss take."""
    import struct

    elf = (ROOT / "firmware" / "epython" / "epython.elf").read_bytes()
    (phoff,) = struct.unpack_from("<I", elf, 0x1C)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x2A)
    total = 0
    top = 0
    for i in range(phnum):
        p_type, _, vaddr, _, _, memsz, _, _ = struct.unpack_from("<8I", elf, phoff + i * phentsize)
        if p_type == 1 and vaddr < 0x8000:
            total += memsz
            top = max(top, vaddr + memsz)
    print("firmware (firmware/epython/epython.elf)")
    print(f"  loaded or cleared in SRAM: {total} bytes; highest address {top:#06x}")
    print("  C stack up to 0x4080; info/config/control 0x4080-0x40ff; mailbox 0x7fe0-0x7fff")
    print(f"  SRAM from 0x4100 to the mailbox: {0x7FE0 - 0x4100} bytes (device area + host's)")


@offload
def empty():
    pass


def launch_overhead():
    print("launch overhead, empty kernel, blocking, timed mode (cycles at 600 MHz)")
    for cores in ([0], list(range(16))):
        empty(target=cores)  # the module reaches each core's code cache once
        h = empty(target=cores, async_=True)
        h.wait()
        prof = h.profile()
        begin = min(p["host_begin"] for p in prof.values())
        signal = max(p["signal"] for p in prof.values())
        start = max(p["start"] for p in prof.values())
        end = max(p["end"] for p in prof.values())
        done = max(p["device_done"] for p in prof.values())
        result = max(p["host_result"] for p in prof.values())
        total = result - begin
        print(f"  {len(cores):2d} core(s): round trip {total} cycles = {total / MHZ:.2f} us")
        print(f"      host writes and signals  {signal - begin:6d}")
        print(f"      last core starts kernel  {start - signal:6d}")
        print(f"      kernel runs (last end)   {end - start:6d}")
        print(f"      result written           {done - end:6d}")
        print(f"      host has every result    {result - done:6d}")


def launch_rate(n=400, reps=5):
    print(f"launches per second of wall-clock time, empty kernel on 16 cores, timed, {n} launches")
    everyone = list(range(16))
    empty(target=everyone)
    rates = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(n):
            empty(target=everyone)
        rates.append(n / (time.perf_counter() - t))
    print(
        f"  median {statistics.median(rates):.0f}/s (runs: {', '.join(f'{r:.0f}' for r in rates)})"
    )


@offload
def while_loop(n):
    s = 0
    i = 0
    while i < n:
        s += i
        i += 1
    return s


def one(x):
    return x + 1


@offload
def calls(n):
    s = 0
    i = 0
    while i < n:
        s += one(i)
        i += 1
    return s


@offload
def list_update(n):
    a = [0] * 16
    i = 0
    while i < n:
        a[5] += i
        i += 1
    return a[5]


def kernel_cycles(kernel, n):
    h = kernel(n, target=[0], async_=True)
    h.wait()
    return h.profile()[0]["kernel_cycles"]


def interpreter():
    print("interpreter speed, one core, timed: cycles per iteration (n = 1000 vs 2000)")
    base = None
    for name, k in (
        ("while i < n: s += i; i += 1", while_loop),
        ("s += one(i) (a one-line function)", calls),
        ("a[5] += i (indexed list update)", list_update),
    ):
        per = (kernel_cycles(k, 2000) - kernel_cycles(k, 1000)) / 1000
        if base is None:
            base = per
        print(f"  {name:40s} {per:7.1f}")
    print(
        "  (ePython v2.0 on epsim, same loops: 5545, 7517, 7600; python/benchmarks/EPYTHON_V2.md)"
    )


def pi():
    print("the PI dartboard (100 darts, 10 rounds per core), timed")
    script = ROOT / "python" / "examples" / "pi.py"
    for cores in (1, 16):
        walls = []
        for _ in range(3):
            t = time.perf_counter()
            out = subprocess.run(
                [sys.executable, str(script), "100", "10", str(cores)],
                check=True,
                capture_output=True,
                text=True,
                env=os.environ.copy(),
            ).stdout.splitlines()
            walls.append(time.perf_counter() - t)
        estimate = float(out[1].split()[-1])
        cycles = int(out[2].split()[-2])
        print(
            f"  {cores:2d} core(s): pi ~ {estimate:.4f}, {cycles} cycles"
            f" = {cycles / MHZ / 1000:.2f} ms simulated;"
            f" wall clock with python start-up {statistics.median(walls):.2f} s"
            " (median of 3)"
        )


GROUPS = {
    "size": firmware_size,
    "launch": launch_overhead,
    "rate": launch_rate,
    "interp": interpreter,
    "pi": pi,
}


def main(argv):
    names = argv or list(GROUPS)
    for name in names:
        if name not in GROUPS:
            sys.exit(f"unknown group {name!r}: one of {', '.join(GROUPS)}")
        GROUPS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
