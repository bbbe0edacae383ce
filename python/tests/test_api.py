"""The API's checks that need no chip: options, argument values, names."""

import inspect

import pytest
from conftest import needs_compiler
from handmade import add_module

import epython
from epython import _chip


def kernel(fn, **opts):
    return epython.Kernel(fn, dict(epython._DEFAULTS, **opts), code=add_module())


def test_the_decorated_object_keeps_the_function_s_identity():
    def f(a, b):
        """Adds."""
        return a + b

    k = kernel(f)
    assert k.__wrapped__ is f
    assert k.__name__ == "f"
    assert k.__doc__ == "Adds."


def test_bad_argument_values_fail_before_launch_naming_the_argument():
    def f(a, b):
        return a + b

    k = kernel(f)
    with pytest.raises(TypeError, match=r"argument 'b' of kernel 'f'.*dict"):
        k(1, {"x": 1})
    with pytest.raises(OverflowError, match=r"argument 'a' of kernel 'f'.*32-bit"):
        k(2**40, 1)
    with pytest.raises(TypeError, match=r"argument 'a' of kernel 'f'\[1\]"):
        k([1, object()], 1)
    with pytest.raises(TypeError, match="kernel 'f'.*missing"):
        k(1)
    with pytest.raises(ValueError, match="timeout_cycles"):
        k(1, 2, timeout_cycles=0)


def test_offload_checks_its_options():
    with pytest.raises(TypeError, match="unknown option"):
        epython.offload(targets=[1])
    with pytest.raises(ValueError, match="cores=N"):
        epython.offload_multiple()
    with pytest.raises(ValueError, match="chip="):
        epython.configure(chip="3x9")
    with pytest.raises(ValueError, match="chip="):
        epython.configure(chip="e32")
    with pytest.raises(ValueError, match="mode="):
        epython.configure(mode="fast")


def test_async_spelled_as_the_keyword_is_an_option():
    opts = epython._split_options({"async": True, "x": 1}, epython._DEFAULTS)
    assert opts["async_"] is True
    opts = epython._split_options({"async_": True}, epython._DEFAULTS)
    assert opts["async_"] is True


def test_chip_specs():
    assert _chip.parse_chip("e16") == ("E16G301", 4, 4)
    assert _chip.parse_chip("E64") == ("E64G401", 8, 8)
    assert _chip.parse_chip("2x3") == ("E16G301", 2, 3)
    assert _chip.parse_chip("4x8") == ("E64G401", 4, 8)
    with pytest.raises(ValueError, match="at most 8x8"):
        _chip.parse_chip("9x9")


def grab(value):
    return epython._name_at_call_site(inspect.currentframe().f_back, "grab")


def test_the_variable_name_is_found_at_the_call_site():
    my_var = [1, 2]
    assert grab(my_var) == ("my_var", None)
    assert grab(
        my_var,
    ) == ("my_var", None)
    name, why = grab(my_var + [3])
    assert name is None and "not a plain variable name" in why


def test_define_on_device_needs_a_name_it_can_find():
    with pytest.raises(ValueError, match="name="):
        epython.define_on_device([1, 2] + [3])
    with pytest.raises(ValueError, match="identifier"):
        epython.define_on_device([1], name="not a name")
    with pytest.raises(TypeError, match="device variable 'zz'"):
        epython.define_on_device({1: 2}, name="zz")
    with pytest.raises(ValueError, match="no device variable named 'nope'"):
        epython.copy_from_device("nope")


@needs_compiler
def test_offload_compiles_at_decoration():
    @epython.offload
    def adds(a, b=5):
        """Adds on the device."""
        return a + b

    assert adds.__name__ == "adds" and adds.__doc__ == "Adds on the device."
    assert adds.__wrapped__(1) == 6
    with pytest.raises(SyntaxError):

        @epython.offload(target=[1])
        def bad(a):
            class C:  # classes do not run on the device
                pass

            return C


@needs_compiler
def test_kernels_recompile_when_device_globals_change():
    @epython.offload
    def reads():
        return later_defined[0]  # noqa: F821 - a device global defined below

    # Not a device variable yet: the error waits for a call.
    with pytest.raises(SyntaxError, match="later_defined"):
        reads._get_code()
    epython.define_on_device([1], name="later_defined")
    first = reads._get_code()
    assert "later_defined" in first.globals_used
    assert reads._get_code() is first
    epython.define_on_device([2], name="another_one")
    assert reads._get_code() is not first


def test_a_kernel_lists_its_bytecode():
    @epython.offload
    def twice(x):
        return x + x

    text = twice.disassemble()
    assert "twice" in text and "ADD" in text and "RET" in text


def test_the_variable_name_is_found_without_source_too():
    # As at the interactive prompt: code whose source linecache cannot find.
    code = compile(
        "import epython\nvalues = [1, 2, 3]\nfound = epython._name_at_call_site_probe(values)\n",
        "<interactive>",
        "exec",
    )
    seen = {}

    def probe(var):
        import sys

        seen["name"] = epython._name_at_call_site(sys._getframe(1), "_name_at_call_site_probe")
        return var

    epython._name_at_call_site_probe = probe
    try:
        exec(code, {})
    finally:
        del epython._name_at_call_site_probe
    assert seen["name"] == ("values", None)
