"""Serialised values and their host-side text (PROTOCOL.md sections 1-2)."""

import struct

import pytest

from epython import _values as v


def test_scalars_have_the_documented_bytes():
    assert v.serialise(7) == struct.pack("<II", 0, 7)
    assert v.serialise(-1) == struct.pack("<II", 0, 0xFFFFFFFF)
    assert v.serialise(1.5) == struct.pack("<If", 1, 1.5)
    assert v.serialise(True) == struct.pack("<II", 2, 1)
    assert v.serialise(None) == struct.pack("<II", 3, 0)


def test_strings_are_padded_to_eight_bytes():
    assert v.serialise("abc") == struct.pack("<II", 4, 3) + b"abc" + bytes(5)
    assert v.serialise("") == struct.pack("<II", 4, 0)
    assert len(v.serialise("12345678")) == 16


def test_lists_nest():
    data = v.serialise([1, [2.5, "x"], None])
    assert data[:8] == struct.pack("<II", 5, 3)
    assert v.deserialise_all(data) == [1, [2.5, "x"], None]


@pytest.mark.parametrize(
    "value",
    [0, 2**31 - 1, -(2**31), 0.1, -3.0, 1e20, True, False, None, "héllo", [], [[1], [2, [3]]]],
)
def test_round_trip(value):
    assert v.deserialise_all(v.serialise(value)) == value


def test_floats_come_back_as_their_shortest_single_precision_text():
    assert v.format_f32(struct.unpack("<f", struct.pack("<f", 0.1))[0]) == "0.1"
    assert v.format_f32(3.0) == "3.0"
    assert v.format_f32(1e20) == "1e+20"
    assert v.format_f32(float("inf")) == "inf"
    assert v.format_f32(-0.0) == "-0.0"
    # 16777217 is not a float32: it reads back as 16777216.
    assert v.deserialise_all(v.serialise(16777217.0)) == 16777216.0
    assert v.deserialise_all(v.serialise(0.1)) == 0.1


def test_out_of_range_values_are_refused_with_where():
    with pytest.raises(v.ValueProblem) as e:
        v.serialise([1, 2**31])
    assert e.value.kind is OverflowError and e.value.path == "[1]"
    with pytest.raises(v.ValueProblem) as e:
        v.serialise(1e40)
    assert e.value.kind is OverflowError
    with pytest.raises(v.ValueProblem) as e:
        v.serialise([{"a": 1}])
    assert e.value.kind is TypeError and "dict" in str(e.value) and e.value.path == "[0]"
    with pytest.raises(v.ValueProblem):
        v.serialise((1, 2))


def test_print_records_format_as_python_prints():
    rec = v.serialise(["Hello", 1, 2.5, True, None, [1, "a", 0.1]])
    rec += v.serialise([])
    assert v.print_records(rec) == ["Hello 1 2.5 True None [1, 'a', 0.1]", ""]


def test_bad_bytes_are_reported():
    with pytest.raises(ValueError, match="tag 9"):
        v.deserialise_all(struct.pack("<II", 9, 0))
    with pytest.raises(ValueError, match="truncated"):
        v.deserialise_all(struct.pack("<II", 5, 2) + v.serialise(1))
