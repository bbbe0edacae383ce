"""Hand-assembled kernel modules (PROTOCOL.md section 6) for testing the
runtime without the compiler: the same interface as the compiler's
KernelCode (name, filename, params, defaults, size, globals_used, entry,
image(base), where(func, word)), built from _isa's opcode numbers."""

import struct

from epython import _isa


def op(name, a=0, b=0, c=0):
    """An ABC-style word (also A, AB and the '-' format)."""
    return _isa.OPCODES[name][0] | (a & 0xFF) << 8 | (b & 0xFF) << 16 | (c & 0xFF) << 24


def op_bx(name, a, bx):
    """ABx (unsigned) or AsBx (signed) word."""
    return _isa.OPCODES[name][0] | (a & 0xFF) << 8 | (bx & 0xFFFF) << 16


def op_j(name, sj):
    return _isa.OPCODES[name][0] | (sj & 0xFFFFFF) << 8


def builtin(name):
    return _isa.BUILTINS[name][0]


class Func:
    def __init__(self, name, nparams, nregs, code, first_line=1):
        self.name = name
        self.nparams = nparams
        self.nregs = nregs
        self.code = list(code)
        self.first_line = first_line


class HandModule:
    """A module of hand-written functions; function 0 is the kernel."""

    def __init__(self, name, funcs, consts=(), filename="handmade.py"):
        self.name = name
        self.filename = filename
        self.funcs = list(funcs)
        self.consts = list(consts)
        self.params = [f"p{i}" for i in range(self.funcs[0].nparams)]
        self.defaults = {}
        self.globals_used = []
        self.entry = 0
        self.size = len(self.image(0x6000))

    def image(self, base):
        nf, nk = len(self.funcs), len(self.consts)
        funcs_at = 24
        consts_at = funcs_at + 8 * nf
        code_at = consts_at + 8 * nk
        code_addr = []
        at = code_at
        for f in self.funcs:
            code_addr.append(at)
            at += 4 * len(f.code)
        at = (at + 7) & ~7
        strings = bytearray()
        const_words = []
        for k in self.consts:
            if isinstance(k, str):
                data = k.encode()
                const_words.append((4, base + at + len(strings)))
                strings += struct.pack("<I", len(data)) + data
                strings += bytes(-len(strings) % 8)
            elif isinstance(k, bool):
                const_words.append((2, int(k)))
            elif isinstance(k, int):
                const_words.append((0, k & 0xFFFFFFFF))
            elif isinstance(k, float):
                const_words.append((1, struct.unpack("<I", struct.pack("<f", k))[0]))
            elif k is None:
                const_words.append((3, 0))
            else:
                raise TypeError(k)
        size = at + len(strings)
        out = bytearray()
        out += struct.pack("<6I", 0x4D595045, nf, base + funcs_at, base + consts_at, nk, size)
        for f, addr in zip(self.funcs, code_addr):
            out += struct.pack("<IHH", base + addr, f.nparams, f.nregs)
        for tag, payload in const_words:
            out += struct.pack("<II", tag, payload)
        for f in self.funcs:
            out += struct.pack(f"<{len(f.code)}I", *f.code)
        out += bytes(at - len(out))
        out += strings
        return bytes(out)

    def where(self, func, word):
        f = self.funcs[func]
        return (self.filename, f.first_line + word, f.name)


# ---------------------------------------------------------------- kernels


def add_module():
    """add(a, b): return a + b"""
    return HandModule("add", [Func("add", 2, 3, [op("ADD", 2, 0, 1), op("RET", 2)])])


def hello_module():
    """hello(a, b): print("Hello World"); return a + b"""
    return HandModule(
        "hello",
        [
            Func(
                "hello",
                2,
                3,
                [op_bx("LOADK", 2, 0), op("PRINT", 2, 1), op("ADD", 2, 0, 1), op("RET", 2)],
            )
        ],
        consts=["Hello World"],
    )


def echo_module():
    """echo(x): return x"""
    return HandModule("echo", [Func("echo", 1, 1, [op("RET", 0)])])


def coreid_module():
    """coreid(): return parallel.coreid()"""
    return HandModule(
        "coreid",
        [Func("coreid", 0, 1, [op("CALLB", 0, 0, builtin("parallel.coreid")), op("RET", 0)])],
    )


def div_module():
    """div(a, b): return a // b   (line 10 of kernels.py)"""
    return HandModule(
        "div",
        [Func("div", 2, 3, [op("FLOORDIV", 2, 0, 1), op("RET", 2)], first_line=10)],
        filename="kernels.py",
    )


def spin_module():
    """spin(): while True: pass"""
    return HandModule("spin", [Func("spin", 0, 1, [op_j("JMP", -1)])])


def getglobal_module(gid):
    """get(): return G[gid]"""
    return HandModule("get", [Func("get", 0, 1, [op_bx("GETGLOBAL", 0, gid), op("RET", 0)])])


def setitem_global_module(gid):
    """put(i, v): G[gid][i] = v"""
    return HandModule(
        "put",
        [
            Func(
                "put",
                2,
                3,
                [op_bx("GETGLOBAL", 2, gid), op("SETITEM", 2, 0, 1), op("RETNONE")],
            )
        ],
    )


def printmany_module():
    """printmany(n): for i in range(n): print(i)"""
    return HandModule(
        "printmany",
        [
            Func(
                "printmany",
                1,
                5,
                [
                    op_bx("LOADI", 1, 0),
                    op("MOVE", 2, 0),
                    op_bx("LOADI", 3, 1),
                    op_bx("FORPREP", 1, 2),
                    op("PRINT", 4, 1),
                    op_bx("FORLOOP", 1, -2),
                    op("RETNONE"),
                ],
            )
        ],
    )
