"""The kernel compiler without a chip: code shapes, the module image, errors, names.

Kernels are written to a file of their own (kernels.py in a temporary
folder) and imported, so that their file names and line numbers are known.
"""

import importlib.util
import itertools
import struct
import textwrap

import pytest

from epython import _isa
from epython.compiler import DeviceSyntaxError, compile_kernel
from epython.disasm import decode

_count = itertools.count()


def load(tmp_path, source, filename="kernels.py"):
    """Import `source` (dedented) as a fresh module written to tmp_path/filename."""
    path = tmp_path / filename
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    spec = importlib.util.spec_from_file_location(f"_kernels_{next(_count)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def listing(code):
    """The disassembly without the source-line column and trailing spaces."""
    out = []
    for line in code.disassemble().splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            line = f"{parts[0]:>4}  {parts[2]}"
        out.append(line.rstrip())
    return "\n".join(out)


def golden(text):
    return textwrap.dedent(text).strip("\n")


def ops(code, func=0):
    """Opcode names of a function, in order (extension words skipped)."""
    words = code.functions[func].words
    names = []
    pc = 0
    while pc < len(words):
        name, fmt, _ = decode(words[pc])
        names.append(name)
        pc += 2 if fmt in ("ABJ", "ABsCJ") else 1
    return names


# ---------------------------------------------------------------- code shapes


def test_while_loop_is_two_instructions_per_iteration(tmp_path):
    m = load(
        tmp_path,
        """
        def total(n):
            s = 0
            i = 0
            while i < n:
                s += i
                i += 1
            return s
        """,
    )
    code = compile_kernel(m.total, {})
    assert listing(code) == golden(
        """
        function 0 total (1 params, 3 regs) kernels.py
           0  LOADI     R1, 0
           1  LOADI     R2, 0
           2  JNLT      R2, R0, -> 7
           4  ADD       R1, R1, R2
           5  INCJLT    R2, R0, 1, -> 4
           7  RET       R1
        """
    )
    # The loop is words 4..6: ADD and the two-word INCJLT (i += 1 and the test).
    assert ops(code)[2:5] == ["JNLT", "ADD", "INCJLT"]
    # The raw words, field by field as isa.txt lays them out.
    words = code.functions[0].words
    assert words[0] == _isa.LOADI | 1 << 8  # sBx 0
    assert words[2] == _isa.JNLT | 2 << 8 | 0 << 16
    assert words[3] == 7 - 4  # the entry test skips the loop: from word 4 to 7
    assert words[4] == _isa.ADD | 1 << 8 | 1 << 16 | 2 << 24
    assert words[5] == _isa.INCJLT | 2 << 8 | 0 << 16 | 1 << 24
    assert words[6] == (4 - 7) & 0xFFFFFFFF  # the extension word: from word 7 back to 4
    assert words[7] == _isa.RET | 1 << 8


@pytest.mark.parametrize(
    "loop, fused",
    [
        ("while i < n:\n    i += 3", "INCJLT    R2, R0, 3"),
        ("while i <= n:\n    i += 1", "INCJLE    R2, R0, 1"),
        ("while n > i:\n    i -= 2", "INCJLT    R2, R0, -2"),
        ("while 10 >= i:\n    s += i\n    i += 1", "INCJLE    R2, R3, 1"),
        # not the canonical shape: the plain test at the bottom
        ("while i < n:\n    i += n", None),
        ("while i < n + 1:\n    i += 1", None),
        ("while i > 0:\n    i -= 1", None),
        ("while i < n:\n    i += 1\n    s += i", None),
        ("while i < n:\n    i += 1\n    if i == 3:\n        continue\n    i += 1", None),
        ("while i < n:\n    i += 200", None),
    ],
)
def test_while_loop_fuses_the_increment_with_the_test(tmp_path, loop, fused):
    source = (
        "def k(n):\n    s = 0\n    i = 0\n" + textwrap.indent(loop, "    ") + "\n    return i + s\n"
    )
    code = compile_kernel(load(tmp_path, source).k, {})
    text = listing(code)
    if fused is None:
        assert "INCJ" not in text, text
    else:
        assert fused in text, text
        assert ops(code).count("INCJLT") + ops(code).count("INCJLE") == 1


def test_range_loop_uses_forprep_forloop_with_the_variable_in_a_plus_3(tmp_path):
    m = load(
        tmp_path,
        """
        def squares(n):
            s = 0
            for i in range(1, n, 2):
                s += i * i
            return s
        """,
    )
    code = compile_kernel(m.squares, {})
    assert listing(code) == golden(
        """
        function 0 squares (1 params, 7 regs) kernels.py
           0  LOADI     R1, 0
           1  LOADI     R2, 1
           2  MOVE      R3, R0
           3  LOADI     R4, 2
           4  FORPREP   R2, -> 8
           5  MUL       R6, R5, R5
           6  ADD       R1, R1, R6
           7  FORLOOP   R2, -> 5
           8  RET       R1
        """
    )


def test_loop_variable_used_after_the_loop_is_copied_home(tmp_path):
    m = load(
        tmp_path,
        """
        def last(n):
            i = -1
            for i in range(n):
                pass
            return i
        """,
    )
    code = compile_kernel(m.last, {})
    assert listing(code) == golden(
        """
        function 0 last (1 params, 6 regs) kernels.py
           0  LOADI     R1, -1
           1  LOADI     R2, 0
           2  MOVE      R3, R0
           3  LOADI     R4, 1
           4  MOVE      R5, R1
           5  FORPREP   R2, -> 7
           6  FORLOOP   R2, -> 6
           7  MOVE      R1, R5
           8  RET       R1
        """
    )


def test_comparisons_jump_fused_with_operands_swapped_for_gt_and_ge(tmp_path):
    m = load(
        tmp_path,
        """
        def cmp(a, b):
            if a < b:
                return 1
            if a > b:
                return 2
            if a >= b:
                return 3
            if a == b and a != 0:
                return 4
            return 5
        """,
    )
    code = compile_kernel(m.cmp, {})
    assert listing(code) == golden(
        """
        function 0 cmp (2 params, 3 regs) kernels.py
           0  JNLT      R0, R1, -> 4
           2  LOADI     R2, 1
           3  RET       R2
           4  JNLT      R1, R0, -> 8
           6  LOADI     R2, 2
           7  RET       R2
           8  JNLE      R1, R0, -> 12
          10  LOADI     R2, 3
          11  RET       R2
          12  JNE       R0, R1, -> 19
          14  LOADI     R2, 0
          15  JEQ       R0, R2, -> 19
          17  LOADI     R2, 4
          18  RET       R2
          19  LOADI     R2, 5
          20  RET       R2
        """
    )


def test_or_and_chained_comparison_in_a_condition(tmp_path):
    m = load(
        tmp_path,
        """
        def f(a, b, c):
            while a < b < c or not c:
                a += 1
            return a
        """,
    )
    code = compile_kernel(m.f, {})
    assert listing(code) == golden(
        """
        function 0 f (3 params, 3 regs) kernels.py
           0  JMP       -> 2
           1  ADDI      R0, R0, 1
           2  JNLT      R0, R1, -> 6
           4  JLT       R1, R2, -> 1
           6  JF        R2, -> 1
           7  RET       R0
        """
    )


def test_small_constants_use_addi_and_loadi_large_ones_the_constant_table(tmp_path):
    m = load(
        tmp_path,
        """
        def f(x):
            a = x - 3
            b = 1 + x
            c = x + 200
            d = 70000
            e = -32768
            return a + b + c + d + e
        """,
    )
    code = compile_kernel(m.f, {})
    body = listing(code)
    assert "ADDI      R1, R0, -3" in body
    assert "ADDI      R2, R0, 1" in body
    assert "LOADI     R6, 200" in body
    assert "LOADK     R4, K0             ; 70000" in body
    assert "LOADI     R5, -32768" in body
    assert code.consts == [70000]


def test_loop_constants_are_loaded_once_before_the_loop(tmp_path):
    m = load(
        tmp_path,
        """
        def f(n):
            s = 0.0
            while s < 100.5:
                s = s * 1.5 + 1.0
            return s
        """,
    )
    code = compile_kernel(m.f, {})
    names = ops(code)
    # Three constants loaded once; the loop is MUL, ADD, JLT.
    assert names[:4] == ["LOADK", "LOADK", "LOADK", "LOADK"]
    assert names[4:] == ["JMP", "MUL", "ADD", "JLT", "RET"]


def test_calls_go_at_the_top_of_the_used_registers(tmp_path):
    m = load(
        tmp_path,
        """
        def add3(a, b, c):
            return a + b + c

        def k(x, y):
            t = x * y
            return add3(x, t, 7) + 1
        """,
    )
    code = compile_kernel(m.k, {})
    assert listing(code) == golden(
        """
        function 0 k (2 params, 6 regs) kernels.py
           0  MUL       R2, R0, R1
           1  MOVE      R3, R0
           2  MOVE      R4, R2
           3  LOADI     R5, 7
           4  CALL      R3, 3, F1          ; add3
           5  ADDI      R3, R3, 1
           6  RET       R3
        function 1 add3 (3 params, 4 regs) kernels.py
           0  ADD       R3, R0, R1
           1  ADD       R3, R3, R2
           2  RET       R3
        """
    )


def test_lists_strings_print_and_builtins(tmp_path):
    m = load(
        tmp_path,
        """
        import math

        def k(n):
            xs = [0] * n
            ys = n * [1.5]
            xs[0] += 2
            xs.append(len(ys))
            print("n =", n, math.sqrt(2.0))
            for v in xs:
                n = n + v
            return str(n) + "!"
        """,
    )
    code = compile_kernel(m.k, {})
    assert listing(code) == golden(
        """
        function 0 k (1 params, 6 regs) kernels.py
           0  LOADI     R4, 0
           1  NEWLIST   R3, R4, 1
           2  LISTREP   R1, R3, R0
           3  LOADK     R4, K0             ; 1.5
           4  NEWLIST   R3, R4, 1
           5  LISTREP   R2, R3, R0
           6  LOADI     R3, 0
           7  GETITEM   R4, R1, R3
           8  ADDI      R4, R4, 2
           9  SETITEM   R1, R3, R4
          10  MOVE      R3, R1
          11  MOVE      R4, R2
          12  CALLB     R4, 1, len
          13  CALLB     R3, 2, append
          14  LOADK     R3, K1             ; 'n ='
          15  MOVE      R4, R0
          16  LOADK     R5, K2             ; 2.0
          17  CALLB     R5, 1, math.sqrt
          18  PRINT     R3, 3
          19  MOVE      R3, R1
          20  LOADI     R4, 0
          21  FORLIST   R3, -> 24
          22  ADD       R0, R0, R5
          23  JMP       -> 21
          24  MOVE      R3, R0
          25  CALLB     R3, 1, str
          26  LOADK     R4, K3             ; '!'
          27  ADD       R3, R3, R4
          28  RET       R3
        constants
          K0 = 1.5
          K1 = 'n ='
          K2 = 2.0
          K3 = '!'
        """
    )


def test_and_or_return_an_operand_and_swap_uses_temporaries(tmp_path):
    m = load(
        tmp_path,
        """
        def k(a, b):
            c = a or b
            a, b = b, a
            return c and a
        """,
    )
    code = compile_kernel(m.k, {})
    assert listing(code) == golden(
        """
        function 0 k (2 params, 5 regs) kernels.py
           0  MOVE      R3, R0
           1  JT        R3, -> 3
           2  MOVE      R3, R1
           3  MOVE      R2, R3
           4  MOVE      R3, R1
           5  MOVE      R4, R0
           6  MOVE      R0, R3
           7  MOVE      R1, R4
           8  MOVE      R3, R2
           9  JF        R3, -> 11
          10  MOVE      R3, R0
          11  RET       R3
        """
    )


def test_float_constants_are_rounded_to_single_precision(tmp_path):
    m = load(
        tmp_path,
        """
        def k():
            return 0.1
        """,
    )
    code = compile_kernel(m.k, {})
    (value,) = code.consts
    assert value == struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert value != 0.1


def test_nregs_counts_locals_temporaries_and_call_frames(tmp_path):
    m = load(
        tmp_path,
        """
        def k(a):
            b = 1
            c = 2
            return max(a, b, c, a + b)
        """,
    )
    code = compile_kernel(m.k, {})
    # Locals R0-R2, the call's four arguments R3-R6.
    assert code.functions[0].nregs == 7
    assert "CALLB     R3, 4, max" in listing(code)


# ---------------------------------------------------------------- the image


def test_image_layout_and_relocation(tmp_path):
    m = load(
        tmp_path,
        """
        def helper(x):
            return x + "?"

        def k(a, b=3):
            return helper("hello") + str(a * 2.5 + b)
        """,
    )
    code = compile_kernel(m.k, {})
    assert code.name == "k"
    assert code.params == ("a", "b")
    assert code.defaults == (3,)
    assert code.nfuncs == 2
    assert code.filename.endswith("kernels.py")
    for base in (0x5000, 0x8E100000):
        img = code.image(base)
        assert len(img) == code.size and code.size % 8 == 0
        magic, nfuncs, funcs, consts, nconsts, size = struct.unpack_from("<6I", img, 0)
        assert magic == 0x4D595045
        assert (nfuncs, nconsts, size) == (2, 3, code.size)
        assert funcs % 8 == 0 and consts % 8 == 0
        for i in range(nfuncs):
            addr, nparams, nregs = struct.unpack_from("<IHH", img, funcs - base + 8 * i)
            f = code.functions[i]
            assert (nparams, nregs) == (f.nparams, f.nregs)
            assert base <= addr < base + size and addr % 4 == 0
            words = list(struct.unpack_from(f"<{len(f.words)}I", img, addr - base))
            assert words == f.words
        kinds = []
        for i in range(nconsts):
            tag, payload = struct.unpack_from("<II", img, consts - base + 8 * i)
            kinds.append(tag)
            if tag == 4:
                assert base <= payload < base + size and payload % 8 == 0
                (n,) = struct.unpack_from("<I", img, payload - base)
                text = img[payload - base + 4 : payload - base + 4 + n].decode()
                assert text == code.consts[i]
            elif tag == 1:
                assert struct.unpack("<f", struct.pack("<I", payload))[0] == code.consts[i]
        assert sorted(kinds) == [1, 4, 4]
    a = code.image(0x5000)
    b = code.image(0x8E100000)
    delta = 0x8E100000 - 0x5000
    differing = []
    for off in range(0, code.size, 4):
        (wa,) = struct.unpack_from("<I", a, off)
        (wb,) = struct.unpack_from("<I", b, off)
        if wa != wb:
            assert wb - wa == delta
            differing.append(off)
    # The two table addresses, two code addresses, two string addresses.
    assert len(differing) == 6
    with pytest.raises(ValueError):
        code.image(0x5004)


def test_where_maps_word_offsets_to_file_line_and_function(tmp_path):
    m = load(
        tmp_path,
        """
        def helper(x):
            y = x * 2
            return y // 0

        def k(n):
            t = 0
            while t < n:
                t += 1
            return helper(t)
        """,
    )
    code = compile_kernel(m.k, {})
    fname, line, func = code.where(1, len(code.functions[1].words) - 1)
    assert fname.endswith("kernels.py") and (line, func) == (3, "helper")
    # The entry test belongs to the while line; the INCJLT at the bottom of
    # the loop (and its extension word) to the increment, which it runs first.
    words = code.functions[0].words
    jnlt = [i for i, w in enumerate(words) if w & 0xFF == _isa.JNLT][0]
    assert code.where(0, jnlt)[1:] == (7, "k")
    inc = [i for i, w in enumerate(words) if w & 0xFF == _isa.INCJLT][0]
    assert code.where(0, inc)[1:] == (8, "k")
    assert code.where(0, inc + 1)[1:] == (8, "k")
    assert code.where(0, 0)[1:] == (6, "k")


# ---------------------------------------------------------------- errors

UNSUPPORTED = [
    ("d = {1: 2}", "dict displays are not supported on the device"),
    ("d = {1, 2}", "set displays are not supported on the device"),
    ("d = [i for i in range(3)]", "list comprehensions are not supported on the device"),
    ("d = (i for i in range(3))", "generator expressions are not supported on the device"),
    ("d = lambda q: q", "lambdas are not supported on the device"),
    ("d = f'{x}'", "f-strings are not supported on the device"),
    ("d = (x, 1)", "tuple displays"),
    ("d = x[1:2]", "slices are not supported on the device"),
    ("d = x.real", "attribute access (.real) is not supported on the device"),
    ("d = x.upper()", "method .upper() is not supported on the device"),
    ("d = 1 in x", "the 'in' operator is not supported on the device"),
    ("d, e = x", "unpacking assignment is supported only as a, b = b, a"),
    ("try:\n        pass\n    except Exception:\n        pass", "try statements are not"),
    ("with x:\n        pass", "with statements are not supported on the device"),
    ("raise ValueError", "raise statements are not supported on the device"),
    ("assert x", "assert statements are not supported on the device"),
    ("del x", "del statements are not supported on the device"),
    ("class C:\n        pass", "class definitions are not supported on the device"),
    ("print(x, end='')", "print() takes no keyword arguments on the device"),
    ("d = abs(x, x)", "abs() takes 1 arguments (2 given)"),
    ("d = len()", "len() takes 1 arguments (0 given)"),
    ("d = math.hypot(x, x)", "math.hypot() is not available on the device"),
    ("import os", "module 'os' is not available on the device"),
    ("from math import gamma", "math.gamma is not available on the device"),
    ("for i, j in x:\n        pass", "for loops on the device take one variable"),
    ("for i in x:\n        pass\n    else:\n        pass", "for/else is not supported"),
    ("while x:\n        pass\n    else:\n        pass", "while/else is not supported"),
    ("d = undefined_name", "name 'undefined_name' is not defined"),
    ("d = HOST_OBJECT", "name 'HOST_OBJECT' refers to a object, which cannot be used"),
    ("d = x @ x", "the @ operator is not supported on the device"),
    ("d = x if x else ...", "... is not supported on the device"),
    ("d = 3j", "complex constants are not supported on the device"),
    ("d = b'xy'", "bytes constants are not supported on the device"),
    ("d = yield x", "yield is not supported on the device"),
]


@pytest.mark.parametrize("stmt, message", UNSUPPORTED)
def test_unsupported_constructs_name_file_line_and_construct(tmp_path, stmt, message):
    m = load(
        tmp_path,
        f"""
import math
HOST_OBJECT = object()

def k(x):
    y = 1
    {stmt}
    return y
""",
    )
    with pytest.raises(SyntaxError) as info:
        compile_kernel(m.k, {})
    e = info.value
    assert isinstance(e, DeviceSyntaxError)
    assert e.filename.endswith("kernels.py")
    assert e.lineno == 6
    assert str(e).startswith("kernels.py, line 6: ")
    assert message in str(e)


def test_errors_in_helper_functions_name_their_own_file_and_line(tmp_path):
    helpers = load(
        tmp_path,
        """
        def helper(v):
            out = {}
            return out
        """,
        filename="helpers.py",
    )
    m = load(
        tmp_path,
        """
        def k(x):
            return helper(x)
        """,
    )
    m.helper = helpers.helper
    with pytest.raises(SyntaxError) as info:
        compile_kernel(m.k, {})
    assert str(info.value) == "helpers.py, line 2: dict displays are not supported on the device"
    assert info.value.filename.endswith("helpers.py")


CONSTANTS = [
    ("2147483648", "integer constant 2147483648 does not fit in 32 bits"),
    ("-2147483649", "integer constant -2147483649 does not fit in 32 bits"),
    ("1e39", "float constant 1e+39 is out of single-precision range"),
    ("BIG", "integer constant 4294967296 does not fit in 32 bits"),
    ("[1, BIG]", "integer constant 4294967296 does not fit in 32 bits"),
]


@pytest.mark.parametrize("expr, message", CONSTANTS)
def test_constants_out_of_range(tmp_path, expr, message):
    m = load(
        tmp_path,
        f"""
        BIG = 2 ** 32

        def k():
            return {expr}
        """,
    )
    with pytest.raises(SyntaxError) as info:
        compile_kernel(m.k, {})
    assert info.value.lineno == 4
    assert message in str(info.value)


def test_extreme_int_constants_fit(tmp_path):
    m = load(
        tmp_path,
        """
        def k():
            return 2147483647 + -2147483648
        """,
    )
    code = compile_kernel(m.k, {})
    assert code.consts == [2147483647, -2147483648]


# ---------------------------------------------------------------- names


def test_device_global_is_assigned_without_a_global_statement(tmp_path):
    m = load(
        tmp_path,
        """
        a = 0
        b = 5

        def k(x):
            a = 19
            a += x
            return a + b
        """,
    )
    code = compile_kernel(m.k, {"a": 3, "b": 7})
    assert code.globals_used == {"a": 3, "b": 7}
    assert listing(code) == golden(
        """
        function 0 k (1 params, 3 regs) kernels.py
           0  LOADI     R1, 19
           1  SETGLOBAL R1, G3             ; a
           2  GETGLOBAL R1, G3             ; a
           3  ADD       R1, R1, R0
           4  SETGLOBAL R1, G3             ; a
           5  GETGLOBAL R1, G3             ; a
           6  GETGLOBAL R2, G7             ; b
           7  ADD       R1, R1, R2
           8  RET       R1
        """
    )


def test_global_statement_accepted_for_device_globals_only(tmp_path):
    m = load(
        tmp_path,
        """
        counter = 0

        def k():
            global counter
            counter = counter + 1
            return counter
        """,
    )
    code = compile_kernel(m.k, {"counter": 0})
    assert code.globals_used == {"counter": 0}
    assert ops(code) == ["GETGLOBAL", "ADDI", "SETGLOBAL", "GETGLOBAL", "RET"]
    with pytest.raises(SyntaxError) as info:
        compile_kernel(m.k, {})
    assert "'counter' is not a device global" in str(info.value)
    assert info.value.lineno == 5


def test_parameter_named_like_a_device_global_is_local(tmp_path):
    m = load(
        tmp_path,
        """
        def k(a):
            a = a + 1
            return a
        """,
    )
    code = compile_kernel(m.k, {"a": 0})
    assert code.globals_used == {}
    assert ops(code) == ["ADDI", "RET"]


def test_unassigned_host_globals_are_captured_as_constants(tmp_path):
    m = load(
        tmp_path,
        """
        N = 40000
        SCALE = 0.5
        NAME = "core"
        FLAG = True
        NOTHING = None
        TABLE = [1, 2.5, "x", [None, False]]

        def k():
            return [N, SCALE, NAME, FLAG, NOTHING, TABLE]
        """,
    )
    code = compile_kernel(m.k, {})
    assert code.globals_used == {}
    body = listing(code)
    assert "LOADK     R1, K0             ; 40000" in body
    assert "LOADK     R2, K1             ; 0.5" in body
    assert "LOADK     R3, K2             ; 'core'" in body
    assert "LOADBOOL  R4, True" in body
    assert "LOADNONE  R5" in body
    assert ops(code).count("NEWLIST") == 3  # TABLE, its inner list, the result


def test_assigning_a_free_name_without_global_makes_it_local(tmp_path):
    m = load(
        tmp_path,
        """
        N = 10

        def k():
            N = 3
            return N
        """,
    )
    code = compile_kernel(m.k, {})
    assert ops(code) == ["LOADI", "RET"]
    assert code.functions[0].nregs == 1


def test_helper_functions_are_compiled_in_transitively(tmp_path):
    m = load(
        tmp_path,
        """
        def leaf(x):
            return x * 2

        def middle(x, y=4):
            return leaf(x) + leaf(y)

        def k(n):
            return middle(n) + middle(n, y=n) + leaf(1)
        """,
    )
    code = compile_kernel(m.k, {})
    assert [f.name for f in code.functions] == ["k", "middle", "leaf"]
    assert code.nfuncs == 3
    calls = [(name, w >> 24) for name, w in zip(ops(code), code.functions[0].words)]
    assert [c for n, c in calls if n == "CALL"] == [1, 1, 2]


def test_recursion_and_mutual_recursion(tmp_path):
    m = load(
        tmp_path,
        """
        def is_even(n):
            if n == 0:
                return True
            return is_odd(n - 1)

        def is_odd(n):
            if n == 0:
                return False
            return is_even(n - 1)

        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)

        def k(n):
            return fact(n) if is_even(n) else 0
        """,
    )
    code = compile_kernel(m.k, {})
    assert [f.name for f in code.functions] == ["k", "is_even", "fact", "is_odd"]
    assert "CALL      R1, 1, F2          ; fact" in listing(code)


def test_a_kernel_calling_itself_while_being_decorated(tmp_path):
    m = load(
        tmp_path,
        """
        from epython.compiler import compile_kernel

        CODE = []

        def compiled(fn):
            CODE.append(compile_kernel(fn, {}))
            return fn

        @compiled
        def fib(n):
            if n < 2:
                return n
            return fib(n - 1) + fib(n - 2)
        """,
    )
    (code,) = m.CODE
    assert code.nfuncs == 1
    assert ops(code).count("CALL") == 2


def test_nested_defs_defaults_and_closures(tmp_path):
    m = load(
        tmp_path,
        """
        def k(n):
            def sq(v, extra=1):
                return v * v + extra
            def unused():
                return {}
            return sq(n) + sq(n, 0)

        def bad(n):
            def inner():
                return n
            return inner()
        """,
    )
    code = compile_kernel(m.k, {})
    assert [f.name for f in code.functions] == ["k", "sq"]
    assert code.functions[1].nparams == 2
    with pytest.raises(SyntaxError) as info:
        compile_kernel(m.bad, {})
    assert "'n' is a local variable of bad()" in str(info.value)
    assert info.value.lineno == 10


def test_module_spellings(tmp_path):
    m = load(
        tmp_path,
        """
        import math
        import math as mm
        import random
        from math import sqrt as root
        from random import randint

        def k(x):
            import parallel
            from parallel import coreid
            from epython import parallel as par
            import epython.parallel as ep
            a = math.sqrt(x) + mm.floor(x) + root(x) + math.pi + mm.e
            b = random.random() + randint(1, 6)
            c = parallel.numcores() + coreid() + par.coreid() + ep.numcores()
            parallel.sync()
            return a + b + c
        """,
    )
    code = compile_kernel(m.k, {})
    body = listing(code)
    for name in (
        "math.sqrt",
        "math.floor",
        "random.random",
        "random.randint",
        "parallel.numcores",
        "parallel.coreid",
        "parallel.sync",
    ):
        assert f", {name}" in body
    assert body.count("math.sqrt") == 2
    assert ops(code).count("CALL") == 0


def test_size_is_len_and_builtins_shadowed_by_locals(tmp_path):
    m = load(
        tmp_path,
        """
        def k(xs):
            n = size(xs)
            max = 3
            return n + max
        """,
    )
    code = compile_kernel(m.k, {})
    assert "CALLB     R1, 1, len" in listing(code)
    assert "max" not in listing(code)


def test_functions_and_modules_are_not_values(tmp_path):
    m = load(
        tmp_path,
        """
        import math

        def helper():
            return 1

        def k():
            f = helper
            return f

        def k2():
            return math
        """,
    )
    with pytest.raises(SyntaxError, match="'helper' \\(a function\\) cannot be used as a value"):
        compile_kernel(m.k, {})
    with pytest.raises(SyntaxError, match="'math' \\(a module\\) cannot be used as a value"):
        compile_kernel(m.k2, {})


def test_docstrings_are_ignored(tmp_path):
    m = load(
        tmp_path,
        '''
        def k():
            """A docstring."""
            return None
        ''',
    )
    code = compile_kernel(m.k, {})
    assert ops(code) == ["RETNONE"]
    assert code.consts == []


def test_if_else_after_a_nested_break_still_jumps_over_the_else(tmp_path):
    m = load(
        tmp_path,
        """
        def k(n):
            r = 0
            while n > 0:
                if n > 5:
                    if n == 9:
                        break
                else:
                    r += 1
                n -= 1
            return r
        """,
    )
    code = compile_kernel(m.k, {})
    assert listing(code) == golden(
        """
        function 0 k (1 params, 5 regs) kernels.py
           0  LOADI     R1, 0
           1  LOADI     R2, 0
           2  LOADI     R3, 5
           3  LOADI     R4, 9
           4  JMP       -> 13
           5  JNLT      R3, R0, -> 11
           7  JNE       R0, R4, -> 12
           9  JMP       -> 15
          10  JMP       -> 12
          11  ADDI      R1, R1, 1
          12  ADDI      R0, R0, -1
          13  JLT       R2, R0, -> 5
          15  RET       R1
        """
    )


def test_negative_immediates_are_encoded_in_their_fields(tmp_path):
    m = load(
        tmp_path,
        """
        def k(x):
            if x:
                pass
            return [x - 128, -300]
        """,
    )
    code = compile_kernel(m.k, {})
    words = code.functions[0].words
    # The empty if body leaves no jump; the test is gone with it.
    assert ops(code) == ["ADDI", "LOADI", "NEWLIST", "RET"]
    assert words[0] == _isa.ADDI | 2 << 8 | 0 << 16 | 0x80 << 24
    assert words[1] == _isa.LOADI | 3 << 8 | (-300 & 0xFFFF) << 16


def test_a_large_constant_on_the_left_of_a_sum_is_loaded(tmp_path):
    # A left operand that does not fit ADDI once vanished: `40000 + n`
    # compiled to ADD R1, R0, R0 (n + n).
    m = load(
        tmp_path,
        """
        BIG = 40000
        def named(n):
            return BIG + n
        def literal(n):
            return 40000 + n
        def small(n):
            return 3 + n
        """,
    )
    for fn in (m.named, m.literal):
        text = compile_kernel(fn, {}).disassemble()
        assert "LOADK     R1, K0             ; 40000" in text
        assert "ADD       R1, R1, R0" in text
    assert "ADDI      R1, R0, 3" in compile_kernel(m.small, {}).disassemble()


def test_the_generated_opcode_files_are_current():
    # isa.txt is the one source: gen.py --check fails if opcodes.h or
    # _isa.py differs from what it would write now.
    import subprocess
    import sys
    from pathlib import Path

    gen = Path(__file__).resolve().parents[2] / "firmware" / "epython" / "gen.py"
    done = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
