"""The kernel compiler: a Python function -> one module of epython bytecode.

Owns: which Python the device runs (anything else is a SyntaxError naming
file, line and construct), how names resolve (parameters and assigned
names are frame registers; device globals are GETGLOBAL/SETGLOBAL, also
when assigned without `global`; other free names are read from the
function's module at compile time), the register allocation (locals in
the first registers, parameters first, temporaries above, calls at the
top), the code shapes (loop tests at the bottom with the fused
compare-jumps, INCJLT/INCJLE for a while loop that ends in `i += k`,
FORPREP/FORLOOP for range, ADDI and LOADI), and the module image of
PROTOCOL.md section 6.
"""

import ast
import builtins
import inspect
import math
import os
import random
import struct
import textwrap
import types

from . import _isa
from . import disasm as _disasm

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
MODULE_MAGIC = 0x4D595045  # "EPYM"
HEADER_SIZE = 24
MAX_REGS = 256

TAG_INT, TAG_FLOAT, TAG_BOOL, TAG_NONE, TAG_STR = 0, 1, 2, 3, 4

# Device modules, by the names a kernel may import them under.
_MODULE_NAMES = {
    "math": "math",
    "random": "random",
    "parallel": "parallel",
    "epython.parallel": "parallel",
}
_MODULE_CONSTS = {"math": {"pi": math.pi, "e": math.e}}

# Builtins callable by plain name (the dotted ones are module functions).
_PLAIN_BUILTINS = {n for n in _isa.BUILTINS if "." not in n and n != "append"}


class DeviceSyntaxError(SyntaxError):
    """A construct, name or constant the device cannot run.

    str() is "file.py, line N: what was wrong"; `filename` and `lineno`
    are set as on any SyntaxError.
    """

    def __init__(self, filename, lineno, message, text=None):
        super().__init__(message, (filename, lineno, None, text))
        self.message = message
        # The free name that was not found (a module global defined later, perhaps), or None.
        self.undefined_name = None

    def __str__(self):
        name = os.path.basename(self.filename or "<unknown>")
        return f"{name}, line {self.lineno}: {self.message}"


def _f32(value):
    """The float rounded to single precision, and its bits."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return struct.unpack("<f", struct.pack("<I", bits))[0], bits


def _align8(n):
    return (n + 7) & ~7


# ---------------------------------------------------------------------------
# What the compiler knows about host objects


def _host_builtin_table():
    """id(host object) -> builtin name, for functions found in a module's globals."""
    table = {}
    for name in _PLAIN_BUILTINS:
        obj = getattr(builtins, name, None)
        if obj is not None:
            table[id(obj)] = name
    table[id(builtins.print)] = "print"
    for full in _isa.BUILTINS:
        mod, _, short = full.partition(".")
        if mod == "math":
            table[id(getattr(math, short))] = full
        elif mod == "random":
            table[id(getattr(random, short))] = full
    return table


_HOST_BUILTINS = _host_builtin_table()


class _Sym:
    """What a name means at compile time."""

    __slots__ = ("kind", "value")

    def __init__(self, kind, value=None):
        # kind: reg, global, const, func, nested, builtin, module, closure
        self.kind = kind
        self.value = value


def _module_member(modname, attr):
    """The symbol of `module.attr` (a builtin or a constant), or None."""
    if modname == "epython":
        return _Sym("module", "parallel") if attr == "parallel" else None
    full = modname + "." + attr
    if full in _isa.BUILTINS:
        return _Sym("builtin", full)
    consts = _MODULE_CONSTS.get(modname, {})
    if attr in consts:
        return _Sym("const", consts[attr])
    return None


def _is_const_value(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, list):
        return all(_is_const_value(v) for v in value)
    return False


# ---------------------------------------------------------------------------
# Functions and the module


class _Func:
    """One function of the module: where it comes from and, once compiled, its code."""

    def __init__(self, index, name, node, filename, host_globals, parent_scope, defaults, pyfunc):
        self.index = index
        self.name = name
        self.node = node
        self.filename = filename
        self.host_globals = host_globals
        self.parent_scope = parent_scope
        self.defaults = defaults
        self.pyfunc = pyfunc
        self.params = tuple(a.arg for a in node.args.args)
        self.words = []
        self.lines = []
        self.nregs = 0


def _parse_function(fn):
    """(FunctionDef node with real line numbers, filename) of a Python function."""
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise DeviceSyntaxError(
            filename,
            fn.__code__.co_firstlineno,
            f"the source of {fn.__name__}() cannot be found ({e})",
        ) from None
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise DeviceSyntaxError(
            filename, (e.lineno or 1) + start - 1, f"cannot parse: {e.msg}"
        ) from None
    ast.increment_lineno(tree, start - 1)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef):
        kind = "lambdas" if "lambda" in source.split(":")[0] else "this kind of callable"
        if isinstance(node, ast.AsyncFunctionDef):
            kind = "async functions"
        raise DeviceSyntaxError(filename, start, f"{kind} cannot be compiled for the device")
    node.decorator_list = []
    return node, filename


class _ModuleBuilder:
    def __init__(self, device_globals):
        self.device_globals = dict(device_globals)
        self.globals_used = {}
        self.funcs = []
        self.by_key = {}
        self.consts = []
        self.const_index = {}
        self.pending = []

    def const(self, value):
        """Index of a constant (int, float or str) in the constant table."""
        if isinstance(value, float):
            value, bits = _f32(value)
            key = ("f", bits)
        elif isinstance(value, str):
            key = ("s", value)
        else:
            key = ("i", value)
        if key not in self.const_index:
            self.const_index[key] = len(self.consts)
            self.consts.append(value)
        return self.const_index[key]

    def add_pyfunc(self, fn, node=None, filename=None):
        key = ("py", id(fn))
        if key in self.by_key:
            return self.by_key[key]
        if node is None:
            node, filename = _parse_function(fn)
        defaults = tuple(fn.__defaults__ or ())
        info = _Func(
            len(self.funcs), fn.__name__, node, filename, fn.__globals__, None, defaults, fn
        )
        self._check_signature(info)
        for d in defaults:
            if not _is_const_value(d):
                raise DeviceSyntaxError(
                    filename,
                    node.lineno,
                    f"default value of {fn.__name__}() is a {type(d).__name__}; only ints, floats, "
                    "bools, None, "
                    "strings and lists of them can be defaults on the device",
                )
        self.by_key[key] = info
        self.funcs.append(info)
        self.pending.append(info)
        return info

    def add_nested(self, node, parent_scope, filename, host_globals):
        key = ("ast", id(node))
        if key in self.by_key:
            return self.by_key[key]
        defaults = []
        for d in node.args.defaults:
            try:
                defaults.append(ast.literal_eval(d))
            except ValueError:
                raise DeviceSyntaxError(
                    filename,
                    d.lineno,
                    "default values of nested functions must be literal constants",
                ) from None
        info = _Func(
            len(self.funcs),
            node.name,
            node,
            filename,
            host_globals,
            parent_scope,
            tuple(defaults),
            None,
        )
        self._check_signature(info)
        self.by_key[key] = info
        self.funcs.append(info)
        self.pending.append(info)
        return info

    @staticmethod
    def _check_signature(info):
        a = info.node.args
        what = None
        if a.vararg:
            what = f"*{a.vararg.arg} parameters"
        elif a.kwarg:
            what = f"**{a.kwarg.arg} parameters"
        elif a.kwonlyargs:
            what = "keyword-only parameters"
        elif getattr(a, "posonlyargs", None):
            what = "positional-only parameters"
        if what:
            raise DeviceSyntaxError(
                info.filename, info.node.lineno, f"{what} are not supported on the device"
            )
        if len(info.params) > 255:
            raise DeviceSyntaxError(info.filename, info.node.lineno, "too many parameters")

    def compile_all(self):
        while self.pending:
            info = self.pending.pop(0)
            _FunctionCompiler(self, info).compile()


# ---------------------------------------------------------------------------
# Per-function scope analysis


def _walk_local(node):
    """Every node under `node` in source order; nested functions are yielded, not entered."""
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield child
            continue
        yield from _walk_local(child)


def _walk_body(stmts):
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield s
            continue
        yield from _walk_local(s)


class _Scope:
    """Names of one function: registers, compile-time symbols, enclosing scope."""

    def __init__(self, func, builder):
        self.func = func
        self.builder = builder
        self.parent = func.parent_scope
        self.regs = {}  # local name -> register
        self.symbols = {}  # imports and nested defs
        self.globals_declared = set()
        self.loop_home = set()  # loop variables that need a home register
        self.for_moves = {}  # id(For node) -> whether the loop copies its variable home
        self._analyse()

    def _err(self, node, msg):
        raise DeviceSyntaxError(self.func.filename, getattr(node, "lineno", None), msg)

    def _analyse(self):
        func = self.func
        body = func.node.body
        dg = self.builder.device_globals
        order = list(func.params)
        assigned = []
        for_targets = {}  # name -> list of For nodes
        names = {}  # name -> list of Name nodes
        for n in _walk_body(body):
            if isinstance(n, ast.Global):
                self.globals_declared.update(n.names)
            elif isinstance(n, ast.Nonlocal):
                self._err(n, "nonlocal statements are not supported on the device")
            elif isinstance(n, ast.Name):
                names.setdefault(n.id, []).append(n)
                if isinstance(n.ctx, ast.Store):
                    assigned.append(n.id)
            elif isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name):
                for_targets.setdefault(n.target.id, []).append(n)
            elif isinstance(n, ast.FunctionDef):
                self._bind_symbol(n, n.name, _Sym("nested", n))
            elif isinstance(n, ast.Import):
                for alias in n.names:
                    self._import(n, alias)
            elif isinstance(n, ast.ImportFrom):
                self._import_from(n)
        # Loop variables: which uses lie outside every loop that binds them.
        inside_of = {}
        for name, fors in for_targets.items():
            all_ids = {id(x) for x in names.get(name, ())}
            covered = set()
            for f in fors:
                inside = {
                    id(x)
                    for part in [f.target] + f.body
                    for x in _walk_local(part)
                    if isinstance(x, ast.Name) and x.id == name
                }
                inside_of[id(f)] = (name, inside, all_ids)
                covered |= inside
            if all_ids - covered:
                self.loop_home.add(name)
        for name in self.symbols:
            if name in assigned or name in func.params:
                self._err(
                    func.node,
                    f"'{name}' is both a variable and an import or a nested function",
                )
        locals_ = []
        for name in order + assigned:
            if name in locals_ or name in self.symbols:
                continue
            if name not in func.params:
                if name in self.globals_declared or name in dg:
                    continue
                if name in for_targets and name not in self.loop_home:
                    continue  # only loops bind and read it: it lives in their registers
            locals_.append(name)
        for name in self.globals_declared:
            if name in func.params:
                self._err(func.node, f"name '{name}' is parameter and global")
        if len(locals_) > MAX_REGS - 8:
            self._err(func.node, f"too many local variables ({len(locals_)})")
        self.regs = {name: i for i, name in enumerate(locals_)}
        self.bound = set(func.params) | set(assigned)
        for fid, (name, inside, all_ids) in inside_of.items():
            self.for_moves[fid] = name in self.regs and bool(all_ids - inside)

    def _bind_symbol(self, node, name, sym):
        if name in self.symbols and self.symbols[name].kind != sym.kind:
            self._err(node, f"'{name}' is bound twice in different ways")
        self.symbols[name] = sym

    def _import(self, node, alias):
        mod = alias.name
        if mod == "epython" or mod.startswith("epython.") and mod != "epython.parallel":
            if alias.asname:
                self._err(node, f"module '{mod}' is not available on the device")
            self._bind_symbol(node, "epython", _Sym("module", "epython"))
            return
        if mod not in _MODULE_NAMES:
            self._err(node, f"module '{mod}' is not available on the device")
        if alias.asname:
            self._bind_symbol(node, alias.asname, _Sym("module", _MODULE_NAMES[mod]))
        elif "." in mod:
            self._bind_symbol(node, "epython", _Sym("module", "epython"))
        else:
            self._bind_symbol(node, mod, _Sym("module", _MODULE_NAMES[mod]))

    def _import_from(self, node):
        mod = node.module or ""
        if node.level:
            self._err(node, "relative imports are not supported on the device")
        if mod == "epython":
            canon = "epython"
        elif mod in _MODULE_NAMES:
            canon = _MODULE_NAMES[mod]
        else:
            self._err(node, f"module '{mod}' is not available on the device")
        for alias in node.names:
            if alias.name == "*":
                self._err(node, f"'from {mod} import *' is not supported on the device")
            sym = _module_member(canon, alias.name)
            if sym is None:
                self._err(node, f"{mod}.{alias.name} is not available on the device")
            self._bind_symbol(node, alias.asname or alias.name, sym)

    def lookup_symbol(self, name):
        """A compile-time symbol for a name that is not a register of this function."""
        if name in self.symbols:
            return self.symbols[name]
        dg = self.builder.device_globals
        if name in dg:
            return _Sym("global", dg[name])
        scope = self.parent
        while scope is not None:
            if name in scope.symbols:
                return scope.symbols[name]
            if name in scope.bound:
                return _Sym("closure", scope.func.name)
            scope = scope.parent
        return None


# ---------------------------------------------------------------------------
# Code generation for one function

_BINOPS = {
    ast.Add: "ADD",
    ast.Sub: "SUB",
    ast.Mult: "MUL",
    ast.Div: "TRUEDIV",
    ast.FloorDiv: "FLOORDIV",
    ast.Mod: "MOD",
    ast.Pow: "POW",
    ast.BitAnd: "BAND",
    ast.BitOr: "BOR",
    ast.BitXor: "BXOR",
    ast.LShift: "LSHIFT",
    ast.RShift: "RSHIFT",
}

# Comparison -> (value opcode, swap operands)
_CMP_VALUE = {
    ast.Lt: ("LT", False),
    ast.LtE: ("LE", False),
    ast.Gt: ("LT", True),
    ast.GtE: ("LE", True),
    ast.Eq: ("EQ", False),
    ast.NotEq: ("NE", False),
    ast.Is: ("IS", False),
    ast.IsNot: ("ISNOT", False),
}

# (comparison, jump when true?) -> (fused jump, swap operands)
_CMP_JUMP = {
    (ast.Lt, True): ("JLT", False),
    (ast.Lt, False): ("JNLT", False),
    (ast.LtE, True): ("JLE", False),
    (ast.LtE, False): ("JNLE", False),
    (ast.Gt, True): ("JLT", True),
    (ast.Gt, False): ("JNLT", True),
    (ast.GtE, True): ("JLE", True),
    (ast.GtE, False): ("JNLE", True),
    (ast.Eq, True): ("JEQ", False),
    (ast.Eq, False): ("JNE", False),
    (ast.NotEq, True): ("JNE", False),
    (ast.NotEq, False): ("JEQ", False),
}

_UNSUPPORTED = {
    "Dict": "dict displays",
    "Set": "set displays",
    "DictComp": "dict comprehensions",
    "SetComp": "set comprehensions",
    "ListComp": "list comprehensions",
    "GeneratorExp": "generator expressions",
    "Lambda": "lambdas",
    "NamedExpr": "assignment expressions (:=)",
    "Await": "await",
    "Yield": "yield",
    "YieldFrom": "yield from",
    "JoinedStr": "f-strings",
    "FormattedValue": "f-strings",
    "Starred": "starred expressions",
    "Slice": "slices",
    "Tuple": "tuple displays (except in a swap assignment a, b = b, a)",
    "ClassDef": "class definitions",
    "AsyncFunctionDef": "async functions",
    "AsyncFor": "async for loops",
    "AsyncWith": "async with statements",
    "With": "with statements",
    "Try": "try statements",
    "TryStar": "try statements",
    "Raise": "raise statements",
    "Assert": "assert statements",
    "Delete": "del statements",
    "Match": "match statements",
    "Nonlocal": "nonlocal statements",
    "MatMult": "the @ operator",
}


class _Insn:
    __slots__ = ("op", "a", "b", "c", "label", "line")

    def __init__(self, op, a, b, c, label, line):
        self.op = op
        self.a = a
        self.b = b
        self.c = c
        self.label = label
        self.line = line


class _FunctionCompiler:
    def __init__(self, builder, func):
        self.b = builder
        self.f = func
        self.scope = _Scope(func, builder)
        func.scope = self.scope
        self.nlocals = len(self.scope.regs)
        self.freereg = self.nlocals
        self.maxreg = max(self.nlocals, len(func.params))
        self.insns = []
        self.labels = []  # label -> instruction index
        self.aliases = []  # (name, register) of loop variables, innermost last
        self.loops = []  # (break label, continue label)
        self.kregs = {}  # hoisted constant key -> register
        self.line = func.node.lineno

    # -- errors and helpers -------------------------------------------------

    def err(self, node, msg, undefined=None):
        e = DeviceSyntaxError(self.f.filename, getattr(node, "lineno", self.line), msg)
        e.undefined_name = undefined
        raise e

    def unsupported(self, node, what=None):
        name = what or type(node).__name__
        text = _UNSUPPORTED.get(name, name)
        verb = "is" if name in ("Await", "Yield", "YieldFrom", "MatMult") else "are"
        self.err(node, f"{text} {verb} not supported on the device")

    def alloc(self, n=1):
        r = self.freereg
        self.freereg += n
        if self.freereg > MAX_REGS:
            self.err(None, f"expression too complex: more than {MAX_REGS} registers")
        return r

    def free_to(self, mark):
        self.freereg = mark

    def new_label(self):
        self.labels.append(None)
        return len(self.labels) - 1

    def place(self, label):
        self.labels[label] = len(self.insns)

    def emit(self, op, a=0, b=0, c=0, label=None):
        fmt = _isa.OPCODES[op][1]
        if not 0 <= a <= 255 or (
            fmt in ("AB", "ABC", "ABsC", "ABJ", "ABsCJ") and not 0 <= b <= 255
        ):
            self.err(None, f"internal: operand out of range in {op}")
        if fmt == "ABx" and not 0 <= b <= 0xFFFF:
            self.err(None, f"too many constants or globals (index {b})")
        self.insns.append(_Insn(op, a, b, c, label, self.line))
        self.maxreg = max(self.maxreg, self.frame_top(op, fmt, a, b, c))

    @staticmethod
    def frame_top(op, fmt, a, b, c):
        """One past the highest register an instruction reads or writes."""
        if fmt in ("-", "sJ"):
            return 0
        if op in ("CALL", "CALLB"):
            return a + max(b, 1)
        if op == "PRINT":
            return a + b
        if op in ("NEWLIST", "LISTEXT"):
            return max(a + 1, b + c)
        if op in ("FORPREP", "FORLOOP"):
            return a + 4
        if op == "FORLIST":
            return a + 3
        if op == "LOADBOOL" or fmt in ("A", "ABx", "AsBx"):
            return a + 1
        if fmt == "ABC":
            return max(a, b, c) + 1
        return max(a, b) + 1  # AB, ABsC, ABJ, ABsCJ

    def last_is_jump(self):
        """Whether control cannot reach the next instruction by falling through."""
        here = len(self.insns)
        return (
            bool(self.insns)
            and self.insns[-1].op in ("JMP", "RET", "RETNONE")
            and here not in self.labels
        )

    # -- the function -------------------------------------------------------

    def compile(self):
        body = self.f.node.body
        for stmt in body:
            self.stmt(stmt)
        if not self.last_is_jump() or self.insns[-1].op == "JMP":
            self.line = getattr(body[-1], "end_lineno", None) or body[-1].lineno
            self.emit("RETNONE")
        self.assemble()

    def jump_target(self, label):
        """The instruction a label leads to, through unconditional jumps (threading)."""
        at = self.labels[label]
        for _ in range(8):
            if at < len(self.insns) and self.insns[at].op == "JMP":
                at = self.labels[self.insns[at].label]
            else:
                break
        return at

    def drop_jumps_to_next(self):
        """Remove jumps that land on the instruction after them (an empty if body)."""
        i = 0
        while i < len(self.insns):
            ins = self.insns[i]
            if ins.op in ("JMP", "JT", "JF") and self.jump_target(ins.label) == i + 1:
                del self.insns[i]
                self.labels = [x - 1 if x is not None and x > i else x for x in self.labels]
                i = max(i - 1, 0)
            else:
                i += 1

    def assemble(self):
        self.drop_jumps_to_next()
        offsets = []
        pc = 0
        for ins in self.insns:
            offsets.append(pc)
            pc += 2 if _isa.OPCODES[ins.op][1] in ("ABJ", "ABsCJ") else 1
        offsets.append(pc)
        words = []
        lines = []
        for i, ins in enumerate(self.insns):
            op_num, fmt, _ = _isa.OPCODES[ins.op]
            after = offsets[i + 1]
            a, b, c = ins.a, ins.b, ins.c
            ext = None
            if ins.label is not None:
                target = offsets[self.jump_target(ins.label)]
                rel = target - after
                if fmt == "sJ":
                    if not -(2**23) <= rel < 2**23:
                        self.err(None, "function too long")
                    b = rel
                elif fmt == "AsBx":
                    if not -(2**15) <= rel < 2**15:
                        self.err(None, f"loop or branch body too long ({rel} words)")
                    b = rel
                else:
                    ext = rel & 0xFFFFFFFF
            word = op_num
            if fmt == "A":
                word |= a << 8
            elif fmt == "AB":
                word |= a << 8 | b << 16
            elif fmt == "ABC":
                word |= a << 8 | b << 16 | c << 24
            elif fmt == "ABx":
                word |= a << 8 | b << 16
            elif fmt == "AsBx":
                word |= a << 8 | (b & 0xFFFF) << 16
            elif fmt == "ABsC":
                word |= a << 8 | b << 16 | (c & 0xFF) << 24
            elif fmt == "sJ":
                word |= (b & 0xFFFFFF) << 8
            elif fmt == "ABJ":
                word |= a << 8 | b << 16
            elif fmt == "ABsCJ":
                word |= a << 8 | b << 16 | (c & 0xFF) << 24
            words.append(word)
            lines.append(ins.line)
            if fmt in ("ABJ", "ABsCJ"):
                words.append(ext if ext is not None else 0)
                lines.append(ins.line)
        self.f.words = words
        self.f.lines = lines
        self.f.nregs = max(self.maxreg, len(self.f.params), 1)

    # -- names --------------------------------------------------------------

    def resolve(self, name, node):
        for alias, reg in reversed(self.aliases):
            if alias == name:
                return _Sym("reg", reg)
        if name in self.scope.regs:
            return _Sym("reg", self.scope.regs[name])
        sym = self.scope.lookup_symbol(name)
        if sym is not None:
            if sym.kind == "global":
                self.b.globals_used[name] = sym.value
            elif sym.kind == "closure":
                self.err(
                    node,
                    f"'{name}' is a local variable of {sym.value}(); nested functions cannot use "
                    "their enclosing function's variables on the device",
                )
            return sym
        g = self.f.host_globals
        if name in g:
            return self.host_value(name, g[name], node)
        if hasattr(builtins, name):
            return self.host_value(name, getattr(builtins, name), node)
        if name == "size":
            return _Sym("builtin", "len")
        if name == self.f.name and self.f.pyfunc is not None:
            # A function calling itself before its module has bound its name
            # (a kernel compiled while @offload decorates it).
            return _Sym("func", self.f)
        self.err(node, f"name '{name}' is not defined", undefined=name)

    def host_value(self, name, value, node):
        if _is_const_value(value):
            self.check_const(value, node)
            return _Sym("const", value)
        if isinstance(value, types.ModuleType):
            modname = value.__name__
            if modname in _MODULE_NAMES:
                return _Sym("module", _MODULE_NAMES[modname])
            if modname == "epython":
                return _Sym("module", "epython")
            self.err(node, f"module '{modname}' is not available on the device")
        if id(value) in _HOST_BUILTINS:
            return _Sym("builtin", _HOST_BUILTINS[id(value)])
        fn = value
        seen = 0
        while not isinstance(fn, types.FunctionType) and hasattr(fn, "__wrapped__") and seen < 8:
            fn = fn.__wrapped__
            seen += 1
        if isinstance(fn, types.FunctionType):
            mod = getattr(fn, "__module__", "") or ""
            if mod in ("parallel", "epython.parallel") and "parallel." + fn.__name__ in (
                _isa.BUILTINS
            ):
                return _Sym("builtin", "parallel." + fn.__name__)
            if fn.__name__ == "size" and mod.startswith("epython"):
                return _Sym("builtin", "len")
            if fn.__name__ == "<lambda>":
                self.err(node, f"'{name}' is a lambda; lambdas are not supported on the device")
            return _Sym("func", self.b.add_pyfunc(fn))
        self.err(
            node,
            f"name '{name}' refers to a {type(value).__name__}, which cannot be used on the device",
        )

    def check_const(self, value, node):
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return
        if isinstance(value, int):
            if not INT_MIN <= value <= INT_MAX:
                self.err(node, f"integer constant {value} does not fit in 32 bits")
        elif isinstance(value, float):
            try:
                _f32(value)
            except OverflowError:
                self.err(node, f"float constant {value!r} is out of single-precision range")
        elif isinstance(value, list):
            for v in value:
                self.check_const(v, node)

    def const_of(self, node):
        """(True, value) when `node` is a compile-time constant, else (False, None)."""
        if isinstance(node, ast.Constant):
            v = node.value
            if not (v is None or isinstance(v, (bool, int, float, str))):
                if v is Ellipsis:
                    self.err(node, "... is not supported on the device")
                self.err(node, f"{type(v).__name__} constants are not supported on the device")
            return True, v
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, (ast.USub, ast.UAdd))
            and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, (int, float))
            and not isinstance(node.operand.value, bool)
        ):
            v = node.operand.value
            return True, (-v if isinstance(node.op, ast.USub) else v)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            sym = self.try_module(node.value)
            if sym is not None:
                member = _module_member(sym.value, node.attr)
                if member is not None and member.kind == "const":
                    return True, member.value
        if isinstance(node, ast.Name) and not self.is_register(node.id):
            sym = self.resolve(node.id, node)
            if sym.kind == "const" and not isinstance(sym.value, list):
                return True, sym.value
        return False, None

    def is_register(self, name):
        return name in self.scope.regs or any(a == name for a, _ in self.aliases)

    def try_module(self, node):
        """The module symbol a Name (or epython.parallel attribute) stands for, or None."""
        if isinstance(node, ast.Name):
            if self.is_register(node.id):
                return None
            sym = self.resolve(node.id, node)
            return sym if sym.kind == "module" else None
        if isinstance(node, ast.Attribute):
            base = self.try_module(node.value)
            if base is not None and base.value == "epython" and node.attr == "parallel":
                return _Sym("module", "parallel")
        return None

    # -- constants ----------------------------------------------------------

    def load_const(self, value, dest, node):
        self.check_const(value, node)
        if value is None:
            self.emit("LOADNONE", dest)
        elif isinstance(value, bool):
            self.emit("LOADBOOL", dest, int(value))
        elif isinstance(value, int):
            if -32768 <= value <= 32767:
                self.emit("LOADI", dest, value & 0xFFFF)
            else:
                self.emit("LOADK", dest, self.b.const(value))
        elif isinstance(value, (float, str)):
            self.emit("LOADK", dest, self.b.const(value))
        elif isinstance(value, list):
            mark = self.freereg
            base = self.alloc(len(value))
            for i, v in enumerate(value):
                self.load_const(v, base + i, node)
            self.emit("NEWLIST", dest, base, len(value))
            self.free_to(mark)

    @staticmethod
    def const_key(value):
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, int):
            return ("i", value)
        if isinstance(value, float):
            return ("f", _f32(value)[1])
        if isinstance(value, str):
            return ("s", value)
        return None

    # -- expressions --------------------------------------------------------

    def anyreg(self, node):
        """A register holding the value of `node` (a local's own register when it is one)."""
        if isinstance(node, _RegNode):
            return node.reg
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for alias, reg in reversed(self.aliases):
                if alias == node.id:
                    return reg
            if node.id in self.scope.regs:
                return self.scope.regs[node.id]
        if self.kregs:
            ok, value = self.const_of(node)
            if ok:
                key = self.const_key(value)
                if key in self.kregs:
                    return self.kregs[key]
        r = self.alloc()
        self.expr(node, r)
        return r

    def expr(self, node, dest):
        """Compute `node` into register `dest`."""
        saved = self.line
        if hasattr(node, "lineno"):
            self.line = node.lineno
        try:
            self._expr(node, dest)
        finally:
            self.line = saved

    def _expr(self, node, dest):
        ok, value = self.const_of(node)
        if ok:
            self.load_const(value, dest, node)
            return
        if isinstance(node, ast.Name):
            sym = self.resolve(node.id, node)
            if sym.kind == "reg":
                if sym.value != dest:
                    self.emit("MOVE", dest, sym.value)
            elif sym.kind == "global":
                self.emit("GETGLOBAL", dest, sym.value)
            elif sym.kind == "const":
                self.load_const(sym.value, dest, node)
            else:
                self.err(
                    node,
                    f"'{node.id}' (a {self.describe(sym)}) cannot be used as a value on the device",
                )
        elif isinstance(node, ast.BinOp):
            self.binop(node.op, node.left, node.right, dest, node)
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.UAdd):
                self.expr(node.operand, dest)
                return
            op = {ast.USub: "NEG", ast.Invert: "INVERT", ast.Not: "NOT"}[type(node.op)]
            mark = self.freereg
            r = self.anyreg(node.operand)
            self.emit(op, dest, r)
            self.free_to(mark)
        elif isinstance(node, ast.BoolOp):
            self.boolop_value(node, dest)
        elif isinstance(node, ast.Compare):
            self.compare_value(node, dest)
        elif isinstance(node, ast.IfExp):
            else_ = self.new_label()
            end = self.new_label()
            self.cond(node.test, False, else_)
            self.expr(node.body, dest)
            self.emit("JMP", label=end)
            self.place(else_)
            self.expr(node.orelse, dest)
            self.place(end)
        elif isinstance(node, ast.Call):
            self.call(node, dest)
        elif isinstance(node, ast.List):
            mark = self.freereg
            n = len(node.elts)
            if n > 255:
                self.err(node, "list display with more than 255 items")
            base = self.freereg if n else 0
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    self.unsupported(e)
                self.expr(e, self.alloc())
            self.emit("NEWLIST", dest, base, n)
            self.free_to(mark)
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Slice):
                self.err(node, "slices are not supported on the device")
            mark = self.freereg
            ro = self.anyreg(node.value)
            ri = self.anyreg(index)
            self.emit("GETITEM", dest, ro, ri)
            self.free_to(mark)
        elif isinstance(node, ast.Attribute):
            mod = self.try_module(node.value)
            if mod is not None:
                self.err(node, f"{mod.value}.{node.attr} is not available on the device")
            self.err(node, f"attribute access (.{node.attr}) is not supported on the device")
        else:
            self.unsupported(node)

    def describe(self, sym):
        return {
            "func": "function",
            "nested": "function",
            "builtin": "builtin function",
            "module": "module",
        }.get(sym.kind, sym.kind)

    def binop(self, op, left, right, dest, node):
        optype = type(op)
        if optype not in _BINOPS:
            self.unsupported(node, "MatMult" if optype is ast.MatMult else None)
        name = _BINOPS[optype]
        mark = self.freereg
        if name == "MUL" and (isinstance(left, ast.List) or isinstance(right, ast.List)):
            lst, n = (left, right) if isinstance(left, ast.List) else (right, left)
            rl = self.anyreg(lst)
            rn = self.anyreg(n)
            self.emit("LISTREP", dest, rl, rn)
            self.free_to(mark)
            return
        if name in ("ADD", "SUB"):
            ok, value = self.const_of(right)
            imm = None
            if ok and isinstance(value, int) and not isinstance(value, bool):
                imm = value if name == "ADD" else -value
            elif name == "ADD":
                ok, value = self.const_of(left)
                if ok and isinstance(value, int) and not isinstance(value, bool):
                    if -128 <= value <= 127:
                        imm = value
                        left = right
            if imm is not None and -128 <= imm <= 127:
                rl = self.anyreg_into(left, dest)
                self.emit("ADDI", dest, rl, imm & 0xFF)
                self.free_to(mark)
                return
        rl = self.anyreg_into(left, dest)
        rr = self.anyreg(right)
        self.emit(name, dest, rl, rr)
        self.free_to(mark)

    def anyreg_into(self, node, dest):
        """Like anyreg, but a fresh temporary `dest` (the top one) may hold the value."""
        if isinstance(node, _RegNode):
            return node.reg
        if dest >= self.nlocals and dest == self.freereg - 1 and not self.is_hoisted(dest):
            if isinstance(node, ast.Name) and self.is_register(node.id):
                return self.anyreg(node)
            self.expr(node, dest)
            return dest
        return self.anyreg(node)

    def is_hoisted(self, reg):
        return reg in self.kregs.values() or any(r == reg for _, r in self.aliases)

    def boolop_value(self, node, dest):
        target = dest
        if dest < self.nlocals or self.is_hoisted(dest):
            target = self.alloc()
        end = self.new_label()
        jump = "JF" if isinstance(node.op, ast.And) else "JT"
        for i, v in enumerate(node.values):
            self.expr(v, target)
            if i < len(node.values) - 1:
                self.emit(jump, target, label=end)
        self.place(end)
        if target != dest:
            self.emit("MOVE", dest, target)
            self.free_to(target)

    def compare_value(self, node, dest):
        for op in node.ops:
            if type(op) not in _CMP_VALUE:
                self.err(
                    node,
                    "the '%s' operator is not supported on the device"
                    % ("in" if isinstance(op, ast.In) else "not in"),
                )
        mark = self.freereg
        if len(node.ops) == 1:
            rl = self.anyreg(node.left)
            rr = self.anyreg(node.comparators[0])
            opname, swap = _CMP_VALUE[type(node.ops[0])]
            self.emit(opname, dest, *((rr, rl) if swap else (rl, rr)))
            self.free_to(mark)
            return
        target = dest
        if dest < self.nlocals or self.is_hoisted(dest):
            target = self.alloc()
        end = self.new_label()
        rl = self.anyreg(node.left)
        for i, (op, comp) in enumerate(zip(node.ops, node.comparators)):
            rr = self.anyreg(comp)
            opname, swap = _CMP_VALUE[type(op)]
            self.emit(opname, target, *((rr, rl) if swap else (rl, rr)))
            if i < len(node.ops) - 1:
                self.emit("JF", target, label=end)
            rl = rr
        self.place(end)
        if target != dest:
            self.emit("MOVE", dest, target)
        self.free_to(mark)

    # -- conditions ---------------------------------------------------------

    def cond(self, node, jump_if, label):
        """Jump to `label` when the truth of `node` equals `jump_if`; else fall through."""
        saved = self.line
        if hasattr(node, "lineno"):
            self.line = node.lineno
        try:
            self._cond(node, jump_if, label)
        finally:
            self.line = saved

    def _cond(self, node, jump_if, label):
        ok, value = self.const_of(node)
        if ok:
            if bool(value) == jump_if:
                self.emit("JMP", label=label)
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.cond(node.operand, not jump_if, label)
            return
        if isinstance(node, ast.BoolOp):
            is_and = isinstance(node.op, ast.And)
            if is_and != jump_if:
                # and/jump-if-false, or/jump-if-true: any operand decides.
                for v in node.values:
                    self.cond(v, jump_if, label)
            else:
                skip = self.new_label()
                for v in node.values[:-1]:
                    self.cond(v, not jump_if, skip)
                self.cond(node.values[-1], jump_if, label)
                self.place(skip)
            return
        if isinstance(node, ast.Compare) and all((type(o), True) in _CMP_JUMP for o in node.ops):
            mark = self.freereg
            skip = self.new_label() if jump_if and len(node.ops) > 1 else None
            rl = self.anyreg(node.left)
            n = len(node.ops)
            for i, (op, comp) in enumerate(zip(node.ops, node.comparators)):
                rr = self.anyreg(comp)
                last = i == n - 1
                if jump_if and not last:
                    opname, swap = _CMP_JUMP[(type(op), False)]
                    target = skip
                else:
                    opname, swap = _CMP_JUMP[(type(op), jump_if)]
                    target = label
                self.emit(opname, *((rr, rl) if swap else (rl, rr)), label=target)
                rl = rr
            if skip is not None:
                self.place(skip)
            self.free_to(mark)
            return
        mark = self.freereg
        r = self.anyreg(node)
        self.emit("JT" if jump_if else "JF", r, label=label)
        self.free_to(mark)

    # -- calls --------------------------------------------------------------

    def call(self, node, dest):
        """Compile a call; its result goes to `dest` (None: discarded)."""
        fn = node.func
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.err(a, "*arguments are not supported on the device")
        if isinstance(fn, ast.Attribute):
            mod = self.try_module(fn.value)
            if mod is not None:
                sym = _module_member(mod.value, fn.attr)
                if sym is None or sym.kind != "builtin":
                    self.err(fn, f"{mod.value}.{fn.attr}() is not available on the device")
                self.call_builtin(sym.value, node, list(node.args), dest)
                return
            if fn.attr == "append":
                self.no_keywords(node, "append")
                if len(node.args) != 1:
                    self.err(node, "append() takes exactly one argument")
                self.call_builtin("append", node, [fn.value] + list(node.args), dest)
                return
            self.err(node, f"method .{fn.attr}() is not supported on the device")
        if not isinstance(fn, ast.Name):
            self.err(node, "only calls of named functions are supported on the device")
        sym = self.resolve(fn.id, fn)
        if sym.kind == "builtin":
            if sym.value == "print":
                self.call_print(node, dest)
            else:
                self.call_builtin(sym.value, node, list(node.args), dest)
        elif sym.kind in ("func", "nested"):
            info = sym.value
            if sym.kind == "nested":
                info = self.b.add_nested(
                    sym.value, self.owner_scope(fn.id), self.f.filename, self.f.host_globals
                )
            self.call_function(info, node, dest)
        else:
            self.err(node, f"'{fn.id}' (a {self.describe(sym)}) is not callable on the device")

    def owner_scope(self, name):
        scope = self.scope
        while scope is not None and name not in scope.symbols:
            scope = scope.parent
        return scope

    def no_keywords(self, node, name):
        if node.keywords:
            self.err(node, f"{name}() takes no keyword arguments on the device")

    def call_print(self, node, dest):
        self.no_keywords(node, "print")
        n = len(node.args)
        if n > 255:
            self.err(node, "print() with more than 255 arguments")
        mark = self.freereg
        base = self.freereg
        for a in node.args:
            self.expr(a, self.alloc())
        self.emit("PRINT", base, n)
        self.free_to(mark)
        if dest is not None:
            self.emit("LOADNONE", dest)

    def call_builtin(self, name, node, args, dest):
        self.no_keywords(node, name)
        number, lo, hi, _ = _isa.BUILTINS[name]
        shown = name
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.err(node, f"{shown}() takes {want} arguments ({len(args)} given)")
        mark = self.freereg
        top = dest is not None and dest == self.freereg - 1 and dest >= self.nlocals
        if top and not self.is_hoisted(dest):
            # The destination is the top temporary: the arguments start there.
            base = dest
            self.freereg = dest
            for a in args:
                self.expr(a, self.alloc())
            if not args:
                self.alloc()
        elif dest is not None and len(args) <= 1 and dest < self.nlocals:
            # A builtin has no frame: a local destination can hold the argument.
            base = dest
            if args:
                self.expr(args[0], base)
        else:
            base = self.freereg
            for a in args:
                self.expr(a, self.alloc())
            if not args:
                self.alloc()
        self.emit("CALLB", base, len(args), number)
        if dest is not None and dest != base:
            self.emit("MOVE", dest, base)
        self.free_to(mark)

    def call_function(self, info, node, dest):
        params = info.params
        nparams = len(params)
        args = list(node.args)
        if len(args) > nparams:
            self.err(node, f"{info.name}() takes {nparams} arguments ({len(args)} given)")
        slots = args + [None] * (nparams - len(args))
        for kw in node.keywords:
            if kw.arg is None:
                self.err(node, "**arguments are not supported on the device")
            if kw.arg not in params:
                self.err(node, f"{info.name}() has no parameter '{kw.arg}'")
            i = params.index(kw.arg)
            if slots[i] is not None:
                self.err(node, f"{info.name}() got two values for '{kw.arg}'")
            slots[i] = kw.value
        first_default = nparams - len(info.defaults)
        mark = self.freereg
        base = self.freereg
        if (
            dest is not None
            and dest == self.freereg - 1
            and dest >= self.nlocals
            and not (self.is_hoisted(dest))
        ):
            base = dest
            self.freereg = dest
        for i, value in enumerate(slots):
            r = self.alloc()
            if value is None:
                if i < first_default:
                    self.err(node, f"{info.name}() missing argument '{params[i]}'")
                self.load_const(info.defaults[i - first_default], r, node)
            else:
                self.expr(value, r)
        if not slots:
            self.alloc()
        self.emit("CALL", base, nparams, info.index)
        if dest is not None and dest != base:
            self.emit("MOVE", dest, base)
        self.free_to(mark)

    # -- statements ---------------------------------------------------------

    def stmt(self, node):
        self.line = node.lineno
        mark = self.freereg
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            self.unsupported(node)
        method(node)
        self.free_to(mark)

    def stmt_Pass(self, node):
        pass

    def stmt_Global(self, node):
        for name in node.names:
            if name not in self.b.device_globals:
                # Reading a host global is fine (a constant); assigning is not.
                for n in _walk_body(self.f.node.body):
                    if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                        self.err(
                            n,
                            f"'{name}' is not a device global (make it one with define_on_device); "
                            "only device globals can be assigned on the device",
                        )

    def stmt_Import(self, node):
        pass  # bound at scope analysis

    stmt_ImportFrom = stmt_Import

    def stmt_FunctionDef(self, node):
        pass  # compiled when called

    def stmt_Expr(self, node):
        v = node.value
        if isinstance(v, ast.Constant):
            return  # docstrings and bare constants
        if isinstance(v, ast.Call):
            self.call(v, None)
            return
        self.anyreg(v)

    def stmt_Return(self, node):
        if node.value is None:
            self.emit("RETNONE")
            return
        ok, value = self.const_of(node.value)
        if ok and value is None:
            self.emit("RETNONE")
            return
        r = self.anyreg(node.value)
        self.emit("RET", r)

    def assign_to(self, target, value_reg=None, value_node=None):
        """Store into a target: from a register, or by compiling `value_node` into it."""
        if isinstance(target, ast.Name):
            sym = self.resolve_store(target)
            if sym.kind == "reg":
                if value_node is not None:
                    self.expr(value_node, sym.value)
                elif value_reg != sym.value:
                    self.emit("MOVE", sym.value, value_reg)
            else:
                if value_node is not None:
                    mark = self.freereg
                    value_reg = self.anyreg(value_node)
                    self.emit("SETGLOBAL", value_reg, sym.value)
                    self.free_to(mark)
                else:
                    self.emit("SETGLOBAL", value_reg, sym.value)
        elif isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.err(target, "slice assignment is not supported on the device")
            mark = self.freereg
            if value_node is not None:
                value_reg = self.anyreg(value_node)
            ro = self.anyreg(target.value)
            ri = self.anyreg(target.slice)
            self.emit("SETITEM", ro, ri, value_reg)
            self.free_to(mark)
        elif isinstance(target, ast.Attribute):
            self.err(target, "assignment to attributes is not supported on the device")
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.err(
                target,
                "unpacking assignment is supported only as a, b = b, a "
                "(tuple displays on both sides)",
            )
        else:
            self.unsupported(target)

    def resolve_store(self, target):
        name = target.id
        for alias, reg in reversed(self.aliases):
            if alias == name:
                return _Sym("reg", reg)
        if name in self.scope.regs:
            return _Sym("reg", self.scope.regs[name])
        dg = self.b.device_globals
        if name in dg:
            self.b.globals_used[name] = dg[name]
            return _Sym("global", dg[name])
        if name in self.scope.globals_declared:
            self.err(
                target,
                f"'{name}' is not a device global (make it one with define_on_device); "
                "only device globals can be assigned on the device",
            )
        self.err(target, f"internal: '{name}' has no register")

    def stmt_Assign(self, node):
        targets = node.targets
        value = node.value
        if any(isinstance(t, (ast.Tuple, ast.List)) for t in targets):
            self.swap_assign(node)
            return
        if len(targets) == 1:
            self.assign_to(targets[0], value_node=value)
            return
        mark = self.freereg
        r = self.anyreg(value)
        for t in targets:
            self.assign_to(t, value_reg=r)
        self.free_to(mark)

    def swap_assign(self, node):
        if len(node.targets) != 1:
            self.err(node, "chained unpacking assignment is not supported on the device")
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Tuple) or not isinstance(value, ast.Tuple):
            self.err(
                node,
                "unpacking assignment is supported only as a, b = b, a "
                "(tuple displays on both sides)",
            )
        if len(target.elts) != len(value.elts):
            self.err(node, "the two sides of the assignment have different lengths")
        mark = self.freereg
        regs = []
        for v in value.elts:
            if isinstance(v, ast.Starred):
                self.unsupported(v)
            r = self.alloc()
            self.expr(v, r)
            regs.append(r)
        for t, r in zip(target.elts, regs):
            if isinstance(t, ast.Starred):
                self.unsupported(t)
            self.assign_to(t, value_reg=r)
        self.free_to(mark)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign_to(node.target, value_node=node.value)

    def stmt_AugAssign(self, node):
        target = node.target
        if isinstance(target, ast.Name):
            sym = self.resolve_store(target)
            if sym.kind == "reg":
                self.binop(node.op, target_load(target), node.value, sym.value, node)
            else:
                mark = self.freereg
                t = self.alloc()
                self.binop(node.op, target_load(target), node.value, t, node)
                self.emit("SETGLOBAL", t, sym.value)
                self.free_to(mark)
        elif isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.err(target, "slice assignment is not supported on the device")
            mark = self.freereg
            ro = self.anyreg(target.value)
            ri = self.anyreg(target.slice)
            t = self.alloc()
            self.emit("GETITEM", t, ro, ri)
            self.binop(node.op, _RegNode(t), node.value, t, node)
            self.emit("SETITEM", ro, ri, t)
            self.free_to(mark)
        else:
            self.assign_to(target)

    def stmt_If(self, node):
        end = self.new_label()
        else_ = self.new_label() if node.orelse else end
        self.cond(node.test, False, else_)
        for s in node.body:
            self.stmt(s)
        if node.orelse:
            if not self.last_is_jump():
                self.line = node.lineno
                self.emit("JMP", label=end)
            self.place(else_)
            for s in node.orelse:
                self.stmt(s)
        self.place(end)

    def loop_body(self, body, brk, cont):
        self.loops.append((brk, cont))
        for s in body:
            self.stmt(s)
        self.loops.pop()

    def stmt_Break(self, node):
        if not self.loops:
            self.err(node, "'break' outside loop")
        self.emit("JMP", label=self.loops[-1][0])

    def stmt_Continue(self, node):
        if not self.loops:
            self.err(node, "'continue' not properly in loop")
        self.emit("JMP", label=self.loops[-1][1])

    def hoist_constants(self, nodes):
        """Load the constants a loop compares and computes with once, before it."""
        added = []
        budget = min(8, MAX_REGS - 32 - self.freereg)
        for root in nodes:
            for n in _walk_local(root):
                operands = []
                if isinstance(n, ast.Compare):
                    operands = [n.left] + list(n.comparators)
                elif isinstance(n, ast.BinOp):
                    operands = [n.left, n.right]
                    if isinstance(n.op, (ast.Add, ast.Sub)):
                        operands = [o for o in operands if not self.small_int(o)]
                elif isinstance(n, ast.AugAssign) and not isinstance(n.op, (ast.Add, ast.Sub)):
                    operands = [n.value]
                elif isinstance(n, ast.AugAssign) and not self.small_int(n.value):
                    operands = [n.value]
                for o in operands:
                    if not isinstance(o, (ast.Constant, ast.UnaryOp, ast.Attribute)):
                        continue
                    ok, value = self.const_of(o)
                    key = self.const_key(value) if ok else None
                    if key is None or key in self.kregs or len(added) >= budget:
                        continue
                    r = self.alloc()
                    self.load_const(value, r, o)
                    self.kregs[key] = r
                    added.append(key)
        return added

    def small_int(self, node):
        if not isinstance(node, (ast.Constant, ast.UnaryOp)):
            return False
        ok, value = self.const_of(node)
        return (
            ok and isinstance(value, int) and not isinstance(value, bool) and (-127 <= value <= 127)
        )

    def unhoist(self, added):
        for key in added:
            del self.kregs[key]

    def stmt_While(self, node):
        if node.orelse:
            self.err(node, "while/else is not supported on the device")
        mark = self.freereg
        added = self.hoist_constants([node.test] + node.body)
        fused = self.fused_increment(node)
        if fused is not None:
            # while i < n: ...; i += k  ->  the test once at the top, then
            # the increment and the test as one INCJLT/INCJLE at the bottom
            op, i, n, k, inc = fused
            top = self.new_label()
            end = self.new_label()
            self.cond(node.test, False, end)
            self.place(top)
            self.loop_body(node.body[:-1], end, None)
            self.line = inc.lineno
            self.emit(op, i, n, k & 0xFF, label=top)
            self.place(end)
            self.unhoist(added)
            self.free_to(mark)
            return
        ok, value = self.const_of(node.test)
        top = self.new_label()
        test = self.new_label()
        end = self.new_label()
        if not (ok and value):
            self.emit("JMP", label=test)
        self.place(top)
        self.loop_body(node.body, end, test)
        self.place(test)
        self.line = node.lineno
        self.cond(node.test, True, top)
        self.place(end)
        self.unhoist(added)
        self.free_to(mark)

    def fused_increment(self, node):
        """(op, i, n, k, increment) when a while loop is `while i < n: ...; i += k`.

        i is a register variable, n a register or hoisted constant (nothing to
        compute), k a small int, < or <= (or > and >= with n on the left);
        no `continue` (it would jump past the increment into the test).
        """
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and node.body):
            return None
        left, right, cmp = test.left, test.comparators[0], type(test.ops[0])
        if cmp in (ast.Gt, ast.GtE):
            left, right, cmp = right, left, ast.Lt if cmp is ast.Gt else ast.LtE
        if cmp not in (ast.Lt, ast.LtE) or not isinstance(left, ast.Name):
            return None
        inc = node.body[-1]
        if not (
            isinstance(inc, ast.AugAssign)
            and isinstance(inc.target, ast.Name)
            and inc.target.id == left.id
            and isinstance(inc.op, (ast.Add, ast.Sub))
            and self.small_int(inc.value)
            and self.is_register(left.id)
        ):
            return None
        k = self.const_of(inc.value)[1]
        k = -k if isinstance(inc.op, ast.Sub) else k
        i = self.resolve(left.id, left).value
        n = self.reg_without_code(right)
        if n is None or n == i or not -128 <= k <= 127 or self.has_continue(node.body):
            return None
        return ("INCJLT" if cmp is ast.Lt else "INCJLE", i, n, k, inc)

    def reg_without_code(self, node):
        """The register holding `node` when reading it needs no instruction, else None."""
        if isinstance(node, ast.Name) and self.is_register(node.id):
            return self.resolve(node.id, node).value
        if isinstance(node, (ast.Constant, ast.UnaryOp, ast.Attribute, ast.Name)):
            ok, value = self.const_of(node)
            key = self.const_key(value) if ok else None
            if key is not None and key in self.kregs:
                return self.kregs[key]
        return None

    @staticmethod
    def has_continue(stmts):
        """Whether a `continue` of this loop (not of a loop inside it) is among `stmts`."""
        todo = list(stmts)
        while todo:
            s = todo.pop()
            if isinstance(s, ast.Continue):
                return True
            if isinstance(s, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for field in ("body", "orelse"):
                todo.extend(getattr(s, field, ()) or ())
        return False

    def stmt_For(self, node):
        if node.orelse:
            self.err(node, "for/else is not supported on the device")
        if not isinstance(node.target, ast.Name):
            self.err(node, "for loops on the device take one variable (no unpacking)")
        name = node.target.id
        it = node.iter
        mark = self.freereg
        added = self.hoist_constants(node.body)
        is_range = (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and not self.is_register(it.func.id)
            and self.resolve(it.func.id, it.func).kind == "builtin"
            and self.resolve(it.func.id, it.func).value == "range"
        )
        home = self.resolve_loop_home(node)
        if is_range:
            self.no_keywords(it, "range")
            args = it.args
            if not 1 <= len(args) <= 3:
                self.err(it, f"range() takes 1 to 3 arguments ({len(args)} given)")
            a = self.alloc()
            if len(args) == 1:
                self.load_const(0, a, it)
                self.expr(args[0], self.alloc())
            else:
                self.expr(args[0], a)
                self.expr(args[1], self.alloc())
            step = self.alloc()
            if len(args) == 3:
                self.expr(args[2], step)
            else:
                self.load_const(1, step, it)
            var = self.alloc()
            self.line = node.lineno
            if home is not None and home[0] == "reg":
                self.emit("MOVE", var, home[1])
            body = self.new_label()
            cont = self.new_label()
            exit_ = self.new_label()
            self.emit("FORPREP", a, label=exit_)
            self.place(body)
            self.enter_loop_var(name, var, home)
            self.loop_body(node.body, exit_, cont)
            self.aliases.pop()
            self.place(cont)
            self.line = node.lineno
            self.emit("FORLOOP", a, label=body)
            self.place(exit_)
            if home is not None and home[0] == "reg":
                self.emit("MOVE", home[1], var)
        else:
            a = self.alloc()
            self.expr(it, a)
            idx = self.alloc()
            var = self.alloc()
            self.line = node.lineno
            self.load_const(0, idx, node)
            if home is not None and home[0] == "reg":
                self.emit("MOVE", var, home[1])
            top = self.new_label()
            exit_ = self.new_label()
            self.place(top)
            self.emit("FORLIST", a, label=exit_)
            self.enter_loop_var(name, var, home)
            self.loop_body(node.body, exit_, top)
            self.aliases.pop()
            self.line = node.lineno
            self.emit("JMP", label=top)
            self.place(exit_)
            if home is not None and home[0] == "reg":
                self.emit("MOVE", home[1], var)
        self.unhoist(added)
        self.free_to(mark)

    def resolve_loop_home(self, node):
        """Where a loop variable lives outside the loop: ("reg", r), ("global", id) or None."""
        name = node.target.id
        for alias, reg in reversed(self.aliases):
            if alias == name:
                return ("reg", reg) if self.scope.for_moves.get(id(node)) else None
        if name in self.scope.regs:
            return ("reg", self.scope.regs[name]) if self.scope.for_moves.get(id(node)) else None
        if name in self.b.device_globals:
            self.b.globals_used[name] = self.b.device_globals[name]
            return ("global", self.b.device_globals[name])
        if name in self.scope.globals_declared:
            self.err(
                node,
                f"'{name}' is not a device global (make it one with define_on_device); "
                "only device globals can be assigned on the device",
            )
        return None

    def enter_loop_var(self, name, var, home):
        if home is not None and home[0] == "global":
            self.emit("SETGLOBAL", var, home[1])
            return self.aliases.append(("\0" + name, var))
        self.aliases.append((name, var))


class _RegNode(ast.expr):
    """An expression whose value already sits in a register (for a[i] += x)."""

    _fields = ()

    def __init__(self, reg):
        super().__init__()
        self.reg = reg


def target_load(target):
    return ast.Name(
        id=target.id, ctx=ast.Load(), lineno=target.lineno, col_offset=target.col_offset
    )


# ---------------------------------------------------------------------------
# The result


class KernelCode:
    """A compiled kernel: the module image, its metadata and its line tables."""

    def __init__(self, fn, builder):
        kernel = builder.funcs[0]
        self.name = fn.__name__
        self.entry = 0  # the kernel is function 0
        self.filename = kernel.filename
        self.params = kernel.params
        self.defaults = tuple(fn.__defaults__ or ())
        self.nfuncs = len(builder.funcs)
        self.globals_used = dict(builder.globals_used)
        self.functions = [
            _FuncCode(f.name, f.filename, len(f.params), f.nregs, f.words, f.lines)
            for f in builder.funcs
        ]
        self.consts = list(builder.consts)
        self._layout()

    def _layout(self):
        self._funcs_off = HEADER_SIZE
        self._consts_off = _align8(self._funcs_off + 8 * self.nfuncs)
        off = _align8(self._consts_off + 8 * len(self.consts))
        self._code_offs = []
        for f in self.functions:
            self._code_offs.append(off)
            off = _align8(off + 4 * len(f.words))
        self._str_offs = {}
        for i, c in enumerate(self.consts):
            if isinstance(c, str):
                self._str_offs[i] = off
                off = _align8(off + 4 + len(c.encode("utf-8")))
        self.size = off

    def image(self, base):
        """The module laid out at device address `base` (8-aligned), every address absolute."""
        if base % 8:
            raise ValueError(f"module base 0x{base:x} is not 8-aligned")
        if base < 0 or base + self.size > 0x100000000:
            raise ValueError(f"module base 0x{base:x} is out of the 32-bit address space")
        out = bytearray(self.size)
        struct.pack_into(
            "<6I",
            out,
            0,
            MODULE_MAGIC,
            self.nfuncs,
            base + self._funcs_off,
            base + self._consts_off,
            len(self.consts),
            self.size,
        )
        for i, f in enumerate(self.functions):
            struct.pack_into(
                "<IHH", out, self._funcs_off + 8 * i, base + self._code_offs[i], f.nparams, f.nregs
            )
            struct.pack_into(f"<{len(f.words)}I", out, self._code_offs[i], *f.words)
        for i, c in enumerate(self.consts):
            at = self._consts_off + 8 * i
            if isinstance(c, str):
                data = c.encode("utf-8")
                struct.pack_into("<II", out, at, TAG_STR, base + self._str_offs[i])
                struct.pack_into("<I", out, self._str_offs[i], len(data))
                out[self._str_offs[i] + 4 : self._str_offs[i] + 4 + len(data)] = data
            elif isinstance(c, float):
                struct.pack_into("<If", out, at, TAG_FLOAT, c)
            else:
                struct.pack_into("<Ii", out, at, TAG_INT, c)
        return bytes(out)

    def where(self, func, word):
        """(filename, line, function name) of the instruction at word `word` of `func`."""
        if not 0 <= func < self.nfuncs:
            return (self.filename, None, f"<function {func}>")
        f = self.functions[func]
        line = f.lines[word] if 0 <= word < len(f.lines) else None
        return (f.filename, line, f.name)

    def disassemble(self):
        """A readable listing of every function of the module."""
        names = [f.name for f in self.functions]
        globals_by_id = {gid: name for name, gid in self.globals_used.items()}
        out = []
        for i, f in enumerate(self.functions):
            out.append(
                f"function {i} {f.name} ({f.nparams} params, {f.nregs} regs) "
                f"{os.path.basename(f.filename)}"
            )
            out.extend(
                _disasm.disassemble_function(f.words, self.consts, f.lines, names, globals_by_id)
            )
        if self.consts:
            out.append("constants")
            for i, c in enumerate(self.consts):
                out.append(f"  K{i} = {_disasm.const_text(c)}")
        return "\n".join(out) + "\n"


class _FuncCode:
    __slots__ = ("name", "filename", "nparams", "nregs", "words", "lines")

    def __init__(self, name, filename, nparams, nregs, words, lines):
        self.name = name
        self.filename = filename
        self.nparams = nparams
        self.nregs = nregs
        self.words = words
        self.lines = lines


def compile_kernel(fn, device_globals=None):
    """Compile `fn` (and the functions it calls) into one module of device code.

    `device_globals` maps the names made device-resident with define_on_device
    to their global ids. Raises DeviceSyntaxError (a SyntaxError) naming file,
    line and construct for anything the device cannot run.
    """
    raw = fn
    while not isinstance(raw, types.FunctionType) and hasattr(raw, "__wrapped__"):
        raw = raw.__wrapped__
    if not isinstance(raw, types.FunctionType):
        raise TypeError(f"compile_kernel needs a Python function, not {type(fn).__name__}")
    builder = _ModuleBuilder(device_globals or {})
    builder.add_pyfunc(raw)
    builder.compile_all()
    return KernelCode(raw, builder)
