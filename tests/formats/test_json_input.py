"""The one safe JSON reader (`formats.json_input`, re-exported by `formats.documents`) and bounded input files."""

from __future__ import annotations

import io
import os
import sys
import threading

import pytest

from assigncheck.formats.documents import load_json, parse_json, read_input
from assigncheck.formats.json_input import MAX_JSON_DEPTH, JSONSyntaxError
from assigncheck.spec.errors import FormatError


def test_a_repeated_key_is_an_error_naming_where():
    with pytest.raises(FormatError) as e:
        parse_json('{"format": 1, "assignment": {"c1": {"t": [99]}, "c0": {}, "c1": {"t": [0]}}}', "a.json")
    assert e.value.path == "a.json: assignment" and "repeats the key 'c1'" in e.value.message
    with pytest.raises(FormatError) as e:
        parse_json('{"members": [{"id": "a"}, {"id": "b", "rack": "r", "rack": "s"}]}')
    assert e.value.path == "members[1]" and "'rack'" in e.value.message
    assert parse_json('{"a": {"b": 1}, "c": {"b": 2}}') == {"a": {"b": 1}, "c": {"b": 2}}  # same key, two objects


def test_a_repeated_key_is_found_even_inside_a_discarded_duplicate():
    # The inner object is dropped by the outer repeat; its id must not be mistaken for a later object's.
    with pytest.raises(FormatError) as e:
        parse_json('{"x": {"k": 1, "k": 2}, "x": [' + ",".join(['{"v": 1}'] * 50) + "]}")
    assert "repeats the key" in e.value.message


def test_nesting_is_limited_without_a_recursion_error():
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert parse_json(ok) is not None
    for depth in (MAX_JSON_DEPTH + 1, 1000, 100_000):
        with pytest.raises(FormatError, match=f"nests deeper than {MAX_JSON_DEPTH} levels"):
            parse_json("[" * depth + "]" * depth, "deep.json")
    with pytest.raises(FormatError, match="nests deeper"):
        parse_json('{"a":' * 70 + "1" + "}" * 70)


def test_integers_past_the_digit_limit_are_an_error_with_a_position():
    with pytest.raises(FormatError) as e:
        parse_json('{"format": 1,\n "topics": {"t": ' + "9" * 5000 + "}}", "huge.json")
    assert e.value.path == "huge.json" and "more than 4300 digits at line 2 column 18" in e.value.message
    assert parse_json("[" + "9" * 4300 + "]")[0] > 0  # at the limit it parses; the model's range checks judge it


def test_lone_surrogates_are_an_error_naming_the_field_and_pairs_are_text():
    with pytest.raises(FormatError) as e:
        parse_json('{"members": [{"id": "c\\ud800"}]}', "s.json")
    assert e.value.path == "s.json: members[0].id" and "lone surrogate" in e.value.message
    with pytest.raises(FormatError, match="key with a lone surrogate"):
        parse_json('{"topics": {"t\\udfff": 1}}')
    with pytest.raises(FormatError, match="lone surrogate"):
        parse_json('"\\udc00"')
    assert parse_json('{"rack": "\\ud83d\\ude00"}') == {"rack": "\U0001f600"}  # a pair is one character


def test_nan_and_infinity_are_not_json():
    for text in ('{"format": NaN}', "[Infinity]", "[-Infinity]"):
        with pytest.raises(JSONSyntaxError, match="is not a JSON number"):
            parse_json(text)


def test_bytes_and_text_read_alike_and_bad_bytes_are_named():
    assert parse_json(b'{"a": [1, 2]}') == parse_json('{"a": [1, 2]}') == {"a": [1, 2]}
    with pytest.raises(FormatError, match=r"is not UTF-8 text \(byte 7\)"):
        parse_json(b'{"a": "\xff"}', "bin.json")
    for empty in ("", b"", "  \n"):
        with pytest.raises(JSONSyntaxError, match="is empty"):
            parse_json(empty)


def test_devices_fifos_and_directories_are_refused_without_reading(tmp_path):
    for path, kind in (("/dev/zero", "a character device"), ("/dev/urandom", "a character device"),
                       (tmp_path, "a directory")):
        with pytest.raises(FormatError, match=f"is {kind}, not a regular file"):
            read_input(path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: outcome.append(pytest.raises(FormatError, read_input, fifo).value))
    reader.daemon = True  # if the read blocked on the FIFO, the assertion below fails instead of hanging
    reader.start()
    reader.join(10)
    assert outcome and "is a FIFO" in str(outcome[0])


def test_the_size_cap_is_checked_before_and_while_reading(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"0," * 50 + b"0]")
    with pytest.raises(FormatError, match="is 103 bytes; assigncheck reads at most 100"):
        read_input(big, limit=100)
    assert read_input(big, limit=103) == big.read_bytes()
    # /proc files report size 0: the cap holds on the read itself
    with pytest.raises(FormatError, match="more than 10 bytes"):
        read_input("/proc/self/status", limit=10)


def test_standard_input_is_dash_and_bounded(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"format": 1}')))
    assert load_json("-") == {"format": 1}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"0" * 101)))
    with pytest.raises(FormatError) as e:
        read_input("-", limit=100)
    assert e.value.path == "standard input"
    monkeypatch.setattr(sys, "stdin", None)  # started with standard input closed (`<&-`)
    with pytest.raises(FormatError, match="standard input: is not open"):
        read_input("-")


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FormatError) as e:
        load_json(tmp_path / "nope.json")
    assert e.value.path.endswith("nope.json") and "No such file" in e.value.message
