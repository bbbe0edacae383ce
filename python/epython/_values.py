"""Values between the host and the firmware (PROTOCOL.md sections 1 and 2).

Owns: which Python values can travel (int within 32 bits, float, bool,
None, str, and lists of these), their serialised form, and how the host
writes device values as text (print records, and floats returned to the
caller: the shortest decimal that reads back as the same single-precision
number, so a device 0.1 comes back as the Python float 0.1).
"""

import math
import struct

TAG_INT = 0
TAG_FLOAT = 1
TAG_BOOL = 2
TAG_NONE = 3
TAG_STR = 4
TAG_LIST = 5

TAG_NAMES = {
    TAG_INT: "int",
    TAG_FLOAT: "float",
    TAG_BOOL: "bool",
    TAG_NONE: "NoneType",
    TAG_STR: "str",
    TAG_LIST: "list",
}

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1

_PAIR = struct.Struct("<II")
_F32 = struct.Struct("<f")

ALLOWED = "ints (32-bit), floats, bools, None, strings and lists of them"


class ValueProblem(Exception):
    """Raised by serialise(); `kind` is TypeError or OverflowError, `path` where."""

    def __init__(self, kind, message, path):
        super().__init__(message)
        self.kind = kind
        self.path = path


def serialise(value, path=""):
    """The serialised bytes of `value`; ValueProblem if it cannot travel."""
    out = bytearray()
    _put(value, out, path)
    return bytes(out)


def _put(v, out, path):
    if v is None:
        out += _PAIR.pack(TAG_NONE, 0)
    elif isinstance(v, bool):
        out += _PAIR.pack(TAG_BOOL, int(v))
    elif isinstance(v, int):
        if not INT_MIN <= v <= INT_MAX:
            raise ValueProblem(OverflowError, f"{v} does not fit the device's 32-bit int", path)
        out += _PAIR.pack(TAG_INT, v & 0xFFFFFFFF)
    elif isinstance(v, float):
        try:
            bits = _F32.pack(v)
        except OverflowError:
            raise ValueProblem(
                OverflowError, f"{v!r} does not fit the device's single-precision float", path
            ) from None
        out += _PAIR.pack(TAG_FLOAT, struct.unpack("<I", bits)[0])
    elif isinstance(v, str):
        data = v.encode("utf-8")
        out += _PAIR.pack(TAG_STR, len(data))
        out += data
        out += bytes(-len(data) % 8)
    elif isinstance(v, list):
        out += _PAIR.pack(TAG_LIST, len(v))
        for i, item in enumerate(v):
            _put(item, out, f"{path}[{i}]")
    else:
        raise ValueProblem(
            TypeError, f"a {type(v).__name__} cannot be sent to the device (only {ALLOWED})", path
        )


def f32_bits_to_float(bits):
    """The Python float a device float stands for, as its shortest decimal."""
    return float(format_f32(_F32.unpack(struct.pack("<I", bits))[0]))


def format_f32(x):
    """The shortest text that reads back as the same single-precision float."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    target = _F32.pack(x)
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        if _F32.pack(float(text)) == target:
            # Python's own spelling of that number (e.g. "3.0", "1e+20").
            return repr(float(text))
    return repr(x)


def deserialise(buf, off=0):
    """(value, next offset) from the serialised bytes in `buf` at `off`."""
    if off + 8 > len(buf):
        raise ValueError(f"truncated serialised value at byte {off} of {len(buf)}")
    tag, payload = _PAIR.unpack_from(buf, off)
    off += 8
    if tag == TAG_INT:
        return (payload - (1 << 32) if payload & 0x80000000 else payload), off
    if tag == TAG_FLOAT:
        return f32_bits_to_float(payload), off
    if tag == TAG_BOOL:
        return bool(payload), off
    if tag == TAG_NONE:
        return None, off
    if tag == TAG_STR:
        end = off + payload
        if end > len(buf):
            raise ValueError(f"truncated string of {payload} bytes at byte {off - 8}")
        text = bytes(buf[off:end]).decode("utf-8", errors="replace")
        return text, end + (-payload % 8)
    if tag == TAG_LIST:
        items = []
        for _ in range(payload):
            item, off = deserialise(buf, off)
            items.append(item)
        return items, off
    raise ValueError(f"bad value tag {tag} at byte {off - 8}")


def deserialise_all(buf):
    """The one value that fills `buf`."""
    value, end = deserialise(buf, 0)
    if end != len(buf):
        raise ValueError(f"{len(buf) - end} stray bytes after a serialised value")
    return value


def format_value(v, top=True):
    """How Python's print shows a device value (floats as format_f32)."""
    if isinstance(v, str):
        return v if top else repr(v)
    if isinstance(v, bool) or v is None or isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(format_value(x, top=False) for x in v) + "]"
    return str(v)


def print_records(buf):
    """The lines of the complete print records in `buf` (each a serialised list)."""
    lines = []
    off = 0
    while off < len(buf):
        values, off = deserialise(buf, off)
        if not isinstance(values, list):
            raise ValueError("a print record that is not a list")
        lines.append(" ".join(format_value(v) for v in values))
    return lines
