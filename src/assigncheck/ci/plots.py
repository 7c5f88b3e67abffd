"""The HTML report's plots, one function per plot. Each says under its title what it is over: which rows, how
they were sampled, what it leaves out and why. They need matplotlib (the `plots` extra); without it there are none.

The per-instance rows are the campaign's (`StageResult.rows`, see ci/stages/campaign.py): a seeded sample of
each target's rows, each marked `valid` when its output was a complete assignment of the problem.
"""

from __future__ import annotations

import base64
import html
import io
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from assigncheck.ci.results import GateResult, StageResult

LABEL = 48  # characters of a target name in a plot's labels (the tables hold the whole name)
Row = dict[str, Any]


@dataclass(frozen=True)
class Plot:
    title: str
    caption: str  # what the plot is over
    png: bytes

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels, from the PNG header: the page lays the image out before decoding it."""
        width, height = struct.unpack(">II", self.png[16:24])
        return width, height

    def html(self) -> str:
        esc = html.escape
        width, height = self.size
        data = base64.b64encode(self.png).decode()
        return (f"<figure style='width: {width}px'><figcaption><b>{esc(self.title)}</b><br>{esc(self.caption)}"
                "</figcaption>"
                f"<img alt='{esc(self.title)}' width='{width}' height='{height}' src='data:image/png;base64,{data}'>"
                "</figure>")


def plots(result: GateResult) -> list[Plot]:
    """Every plot the result has data for."""
    from assigncheck.ci.engines import installed

    if not installed("matplotlib"):
        return []
    from assigncheck.run.cache import matplotlib_dir

    matplotlib_dir()  # its font list in assigncheck's cache, not in $XDG_CACHE_HOME/matplotlib
    import matplotlib

    matplotlib.use("Agg")
    made = [plot(result) for plot in (time_per_stage, time_vs_size, scale_ladder, retention, balance)]
    return [p for p in made if p is not None]


def label(text: str, limit: int = LABEL) -> str:
    """`text` cut in the middle when longer than `limit`: two long names that share a prefix stay apart."""
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[len(text) - (limit - 1 - half):]}"


def rows_of(result: GateResult) -> list[Row]:
    return [r for s in result.stages for r in s.rows]


def _campaign(result: GateResult) -> list[StageResult]:
    return [s for s in result.stages if s.stage == "campaign" and "plot_rows" in s.stats]


def sampling(result: GateResult) -> str:
    """How the plotted rows were chosen from the campaign's, in words ("" when no campaign says)."""
    said = [(s.target, s.stats["plot_rows"]) for s in _campaign(result)]
    if not said:
        return ""
    if all(p["rows"] == p["of"] for _, p in said):
        return "every campaign row"
    seeds = sorted({p["seed"] for _, p in said})
    counts = {(p["rows"], p["of"]) for _, p in said}
    if len(counts) == 1:
        (rows, of), = counts
        share = f"{rows:,} of {of:,} campaign rows per target"
    else:
        share = "; ".join(f"{label(t)}: {p['rows']:,} of {p['of']:,} rows" for t, p in said)
    return f"{share}, sampled by seed {', '.join(map(str, seeds))}"


def _sentences(*parts: str) -> str:
    return " ".join(p[0].upper() + p[1:] + "." for p in parts if p)


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def campaign_time(result: GateResult) -> str:
    """What a campaign bar of "time per stage" measures (each target's own time), and the campaign's whole."""
    campaign = [s for s in result.stages if s.stage == "campaign" and "campaign_seconds" in s.stats]
    if not campaign:
        return ""
    whole = campaign[0].stats["campaign_seconds"]
    return (f"a campaign bar is that target's own time: its instances' checks in the Spark executors (summed "
            f"over the parallel tasks) and confirming its findings; the whole campaign took {whole:,.1f} s of "
            f"wall-clock time for all targets together (Spark's start-up and generating the instances are shared)")


def time_per_stage(result: GateResult) -> Plot | None:
    import matplotlib.pyplot as plt

    ran = [s for s in result.stages if not s.skipped]
    if not ran:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(ran) + 1.2))
    ax.barh([f"{label(s.target)} / {s.stage}" for s in ran], [s.seconds for s in ran],
            color=["#2a7" if s.ok else "#c33" for s in ran])
    ax.set_xlabel("seconds")
    ax.invert_yaxis()
    caption = _sentences("wall-clock seconds per target and stage that ran (red: failed)", campaign_time(result))
    return Plot("Time per stage", caption, _png(fig))


def time_vs_size(result: GateResult) -> Plot | None:
    import matplotlib.pyplot as plt

    timed = [r for r in rows_of(result) if r.get("ms") is not None and r.get("partitions") is not None]
    if not timed:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for target in sorted({r["target"] for r in timed}):
        mine = [r for r in timed if r["target"] == target]
        ax.scatter([r["partitions"] for r in mine], [r["ms"] for r in mine], s=6, label=label(target), alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("partitions")
    ax.set_ylabel("ms per assignment")
    ax.legend(fontsize=7)
    caption = _sentences(f"{len(timed):,} instances, the first call's wall-clock time, valid output or not",
                         sampling(result))
    return Plot("Time vs size (campaign instances)", caption, _png(fig))


def scale_ladder(result: GateResult) -> Plot | None:
    import matplotlib.pyplot as plt

    ladder = [(s.target, r) for s in result.stages if s.stage == "scale" for r in s.stats.get("ladder", ())]
    if not ladder:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for target, series in sorted({(t, r["series"]) for t, r in ladder}):
        mine = [r for t, r in ladder if (t, r["series"]) == (target, series) and r["cpu_ms"] > 0]
        ax.plot([r["size"] for r in mine], [r["cpu_ms"] for r in mine], marker="o", ms=3,
                label=f"{label(target)} / {series}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("members + partitions")
    ax.set_ylabel("CPU ms per call (min of up to 3)")
    ax.legend(fontsize=6)
    caption = _sentences("every rung the scale stage timed, the minimum CPU time of up to 3 calls on fresh copies")
    return Plot("Scale ladder: CPU time per call vs size", caption, _png(fig))


def retention_values(rows: Sequence[Row]) -> dict[str, list[float]]:
    """retained / max_retained per target, over valid outputs of problems with something to retain."""
    return _per_target(rows, lambda r: r["retained"] / r["max_retained"]
                       if r.get("retained") is not None and r.get("max_retained") else None)


def balance_values(rows: Sequence[Row]) -> dict[str, list[float]]:
    """Σ count² above the optimum per target, over valid outputs where the oracle gave the optimum. Never
    negative: the optimum is the least over every complete valid assignment, which a valid output is."""
    return _per_target(rows, lambda r: r["sum_squares"] - r["optimal_sum_squares"]
                       if r.get("sum_squares") is not None and r.get("optimal_sum_squares") is not None else None)


def _per_target(rows: Sequence[Row], value: Callable[[Row], float | None]) -> dict[str, list[float]]:
    """An invalid output (H1-H7 broken, or partitions withheld in a cooperative round) is no assignment of the
    problem: how close it is to the optimum means nothing (one that drops partitions "beats" the optimum)."""
    out: dict[str, list[float]] = {}
    for r in rows:
        v = value(r) if r.get("valid") else None
        if v is not None:
            out.setdefault(r["target"], []).append(v)
    return {t: out[t] for t in sorted(out)}


_LEFT_OUT = ("complete valid outputs only (an output that breaks H1-H7 or withholds partitions in a cooperative "
             "round is no assignment of the problem)")


def _histogram(result: GateResult, title: str, xlabel: str, values: dict[str, list[float]], needs: str) -> Plot | None:
    import matplotlib.pyplot as plt

    if not values:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for target, vs in values.items():
        ax.hist(vs, bins=20, alpha=0.5, label=label(target))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("instances")
    ax.legend(fontsize=7)
    total = len(rows_of(result))
    shown = sum(map(len, values.values()))
    caption = _sentences(f"{shown:,} of {total:,} plotted rows: {_LEFT_OUT}, {needs}", sampling(result))
    return Plot(title, caption, _png(fig))


def retention(result: GateResult) -> Plot | None:
    return _histogram(result, "Stickiness: retained vs the optimum", "retained / max_retained",
                      retention_values(rows_of(result)), "with something to retain")


def balance(result: GateResult) -> Plot | None:
    return _histogram(result, "Balance: distance from the optimum", "Σ count² above the optimum (0 = optimally "
                      "balanced)", balance_values(rows_of(result)), "where the oracle computed the optimum")
