"""Every file under `tests/malformed/` is an input that crashed, hung or fooled the CLI. Each must
now give exit 2 and one stderr line naming what is wrong. Malformed inputs are not problems, so they are
not regression vectors (`fuzz/vectors/` holds problems every named assignor must pass)."""

from __future__ import annotations

import json

import pytest

from assigncheck.ci.cli import main
from assigncheck.generate.scenario import load_scenario
from assigncheck.spec.errors import InputError
from tests.paths import TESTS

MALFORMED = TESTS / "malformed"
PROBLEM = {"format": 1, "topics": {"orders": 3},
           "members": [{"id": "c0", "subscription": ["orders"]}, {"id": "c1", "subscription": ["orders"]}]}

# file -> (verb, what the one error line must say). Verb "check" judges the file as the assignment of
# PROBLEM; "assign" runs the assignor on it; "scenario" loads it as a scenario.
EXPECTED = {
    "assignment-repeated-member.json": ("check", "assignment: repeats the key 'c1'"),  # was: OK, exit 0
    "problem-repeated-topic.json": ("assign range", "topics: repeats the key 'orders'"),
    "problem-note-nested-1000-deep.json": ("assign range", "nests deeper than 64 levels"),  # RecursionError
    "problem-integer-5000-digits.json": ("assign range", "integer of more than 4300 digits at line 1"),
    "problem-lone-surrogate-in-member-id.json": ("assign range", "members[0].id: contains a lone surrogate"),
    "problem-2147483647-partitions.json": ("assign range", "topics: asks for 2,147,483,647 partitions"),  # 16 GiB
    "streams-100000000-tasks.json": ("assign streams-sticky", "subtopologies: asks for 100,000,000 tasks"),
    "problem-format-1.0.json": ("assign range", "format: unsupported version 1.0"),
    "problem-format-true.json": ("assign range", "format: unsupported version True"),
    "problem-lag-reset-Latest.json": ("assign lag", "lag.auto_offset_reset: must be one of latest, earliest, none"),
    "problem-field-name-with-line-breaks.json": ("assign range", "bad\\u2028field\\nname: is not a known field"),
    "problem-nan-generation.json": ("assign range", "NaN is not a JSON number"),
    "problem-not-utf8.json": ("assign range", "is not UTF-8 text (byte 26)"),
    "scenario-add-2147483647-partitions.json": ("scenario", "steps[0].add_partitions.count: asks for"),
}


def test_every_fixture_has_an_expectation():
    assert sorted(p.name for p in MALFORMED.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_malformed_input_is_one_line_and_exit_2(name, tmp_path, capsys):
    verb, expected = EXPECTED[name]
    path = MALFORMED / name
    if verb == "scenario":
        with pytest.raises(InputError) as e:
            load_scenario(path)
        assert expected in str(e.value) and str(path) in str(e.value)
        return
    if verb == "check":
        (tmp_path / "p.json").write_text(json.dumps(PROBLEM))
        argv = ["check", str(tmp_path / "p.json"), str(path)]
    else:
        argv = ["assign", "--assignor", verb.split()[1], str(path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and "Traceback" not in captured.err
    assert expected in captured.err and str(path) in captured.err, captured.err
