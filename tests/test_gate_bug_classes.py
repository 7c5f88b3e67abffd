"""Bug classes the quick gate must catch, each planted in a small target of its own beside a correct twin: the
gate confirms the bug with a reproducer that replays from its file alone, in a fresh process, and passes the
twin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from assigncheck.ci.gate import run_gate
from assigncheck.impl.registry import load
from assigncheck.verify.exhaustive import problems
from assigncheck.verify.prove import Bound

ROOT = Path(__file__).resolve().parents[1]


def _replays(path: str) -> subprocess.CompletedProcess[str]:
    """`assigncheck replay FILE` in a fresh interpreter, from the file alone (no flag names the target)."""
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", path], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


# ---- a group that moved to another topic: claims of a topic nobody subscribes to ------------------------------


def test_the_small_problems_of_an_equal_subscription_domain_claim_topics_nobody_subscribes_to():
    found = list(problems(Bound(members=1, partitions=2, topics=2, generations=1), equal_subscriptions=True))
    assert all(p.subscriptions_equal() for p in found)
    left = [p for p in found if any(t not in m.subscription for m in p.members for t in m.owned)]
    assert any(len(p.members) == 1 and p.members[0].subscription for p in left)  # t1 claimed, t0 subscribed


def test_the_proofs_stage_catches_a_sticky_assignor_keeping_claims_of_a_topic_its_group_left(tmp_path, steady):
    result = run_gate([load("tests.fixtures.sticky_claims:KeepsEveryClaim")], "quick", tmp_path / "bug", ["proofs"])
    (stage,) = result.stages
    assert stage.stats["protocol"] == "eager" and stage.error is None
    (h3,) = [f for f in stage.findings if f.invariant == "H3"]
    assert h3.status == "confirmed" and result.exit_code == 1, (h3.status, h3.why)
    problem = json.loads(Path(h3.reproducer).read_text())
    assert len({tuple(m["subscription"]) for m in problem["members"]}) == 1  # inside the declared domain
    replay = _replays(h3.reproducer)
    assert replay.returncode == 1 and "reproduces: H3" in replay.stdout, replay.stdout + replay.stderr

    twin = run_gate([load("tests.fixtures.sticky_claims:KeepsSubscribedClaims")], "quick", tmp_path / "twin",
                    ["proofs"])
    assert twin.exit_code == 0 and twin.findings == [], [(f.invariant, f.message) for f in twin.findings]
    assert twin.stages[0].work.done == steady.exhaustive_problems
