"""The device language, kernel by kernel: each runs on core 0 through the
package API and its result is compared with CPython running the same
function on the host (floats to single precision).

The kernels that use `random` and `parallel` have no host twin; their
results are checked for their properties instead.

These tests need the simulator library and the firmware. When a first
trivial launch cannot be made they are skipped, with the reason; set
EPYTHON_REQUIRE_DEVICE=1 to make that a failure instead.
"""

import math
import os
import struct

import pytest

from epython import define_on_device, offload
from epython.compiler import compile_kernel

size = len  # ePython's spelling, so the host twin runs too


# ---------------------------------------------------------------- the kernels


def k_int_arith(a, b):
    return [a + b, a - b, a * b, a // b, a % b, a**3, -a, ~a, a & b, a | b, a ^ b, a << 3, a >> 1]


def k_int_signs(a, b):
    return [a // b, a % b, -a // b, -a % b, a // -b, a % -b, (-a) >> 1, 2**-1, 7 / 2]


def k_float_arith(x, y):
    return [x + y, x - y, x * y, x / y, x // y, x % y, x**2, -x, x + 1, 3 - x, 2 * x + 0.25]


def k_mixed(n, x):
    return [n + x, n * x, True + n, False * x, n / 4, n**2, abs(-n), abs(-x), +n]


def k_compare(a, b):
    return [a < b, a <= b, a > b, a >= b, a == b, a != b, 1 < a < b, a < b < 1, a == a <= b]


def k_compare_if(a, b):
    out = []
    if a < b:
        out.append(1)
    if a > b:
        out.append(2)
    if a <= b:
        out.append(3)
    if a >= b:
        out.append(4)
    if a == b:
        out.append(5)
    if a != b:
        out.append(6)
    if 0 < a < b < 100:
        out.append(7)
    if not a < b:
        out.append(8)
    return out


def k_boolean(a, b):
    return [a and b, a or b, not a, not b, b and a, None or b, 0 or 0.0, a and b or 7]


def k_boolean_if(a, b):
    n = 0
    if a and b:
        n += 1
    if a or b:
        n += 10
    if not (a and b) or a:
        n += 100
    if (a or b) and not a:
        n += 1000
    return n


def k_none(x):
    y = None
    return [x is None, x is not None, y is None, y, x if x is not None else -1]


def k_ifexp(n):
    return [("neg" if n < 0 else "zero" if n == 0 else "pos"), n if n > 2 else 2]


def k_strings(name, n):
    s = "hello, " + name
    t = "x" + str(n) + str(True) + str(None) + str("!")  # noqa: UP018
    return [s, t, s == "hello, " + name, s != t, len(s), size(t), "a" + "b" == "ab"]


def k_lists(n):
    xs = [1, 2.5, "three", [4, [5]]]
    zs = [0] * n
    ws = n * [7]
    zs[1] = 9
    zs[-1] += 3
    xs[3][1][0] = 6
    xs.append(len(zs))
    return [xs, zs, ws, xs[-2], xs[3][1], len(xs), zs[n - 1]]


def k_list_build(n):
    out = []
    for i in range(n):
        out.append(i * i)
    grid = [[0] * 3] * 1
    grid[0][1] = n
    return [out, sum(out), min(out), max(out), grid, len(range(2, 20, 3)), sum(range(5))]


def k_builtins(x, n):
    return [
        abs(-7),
        abs(x),
        min(3, n, 1),
        max(3, n, 1),
        min([4, 2, 8]),
        max([4.5, 2.5]),
        int(x),
        int(-x),
        int(True),
        float(n),
        bool(0),
        bool(n),
        len([1, 2, 3]),
        sum([1, 2, 3.5]),
        str(n),
    ]


def k_math(x, y):
    import math

    return [
        math.sqrt(x),
        math.pow(x, y),
        math.sin(y),
        math.cos(y),
        math.tan(y),
        math.atan2(y, x),
        math.exp(y),
        math.log(x),
        math.log(x, 2),
        math.floor(y),
        math.ceil(y),
        math.floor(-y),
        math.fabs(-x),
        math.pi,
        math.e,
    ]


def k_math_spellings(x):
    import math as m
    from math import sqrt

    return [m.sqrt(x), sqrt(x) + math.sqrt(x), m.pi * 2]


def k_while(n):
    s = 0
    i = 0
    while i < n:
        s += i
        i += 1
    return [s, i]


def k_while_break_continue(n):
    i = 0
    odd = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 2 == 0:
            continue
        odd += i
    return [i, odd]


def k_for_range(n):
    a = 0
    for i in range(n):
        a += i
    b = 0
    for i in range(3, n):
        b += i
    c = []
    for i in range(n, 0, -3):
        c.append(i)
    d = 0
    for i in range(5, 2):  # noqa: B007 - i is read after the loop
        d += 1
    return [a, b, c, d, i]


def k_for_break_continue(n):
    total = 0
    for i in range(n):
        if i == 7:
            break
        if i % 3 == 0:
            continue
        total += i
    last = -1
    for last in range(n):  # noqa: B007 - last is read after the loop
        pass
    return [total, i, last]


def k_for_list(xs):
    out = 0.0
    count = 0
    for x in xs:
        if x < 0:
            continue
        if x > 100:
            break
        out += x
        count += 1
    for y in [1, 2, 3]:
        count += y
    return [out, count, x]


def k_nested_loops(n):
    hits = 0
    for r in range(n):
        for d in range(n):
            if r * r + d * d <= n * n:
                hits += 1
    return hits


def k_pass_and_swap(a, b):
    if a:
        pass
    a, b = b, a
    xs = [1, 2]
    xs[0], xs[1] = xs[1], xs[0]
    return [a, b, xs]


def helper_scale(x, factor=2):
    return x * factor


def helper_chain(x):
    return helper_scale(x) + helper_scale(x, factor=3) + helper_scale(factor=1, x=x)


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def k_functions(n):
    def twice(v, plus=0):
        return 2 * v + plus

    def fact(m):
        return 1 if m <= 1 else m * fact(m - 1)

    return [helper_chain(n), twice(n), twice(n, 1), fact(n), fib(n)]


def k_returns_none(n):
    if n > 0:
        return
    return None


def k_locals_and_constants(n):
    total = CONST_INT + n
    scaled = total * CONST_FLOAT
    return [total, scaled, CONST_STR, CONST_LIST, CONST_BOOL, CONST_NONE]


CONST_INT = 40000
CONST_FLOAT = 0.25
CONST_STR = "tag"
CONST_LIST = [1, 2.5, ["x"]]
CONST_BOOL = True
CONST_NONE = None


def k_augmented(n):
    a = n
    a += 2
    a -= 1
    a *= 3
    a //= 2
    a %= 7
    a **= 2
    a <<= 2
    a >>= 1
    a |= 1
    a &= 13
    a ^= 5
    xs = [1.5, 2, 3]
    xs[0] *= 2
    xs[1] -= 10
    xs[-1] /= 2
    return [a, xs]


def k_docstring(n):
    """A docstring is not code."""
    return n


CASES = [
    (k_int_arith, (37, 5)),
    (k_int_arith, (-37, 6)),
    (k_int_signs, (7, 2)),
    (k_float_arith, (7.5, 2.0)),
    (k_float_arith, (-1.25, 0.5)),
    (k_mixed, (3, 0.5)),
    (k_compare, (1, 2)),
    (k_compare, (2.5, 2.5)),
    (k_compare_if, (3, 50)),
    (k_compare_if, (50, 3)),
    (k_compare_if, (4.0, 4)),
    (k_boolean, (0, 3)),
    (k_boolean, (2, 3)),
    (k_boolean, ("", "x")),
    (k_boolean_if, (True, False)),
    (k_boolean_if, (0, 1)),
    (k_boolean_if, (1, 1)),
    (k_none, (None,)),
    (k_none, (5,)),
    (k_ifexp, (-4,)),
    (k_ifexp, (0,)),
    (k_ifexp, (9,)),
    (k_strings, ("core", 12)),
    (k_lists, (4,)),
    (k_list_build, (6,)),
    (k_builtins, (2.75, 5)),
    (k_math, (2.0, 0.75)),
    (k_math_spellings, (16.0,)),
    (k_while, (100,)),
    (k_while, (0,)),
    (k_while_break_continue, (9,)),
    (k_for_range, (10,)),
    (k_for_break_continue, (20,)),
    (k_for_break_continue, (5,)),
    (k_for_list, ([1.5, -2.0, 3.0, 500.0, 4.0],)),
    (k_nested_loops, (12,)),
    (k_pass_and_swap, (1, "b")),
    (k_functions, (6,)),
    (k_returns_none, (1,)),
    (k_returns_none, (0,)),
    (k_locals_and_constants, (2,)),
    (k_augmented, (11,)),
    (k_docstring, (8,)),
]


# ---------------------------------------------------------------- running them


@pytest.fixture(scope="module")
def device():
    def probe():
        return 1

    try:
        result = offload(probe, target=[0])()
    except Exception as e:  # the runtime could not start: no library, no firmware
        if os.environ.get("EPYTHON_REQUIRE_DEVICE"):
            raise
        pytest.skip(f"no device to run on: {type(e).__name__}: {e}")
    assert result == [1]
    return True


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same(device_value, host_value, path="result"):
    """Assert the device's value is the host's (floats within single precision)."""
    assert type(device_value) is type(host_value), (
        f"{path}: device gave {device_value!r} ({type(device_value).__name__}), "
        f"host {host_value!r} ({type(host_value).__name__})"
    )
    if isinstance(host_value, list):
        assert len(device_value) == len(host_value), f"{path}: {device_value!r} != {host_value!r}"
        for i, (d, h) in enumerate(zip(device_value, host_value)):
            same(d, h, f"{path}[{i}]")
    elif isinstance(host_value, float):
        assert math.isclose(device_value, f32(host_value), rel_tol=1e-6, abs_tol=1e-6), (
            f"{path}: device {device_value!r}, host {host_value!r}"
        )
    else:
        assert device_value == host_value, f"{path}: device {device_value!r}, host {host_value!r}"


def run(fn, *args, target=(0,)):
    # a bound on every kernel: a hang fails fast instead of blocking the cores
    return offload(fn, target=list(target), timeout_cycles=200_000_000)(*args)


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}{args!r}" for fn, args in CASES])
def test_kernel_matches_cpython(device, fn, args):
    (result,) = run(fn, *args)
    same(result, fn(*args))


def k_print(n, x):
    print("n is", n, "x is", x, True, None)
    print()
    print(n * 2)
    return 0


def test_print_with_several_arguments(device, capsys):
    run(k_print, 5, 0.5)
    k_print(5, 0.5)
    lines = capsys.readouterr().out.splitlines()
    device_lines = [line.split("] ", 1)[1] if "] " in line else "" for line in lines[:3]]
    host_lines = lines[3:]
    assert lines[0].startswith("[device 0]")
    assert device_lines == host_lines == ["n is 5 x is 0.5 True None", "", "10"]


def k_int_wraps(n):
    return [n + 1, n * 2, -n - 2]


def test_ints_wrap_at_32_bits(device):
    (result,) = run(k_int_wraps, 2147483647)
    assert result == [-2147483648, -2, 2147483647]


gcount = 0
gtable = [0, 0, 0]


def k_globals_assign(n):
    gcount = n  # ePython's rule: a device global, with no global statement
    return gcount + 1


def k_globals_update(n):
    global gcount
    gcount += n
    gtable[1] = gcount
    return [gcount, gtable]


def test_device_globals(device):
    define_on_device(gcount, name="gcount")
    define_on_device(gtable, name="gtable")
    assert run(k_globals_assign, 5) == [6]
    assert run(k_globals_update, 3) == [[8, [0, 8, 0]]]
    assert run(k_globals_update, 1) == [[9, [0, 9, 0]]]


def k_random(n):
    from random import randint, random, seed

    seed(1234)
    first = random()
    xs = []
    for _ in range(n):
        xs.append(random())
    ks = []
    for _ in range(n):
        ks.append(randint(3, 6))
    seed(1234)
    again = random()
    return [first, again, xs, ks]


def test_random_properties_and_determinism(device):
    ((first, again, xs, ks),) = run(k_random, 200)
    assert first == again
    assert all(isinstance(x, float) and 0.0 <= x < 1.0 for x in xs)
    assert len(set(xs)) > 150
    assert set(ks) == {3, 4, 5, 6}
    assert run(k_random, 200) == run(k_random, 200)


def k_parallel_single():
    import parallel

    me = parallel.coreid()
    n = parallel.numcores()
    parallel.sync()
    return [me, n, parallel.bcast(me + 41, 0), parallel.reduce(me + 2, "sum")]


def test_parallel_on_one_core(device):
    assert run(k_parallel_single) == [[0, 1, 41, 2]]


def k_parallel_ring():
    from epython import parallel

    me = parallel.coreid()
    n = parallel.numcores()
    right = (me + 1) % n
    left = (me + n - 1) % n
    parallel.send(me * 10, right)
    got = parallel.recv(left)
    # sendrecv exchanges with one partner (sends to it, receives from it):
    # pairs 0-1 and 2-3.
    both = parallel.sendrecv(me, me ^ 1)
    total = parallel.reduce(me, "sum")
    biggest = parallel.reduce(me, "max")
    root = parallel.bcast(me * 3 + 1, 2)
    return [me, n, got, both, total, biggest, root]


def test_parallel_on_four_cores(device):
    results = run(k_parallel_ring, target=(0, 1, 2, 3))
    assert [r[0] for r in results] == [0, 1, 2, 3]
    for me, n, got, both, total, biggest, root in results:
        assert n == 4
        assert got == ((me + 3) % 4) * 10
        assert both == me ^ 1
        assert (total, biggest, root) == (6, 3, 7)


def k_zero_division(n):
    return 10 // n


def test_errors_on_the_device_name_the_kernel_line(device):
    with pytest.raises(Exception) as info:
        run(k_zero_division, 0)
    e = info.value
    assert getattr(e, "kind", None) == "ZERODIV"
    assert getattr(e, "line", None) == k_zero_division.__code__.co_firstlineno + 1


def test_every_kernel_of_the_table_compiles_without_a_device():
    for fn, _ in CASES:
        compile_kernel(fn, {})
    for fn in (k_print, k_random, k_parallel_single, k_parallel_ring, k_globals_update):
        compile_kernel(fn, {"gcount": 0, "gtable": 1})
