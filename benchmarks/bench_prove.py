"""Bounded Z3 proofs: per model, the largest bound (up a ladder) proved within the budget, and the time
to refute the deliberately broken constrained variant. Times are wall and CPU seconds of this process
(Z3 runs in it); on a shared machine the CPU figure is the fairer one."""

from __future__ import annotations

from benchmarks.harness import row

# (members, partitions) ladders, smallest first; topics <= 2, generations: unknown + 2 known
LADDER = [(2, 4), (3, 4), (3, 6), (4, 6), (4, 8), (5, 8), (5, 10), (6, 10), (6, 12), (7, 14), (8, 16)]
QUICK_LADDER = [(2, 4), (3, 4), (3, 6)]
# the composed models (verify.models.contracts) climb toward and past the goal of 6 members x 12 partitions
LADDERS = {"sticky-constrained": [(3, 6), (4, 8), (6, 10), (6, 12), (7, 12), (7, 14)],
           "cooperative-sticky": [(3, 6), (4, 6), (5, 8), (6, 8), (6, 10)]}
JOBS = 2  # this machine's cores: cells (composed models) or shapes (the others) run in worker processes


def largest_proved(name: str, ladder: list[tuple[int, int]], budget: float) -> list[dict]:
    from assigncheck.verify.models import get_model
    from assigncheck.verify.prove import Bound, prove

    rows = []
    for members, partitions in ladder:
        bound = Bound(members, partitions, topics=2, generations=2)
        result = prove(get_model(name), bound, budget, jobs=JOBS)
        ok = result.all_proved
        cells = f" in {result.cells_composed} composed cells" if result.cells_composed else ""
        note = (f"cpu {result.cpu_seconds:.1f}s ({JOBS} jobs), {result.shapes_done}/{result.shapes_total} "
                f"shapes{cells}, {result.solver_calls} queries; shared machine")
        if not ok:
            bad = [f"{o.invariant}: {o.status}" for o in result.outcomes.values() if o.status != "proved"]
            note += "; " + "; ".join(bad[:3])
        rows.append(row(f"prove {bound}", name, result.seconds, goal=f"proved within {budget:.0f} s", ok=ok,
                        note=note, members=members, partitions=partitions, proved=ok,
                        cpu_s=round(result.cpu_seconds, 1), wall_s=round(result.seconds, 1),
                        shapes=result.shapes_done, cells=result.cells_composed, budget_s=budget))
        if not ok:
            break
    return rows


def refute_broken() -> dict:
    from assigncheck.verify.models import BROKEN
    from assigncheck.verify.prove import Bound, prove

    model = BROKEN["sticky-constrained:ceiling-for-all"]
    result = prove(model, Bound(6, 12, topics=2, generations=2), 60.0, stop_at_first=True)
    found = result.counterexamples
    last = result.per_shape[-1][1] if result.per_shape else float("nan")
    note = (f"whole hunt from the smallest shape: cpu {result.cpu_seconds:.2f}s over {result.shapes_done} shapes; "
            + (f"{found[0].invariant} at {found[0].shape}" if found else "none"))
    return row("refute ceiling-for-all: query on the refuting shape", model.name, last,
               goal="counterexample < 1 s", ok=bool(found) and last < 1.0, note=note,
               hunt_cpu_s=round(result.cpu_seconds, 2), shape=str(found[0].shape) if found else None)


def run(quick: bool) -> list[dict]:
    from assigncheck.verify.models import MODELS

    budget = 20.0 if quick else 60.0
    rows = [refute_broken()]
    for name in MODELS:
        rows += largest_proved(name, QUICK_LADDER if quick else LADDERS.get(name, LADDER), budget)
    return rows
