"""A readable listing of epython bytecode (firmware/epython/isa.txt).

Owns: how an instruction word is decoded into its fields (the inverse of
the compiler's encoder) and how a function's code is written out, one
instruction a line, with jump targets as absolute word offsets.
"""

import math
import struct

from . import _isa

_BUILTIN_NAMES = {number: name for name, (number, _lo, _hi, _what) in _isa.BUILTINS.items()}

# Formats whose last field is a jump offset.
_JUMPS = {"sJ", "AsBx", "ABJ", "ABsCJ"}
# Formats with an extension word after the instruction word.
_EXTENDED = {"ABJ", "ABsCJ"}
_JUMP_OPS = {
    name for name, (_n, fmt, _e) in _isa.OPCODES.items() if fmt in _JUMPS and name not in ("LOADI",)
}


def _signed(value, bits):
    sign = 1 << (bits - 1)
    return (value & (sign - 1)) - (value & sign)


def decode(word, ext=None):
    """(name, format, fields) of one instruction word.

    `fields` maps field letters (A, B, C, Bx, sBx, sC, sJ, J) to their values;
    `ext` is the extension word of an ABJ or ABsCJ instruction (its J).
    """
    op = word & 0xFF
    if op >= len(_isa.OPNAMES):
        return (f"?{op}", "-", {})
    name = _isa.OPNAMES[op]
    fmt = _isa.OPCODES[name][1]
    a = (word >> 8) & 0xFF
    b = (word >> 16) & 0xFF
    c = (word >> 24) & 0xFF
    bx = (word >> 16) & 0xFFFF
    fields = {}
    if fmt in ("A", "AB", "ABC", "ABx", "AsBx", "ABsC", "ABJ", "ABsCJ"):
        fields["A"] = a
    if fmt in ("AB", "ABC", "ABsC", "ABJ", "ABsCJ"):
        fields["B"] = b
    if fmt == "ABC":
        fields["C"] = c
    if fmt in ("ABsC", "ABsCJ"):
        fields["sC"] = _signed(c, 8)
    if fmt == "ABx":
        fields["Bx"] = bx
    if fmt == "AsBx":
        fields["sBx"] = _signed(bx, 16)
    if fmt == "sJ":
        fields["sJ"] = _signed(word >> 8, 24)
    if fmt in _EXTENDED:
        fields["J"] = _signed(ext if ext is not None else 0, 32)
    return (name, fmt, fields)


def insn_words(word):
    """How many words the instruction starting with `word` takes."""
    op = word & 0xFF
    if op < len(_isa.OPNAMES) and _isa.OPCODES[_isa.OPNAMES[op]][1] in _EXTENDED:
        return 2
    return 1


def const_text(value):
    if isinstance(value, float) and math.isfinite(value):
        # The shortest text that reads back as the same single-precision number.
        bits = struct.pack("<f", value)
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if struct.pack("<f", float(text)) == bits:
                return repr(float(text))
    return repr(value)


def format_insn(words, pc, consts=(), funcs=(), globals_by_id=None):
    """The text of the instruction at word `pc` of `words`, and its length in words."""
    word = words[pc]
    n = insn_words(word)
    ext = words[pc + 1] if n == 2 and pc + 1 < len(words) else None
    name, fmt, f = decode(word, ext)
    after = pc + n
    ops = []
    note = ""
    if name == "LOADK":
        ops = [f"R{f['A']}", f"K{f['Bx']}"]
        if f["Bx"] < len(consts):
            note = const_text(consts[f["Bx"]])
    elif name == "LOADI":
        ops = [f"R{f['A']}", str(f["sBx"])]
    elif name == "LOADBOOL":
        ops = [f"R{f['A']}", str(bool(f["B"]))]
    elif name in ("GETGLOBAL", "SETGLOBAL"):
        ops = [f"R{f['A']}", f"G{f['Bx']}"]
        if globals_by_id and f["Bx"] in globals_by_id:
            note = globals_by_id[f["Bx"]]
    elif name == "ADDI":
        ops = [f"R{f['A']}", f"R{f['B']}", str(f["sC"])]
    elif name in ("CALL", "CALLB"):
        ops = [f"R{f['A']}", str(f["B"])]
        if name == "CALLB":
            ops.append(_BUILTIN_NAMES.get(f["C"], f"?{f['C']}"))
        else:
            ops.append(f"F{f['C']}")
            if f["C"] < len(funcs):
                note = funcs[f["C"]]
    elif name == "PRINT":
        ops = [f"R{f['A']}", str(f["B"])]
    elif name in ("NEWLIST", "LISTEXT"):
        ops = [f"R{f['A']}", f"R{f['B']}", str(f["C"])]
    elif name in _JUMP_OPS:
        if fmt == "sJ":
            ops = [f"-> {after + f['sJ']}"]
        elif fmt == "AsBx":
            ops = [f"R{f['A']}", f"-> {after + f['sBx']}"]
        elif fmt == "ABsCJ":
            ops = [f"R{f['A']}", f"R{f['B']}", str(f["sC"]), f"-> {after + f['J']}"]
        else:
            ops = [f"R{f['A']}", f"R{f['B']}", f"-> {after + f['J']}"]
    else:
        for letter in ("A", "B", "C"):
            if letter in f:
                ops.append(f"R{f[letter]}")
    text = f"{name:<9} {', '.join(ops)}"
    text = text.rstrip()
    if note:
        text = f"{text:<28} ; {note}"
    return text, n


def disassemble_function(words, consts=(), lines=None, funcs=(), globals_by_id=None):
    """Lines of text, one per instruction: word offset, source line, instruction."""
    out = []
    pc = 0
    while pc < len(words):
        text, n = format_insn(words, pc, consts, funcs, globals_by_id)
        line = lines[pc] if lines is not None and pc < len(lines) else None
        where = "" if line is None else line
        out.append(f"{pc:4d} {where:>4}  {text}")
        pc += n
    return out
