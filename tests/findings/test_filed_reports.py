"""The ready-to-file reports: every kept finding that is a bug has one beside its reproducer (same name, `.md`), with
a title, the affected and fixed versions, the case, expected and actual, the source lines responsible, a suggested
fix, the upstream issues searched, and the exported test inline, exactly as `assigncheck export` writes it today
(`python -m tests.findings.reports` rewrites them after a change to the export). A fault of a client's leader, which
no balancer test reaches, says why it has no test."""

from __future__ import annotations

import pytest

from tests.findings.exports import BUGS, kept
from tests.findings.reports import exported, inline

LEADER_STEP = {"leader-fails-on-a-missing-topic", "missing-topic-leaves-the-group-without-partitions"}
SECTIONS = ("- **Affected**:", "- **Fixed in**:", "- **Upstream**:", "## The case", "## Expected and actual",
            "## Where, and why", "## Suggested fix", "## Upstream issues searched", "## The test")


def test_only_bugs_have_reports():
    reported = {k.report for k in kept() if k.report.exists()}
    assert reported == {k.report for k in BUGS}


@pytest.mark.parametrize("bug", BUGS, ids=[f"{b.report.parent.name}/{b.name}" for b in BUGS])
def test_each_bug_has_a_report_with_the_test_export_writes_today(bug):
    report = bug.report.read_text()
    assert report.startswith("# ") and all(s in report for s in SECTIONS), bug.report
    assert f"assigncheck replay {bug.path}" in report
    searched = report.split("## Upstream issues searched", 1)[1].split("## The test", 1)[0]
    assert searched.count("\n- `") >= 1 and "#" in searched  # the queries, and ids with titles
    held = inline(report)
    if bug.name in LEADER_STEP:
        assert held is None and "Not exported" in report
        return
    assert held is not None, f"{bug.report} holds no exported test"
    assert held == exported(bug), f"{bug.report}'s test is not what export writes: python -m tests.findings.reports"
