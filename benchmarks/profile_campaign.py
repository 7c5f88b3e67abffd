"""Where one campaign task's time goes: cProfile around `run_shards` inside a Spark task (a fresh session, so the
task's Python worker starts cold and its set-up is in the profile), then the same shard again in the same,
now warm, worker. Prints the phases (imports, target loading, generation, checking, the Parquet commit) and the
top functions by cumulative time.

    python -m benchmarks.profile_campaign [--master local[2] | spark://127.0.0.1:P] [--instances 500]
"""

from __future__ import annotations

import argparse
import sys
import tempfile

PHASES = {  # (file suffix, function): what the phase is
    ("<frozen importlib._bootstrap>", "_find_and_load"): "imports",
    ("diff_rows.py", "_target"): "target loading",
    ("generators.py", "generate"): "generation",
    ("check.py", "check_assignor"): "check_assignor",
    ("diff_rows.py", "check_row"): "check_row (check + row)",
    ("diff_shards.py", "_write_parquet_atomic"): "Parquet commit",
    ("diff_shards.py", "run_shard"): "the whole shard",
}


def _profiled(job: tuple[object, str, int]) -> list[str]:
    """Runs in the executor: one shard under cProfile, twice (cold worker, then warm)."""
    import cProfile
    import io
    import pstats
    import time

    from assigncheck.spark.diff_shards import run_shards

    spec, out, shard = job
    reports = []
    for attempt, name in enumerate(("cold", "warm")):
        profile = cProfile.Profile()
        cpu0 = time.process_time()
        profile.enable()
        list(run_shards(spec, f"{out}/{attempt}", [shard]))
        profile.disable()
        cpu = time.process_time() - cpu0
        stats = pstats.Stats(profile)
        phases = {}
        for (path, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
            for (suffix, wanted), label in PHASES.items():
                if func == wanted and path.endswith(suffix):
                    phases[label] = phases.get(label, 0.0) + ct
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(25)
        rows = spec.shard_size(shard)
        lines = [f"== {name} worker: {rows} rows, {cpu:.2f} CPU s ({cpu / rows * 1000:.2f} ms per row, profiled)"]
        lines += [f"   {label}: {seconds:.2f} s" for label, seconds in sorted(phases.items(), key=lambda kv: -kv[1])]
        reports.append("\n".join(lines) + "\n" + text.getvalue())
    return reports


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_campaign")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--instances", type=int, default=500, help="rows of the profiled shard")
    parser.add_argument("--target", default="range")
    args = parser.parse_args()
    from assigncheck.spark.diff_shards import CampaignSpec
    from assigncheck.spark.session import get_session

    spec = CampaignSpec((args.target,), "small", 5, args.instances, 1)
    sc = get_session(args.master).sparkContext
    with tempfile.TemporaryDirectory() as tmp:
        (reports,) = sc.parallelize([(spec, tmp, 0)], 1).map(_profiled).collect()
    sys.stdout.write("\n".join(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
