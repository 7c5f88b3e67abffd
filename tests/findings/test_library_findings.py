"""What the README says the gate finds in kafka-python 3.0.12 and aiokafka 0.14.0 (pinned) still reproduces."""

import pytest

from assigncheck.ci.cli import main
from tests.paths import ROOT

FINDINGS = sorted((ROOT / "examples" / "library-findings").glob("*.json"))


def test_there_are_findings_to_replay():
    assert len(FINDINGS) >= 10


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_library_finding_reproduces(path, capsys):
    assert main(["replay", str(path)]) == 1
    assert "reproduces:" in capsys.readouterr().out
