"""Gate stage `campaign`: one Spark differential campaign over every consumer-group target at once.

Instances come from the `small` profile (every junk claim kind, cooperative rounds); each violating row's
problem is written as a reproducer by the campaign itself. Per-instance rows (size, time, quality) are
kept in `REPORT_DIR/campaign/rows.json` for the HTML report's plots.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from assigncheck.ci.gate import Context, shrink, target_spec
from assigncheck.ci.results import Finding, StageResult
from assigncheck.spec.json_format import load_json, load_problem, write_atomic
from assigncheck.spec.promises import Assignor, problem_kind

PLOT_ROWS = 5000  # enough points for the plots, bounded whatever the campaign size
_PLOTTED = ("retained", "max_retained", "sum_squares", "optimal_sum_squares")


def _reproducers(out: Path) -> dict[tuple[str, str], str]:
    """(target spec, invariant) -> the first reproducer file the campaign wrote for it."""
    from assigncheck.fuzz.triage import parse_note

    found: dict[tuple[str, str], str] = {}
    for path in sorted((out / "reproducers").glob("*.json")):
        doc = load_json(path)
        note = parse_note(doc.get("note", "") if isinstance(doc, dict) else "")
        if note.get("target") and note.get("invariant"):
            found.setdefault((note["target"], note["invariant"]), str(path))
    return found


def _plot_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in rows[:PLOT_ROWS]:
        quality = dict(r.get("quality") or [])
        out.append({"target": r["target"], "partitions": r["partitions"], "members": r["members"],
                    "ms": None if r.get("assign_seconds") is None else r["assign_seconds"] * 1000,
                    **{k: quality.get(k) for k in _PLOTTED}})
    return out


def run(targets: list[Assignor], ctx: Context) -> list[StageResult]:
    from assigncheck.verify.campaign import read_rows, run_campaign
    from assigncheck.verify.campaign_rows import CampaignSpec

    started = time.monotonic()
    consumer = [t for t in targets if problem_kind(t) == "consumer"]  # the profiles generate consumer groups
    results = [StageResult("campaign", t.name, stats={"skipped": "streams task problems"})
               for t in targets if t not in consumer]
    if not consumer:
        return results
    specs = {target_spec(t): t for t in consumer}
    spec = CampaignSpec(tuple(specs), "small", ctx.seed, ctx.profile.campaign_instances, ctx.profile.campaign_shards)
    out = ctx.report_dir / "campaign"
    summary = run_campaign(spec, out, executor="spark", master=ctx.master)
    reproducers = _reproducers(out)
    rows = read_rows(spec, out)
    write_atomic(out / "rows.json", json.dumps(_plot_rows(rows)) + "\n")
    seconds = time.monotonic() - started
    for name, target in specs.items():
        per = summary["targets"].get(name, {})
        result = StageResult("campaign", target.name, seconds / len(specs), checked=("H1-H8+promises",))
        for invariant, info in sorted(per.get("violations", {}).items()):
            example = info["examples"][0] if info["examples"] else {}
            messages = example.get("messages", [])
            message = next((m for m in messages if m.startswith(f"{invariant}:")), messages[0] if messages
                           else invariant)
            path = reproducers.get((name, invariant))
            if path is not None:  # the campaign keeps the raw instance; the report gets a minimized copy
                problem = shrink(target, load_problem(path), invariant, seconds=5.0)
                path = ctx.save_reproducer("campaign", name, invariant, problem, f"{message} (minimized)")
            result.findings.append(Finding("campaign", target.name, invariant,
                                           f"{message} ({info['rows']} of {per['rows']} instances)",
                                           reproducer=path, seed=ctx.seed))
        result.stats = {"instances": per.get("rows", 0), "assign_p50_ms":
                        round((per.get("assign_seconds", {}).get("p50") or 0) * 1000, 2)}
        results.append(result)
    return results
