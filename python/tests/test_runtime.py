"""The runtime on the simulated E16 with hand-assembled kernels: launches,
scheduling, device data, errors, timeouts, prints and profiles. Each error
is followed by a successful launch (the chip still works)."""

import struct

import pytest
from conftest import needs_chip, needs_compiler
from handmade import (
    Func,
    HandModule,
    add_module,
    coreid_module,
    div_module,
    echo_module,
    getglobal_module,
    hello_module,
    op,
    op_bx,
    printmany_module,
    setitem_global_module,
    spin_module,
)

import epython

pytestmark = needs_chip


def kernel(module, params, **opts):
    src = f"def {module.name}({', '.join(params)}):\n    pass\n"
    ns = {}
    exec(src, ns)  # a Python function with the module's signature
    return epython.Kernel(ns[module.name], dict(epython._DEFAULTS, **opts), code=module)


@pytest.fixture(scope="module")
def k():
    class K:
        add = kernel(add_module(), ["a", "b"])
        hello = kernel(hello_module(), ["a", "b"])
        echo = kernel(echo_module(), ["x"])
        coreid = kernel(coreid_module(), [])
        div = kernel(div_module(), ["a", "b"])
        spin = kernel(spin_module(), [])
        printmany = kernel(printmany_module(), ["n"])

    return K


def test_a_blocking_launch_returns_every_core_s_result_in_core_order(k):
    assert k.add(10, 20) == [30] * 16
    assert k.add(a=1, b=2, target=3) == [3]
    assert epython.chip().ncores == 16


def test_prints_show_per_core_with_the_device_prefix(k, capsys):
    assert k.hello(10, 20) == [30] * 16
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == sorted(f"[device {n}] Hello World" for n in range(16))


def test_asynchronous_launches_return_handles(k):
    h = k.add(10, 20, target=[9, 10], async_=True)
    assert isinstance(h, epython.Handle)
    assert h.wait() == [30, 30]
    h = k.add(1, 2, **{"async": True, "target": [4]})
    assert h.wait() == [3]
    assert k.coreid(target=[5, 3]) == [3, 5]


def test_auto_single_and_multiple(k):
    assert len(k.add(1, 1, auto=4)) == 4
    single = epython.Kernel(
        k.add.__wrapped__,
        dict(epython._DEFAULTS, async_=True, auto=1, all=False),
        code=add_module(),
    )
    multiple = epython.Kernel(
        k.add.__wrapped__,
        dict(epython._DEFAULTS, async_=True, auto=8, all=False),
        code=add_module(),
    )
    assert epython.waitAll(multiple(10, 20), single(10, 20)) == [[30] * 8, [30]]


def test_auto_takes_idle_cores_first(k):
    busy = k.printmany(200, target=[0, 1], async_=True)
    h = k.coreid(auto=3, async_=True)
    assert h.wait() == [2, 3, 4]
    busy.wait()


def test_values_travel_both_ways(k, capsys):
    for value in [0, -5, 2**31 - 1, 0.1, 1e-3, True, None, "héllo", [1, [2.5, "x"], []]]:
        assert k.echo(value, target=0) == [value]
    big = list(range(400))  # more than the SRAM argument buffer: goes by DRAM
    assert k.echo(big, target=[2, 7]) == [big, big]


def test_the_code_cache_evicts_and_big_modules_run_from_dram(k):
    def const_module(n, pad):
        code = [op("NOP")] * pad + [op_bx("LOADI", 0, n), op("RET", 0)]
        return HandModule(f"c{n}", [Func(f"c{n}", 0, 1, code)])

    kernels = [kernel(const_module(n, 300), []) for n in range(8)]
    for _ in range(2):
        for n, kk in enumerate(kernels):
            assert kk(target=[0, 15]) == [n, n]
    huge = kernel(const_module(99, 3000), [])  # 12 KB: larger than the cache
    assert huge(target=[1, 2]) == [99, 99]


def test_bad_targets_and_auto_are_value_errors(k):
    with pytest.raises(ValueError, match="outside the chip"):
        k.add(1, 2, target=16)
    with pytest.raises(ValueError, match="outside the chip"):
        k.add(1, 2, target=[0, -1])
    with pytest.raises(ValueError, match="auto=17"):
        k.add(1, 2, auto=17)
    with pytest.raises(TypeError, match="argument 'b'"):
        k.add(1, object())
    assert k.add(1, 2, target=0) == [3]


def test_a_device_error_names_core_kernel_file_and_line(k):
    with pytest.raises(epython.DeviceError) as e:
        k.div(1, 0, target=[6])
    err = e.value
    assert err.core == 6 and err.kernel == "kernel 'div'" and err.kind == "ZERODIV"
    assert err.line == 10 and err.filename == "kernels.py"
    assert "core 6" in str(err) and "kernels.py:10" in str(err)
    assert "ZeroDivisionError: division by zero" in str(err)
    assert k.div(7, 2, target=[6]) == [3]


def test_a_kernel_past_its_timeout_is_aborted(k):
    with pytest.raises(epython.DeviceTimeout, match="timeout of 200000 cycles"):
        k.spin(target=[4, 5], timeout_cycles=200_000)
    assert k.add(2, 3, target=[4, 5]) == [5, 5]


def test_copy_then_kernel_on_core_1_run_in_order(k):
    epython.define_on_device([0, 0, 0], name="g")
    gid = epython._device_globals["g"][0]
    get = kernel(getglobal_module(gid), [])
    copy = epython.copy_to_device("g", [5, 6, 7], target=[1], async_=True)
    h = get(target=[0, 1], async_=True)
    assert h.wait() == [[0, 0, 0], [5, 6, 7]]
    assert copy.test() is True
    put = kernel(setitem_global_module(gid), ["i", "v"])
    put(2, 42, target=[0])
    assert epython.copy_from_device("g", target=[0, 1]) == [[0, 0, 42], [5, 6, 7]]


def test_asynchronous_copies(k):
    epython.define_on_device([1, 2], name="h2")
    epython.copy_to_device("h2", [9, 9], target=[3])
    h = epython.copy_from_device("h2", target=[3, 8], async_=True)
    for _ in range(100):
        if h.test():
            break
    assert h.test() is True
    assert h.wait() == [[9, 9], [1, 2]]
    assert epython.copy_from_device("h2") == [[1, 2]] * 3 + [[9, 9]] + [[1, 2]] * 12


def test_wait_any_and_counts(k):
    long = k.printmany(300, target=[12], async_=True)
    h = k.add(1, 1, target=[12, 13], async_=True)
    assert h.number_outstanding() == 1  # core 12 is busy with printmany
    assert h.number_running() == 1
    first = h.wait_any()
    assert first == {13: 2}
    assert h.wait_any() == {12: 2}
    assert h.wait() == [2, 2]
    long.wait()


def test_a_full_print_area_is_drained_in_order(k, capsys):
    k.printmany(2500, target=[7])
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"[device 7] {i}" for i in range(2500)]


def test_profile_stamps_are_in_order(k):
    h = k.add(1, 2, target=[0, 9], async_=True)
    h.wait()
    prof = h.profile()
    assert sorted(prof) == [0, 9]
    for p in prof.values():
        keys = ["host_begin", "signal", "start", "end", "device_done", "host_result"]
        stamps = [p[key] for key in keys]
        assert stamps == sorted(stamps), p
        assert p["kernel_cycles"] >= 0


def test_chip_clock_and_statistics(k):
    c = epython.chip()
    t0 = c.cycles
    k.add(1, 2, target=0)
    assert c.cycles > t0
    stats = c.stats()
    assert stats["instret"] > 0 and stats["bytes_written"] > 0
    assert (c.rows, c.cols, c.ncores) == (4, 4, 16)


def test_a_scalar_result_travels_in_the_status_table(k):
    # Core 0's entry of the DRAM status table says DONE for the last
    # command, seq matching, and holds the serialised int result inline.
    rt = epython._rt()
    assert k.add(1, 2, target=0) == [3]
    st = struct.unpack("<16I", rt.hal.read(rt.mem, 0, 0, rt.status_off(0), 64))
    assert st[0] == 3 and st[1] == rt.cores[0].seq
    assert st[6] == 8 and st[8:10] == (0, 3)


def test_configure_after_the_first_launch_is_refused(k):
    k.add(1, 2, target=0)
    with pytest.raises(RuntimeError, match="before the first launch"):
        epython.configure(mode="functional")


@needs_compiler
def test_keywords_bind_to_parameters_with_host_side_defaults():
    @epython.offload(target=[0, 1])
    def scaled(a, b=5, c=None):
        if c is None:
            return a * b
        return c

    assert scaled(2) == [10, 10]
    assert scaled(2, b=3, target=[4]) == [6]
    assert scaled(c="x", a=1, **{"async": True}).wait() == ["x", "x"]
    assert epython.offload_single(scaled.__wrapped__)(3).wait() == [15]
    assert len(epython.offload_multiple(scaled.__wrapped__, cores=3)(1).wait()) == 3
