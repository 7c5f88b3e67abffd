"""`assigncheck live`: the spec checked on real consumer groups, on a real Kafka broker, with real clients.

For each client (and each group protocol it speaks, or those `--protocol` names) a seeded schedule runs on one
broker (a fresh single-node KRaft broker of ours, or `--bootstrap-server`); every distinct violation is written
as a reproducer under `--report-dir` and replayed in a fresh process on a fresh broker: only a confirmed finding
fails (exit 1). `--minimize` then shortens a confirmed finding's schedule while it still fails.
"""

from __future__ import annotations

import argparse
import os
import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assigncheck.ci import flag_types
from assigncheck.spec.errors import InputError

if TYPE_CHECKING:  # the live modules load with the verb, not with the CLI
    from assigncheck.live.run import Client
    from assigncheck.live.schedule import Schedule
    from assigncheck.live.session import LiveSpec

MAX_STEPS = 40
REPLAY_S = 300.0  # a fresh broker, JVM members, and the schedule: plus each step's convergence limit
_HOST_PORT = re.compile(r"[A-Za-z0-9._-]+:\d{1,5}")


def bootstrap_server(text: str) -> str:
    if not _HOST_PORT.fullmatch(text) or not 0 < int(text.rsplit(":", 1)[1]) < 65536:
        raise InputError("", f"{text!r} is not HOST:PORT")
    return text


def register(subparsers: argparse._SubParsersAction) -> None:
    from assigncheck.live.members import CLIENTS
    from assigncheck.live.run import CONVERGE_S

    parser = subparsers.add_parser("live", help="run seeded schedules on real consumer groups on a real broker, "
                                                "and check them")
    parser.add_argument("--client", action="append", choices=sorted(CLIENTS),
                        help="a client library (repeatable; default: every one)")
    parser.add_argument("--protocol", action="append", choices=("classic", "consumer"),
                        help="a group protocol (repeatable; default: every one the client speaks)")
    parser.add_argument("--assignor", type=flag_types.nonempty,
                        help="with one --client and one --protocol: the assignor (a ConsumerPartitionAssignor class "
                             "for java classic, a name for the others; KIP-848: group.remote.assignor); default: "
                             "the client's default")
    parser.add_argument("--classpath", metavar="JARS", default=None,
                        help="with --client java: jars or directories (os.pathsep-separated) holding the --assignor "
                             "class, put first on the Java members' classpath")
    parser.add_argument("--seed", type=flag_types.int_in(0, 2**31 - 1), default=0, help="the schedule's seed")
    parser.add_argument("--steps", type=flag_types.int_in(1, MAX_STEPS), default=4,
                        help="changes after the initial joins (default 4)")
    parser.add_argument("--promises", type=flag_types.promises, default=None,
                        help="what the group's assignment is held to at each stable point (default: the assignor's)")
    parser.add_argument("--converge", type=flag_types.seconds(1.0), default=CONVERGE_S, metavar="S",
                        help=f"seconds a change may take to reach a stable point (default {CONVERGE_S:g})")
    parser.add_argument("--bootstrap-server", type=bootstrap_server, metavar="HOST:PORT",
                        help="use this cluster instead of starting a broker (replays still start a fresh one)")
    parser.add_argument("--report-dir", type=flag_types.nonempty, default="reports/live", metavar="DIR",
                        help="where reproducers go (default reports/live)")
    parser.add_argument("--minimize", action="store_true",
                        help="shorten each confirmed finding's schedule (one live run per step tried)")
    parser.set_defaults(run=run)


def _runs(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    from assigncheck.live.members import CLIENTS, DEFAULT_ASSIGNOR

    clients = args.client or sorted(CLIENTS)
    runs = [(c, p, DEFAULT_ASSIGNOR[c, p]) for c in clients for p in CLIENTS[c]
            if args.protocol is None or p in args.protocol]
    if not runs:
        raise InputError("--protocol", f"{', '.join(clients)} speak{'s' if len(clients) == 1 else ''} "
                                       f"none of {', '.join(args.protocol)}")
    if args.assignor is not None:
        if len(runs) != 1:
            raise InputError("--assignor", "needs exactly one --client and one --protocol it speaks")
        runs = [(runs[0][0], runs[0][1], args.assignor)]
    return runs


def _breaks(invariant: str, bootstrap: str | None, spec: Any) -> bool:
    """Does a live run of `spec` break `invariant` again (a shorter schedule, while minimizing)?"""
    from assigncheck.live import session

    return any(w.invariant == invariant for _, w in session.check_live(spec, bootstrap).violations)


def confirm(path: Path, timeout_s: float) -> tuple[bool, str]:
    """Replay a reproducer once in a fresh process (on a fresh broker: a run of its schedule takes a while): (does
    it break again, what replay said)."""
    from assigncheck.findings.confirm import replay_in_fresh_process

    code, answer, err = replay_in_fresh_process(str(path), timeout_s, times=1)
    if code == 1:
        return True, ""
    return False, (answer or {}).get("summary") or err or f"exit code {code}"


def run(args: argparse.Namespace) -> int:
    from assigncheck.ci.engines import require

    require("assigncheck live", "confluent_kafka", "kafka", "aiokafka")
    from assigncheck.live.broker import Broker
    from assigncheck.live.run import Client
    from assigncheck.live.schedule import generate

    runs = _runs(args)
    classpath = _classpath(args, runs)
    out = flag_types.output_dir(args.report_dir, "--report-dir")
    schedule = generate(args.seed, args.steps)
    failed = False
    broker = None if args.bootstrap_server else Broker()
    try:
        bootstrap = args.bootstrap_server or broker.bootstrap  # type: ignore[union-attr]
        for client, protocol, assignor in runs:
            failed |= _group(args, Client(client, protocol, assignor, classpath), schedule, bootstrap, out)
    finally:
        if broker is not None:
            broker.stop()
    print(f"live: schedule seed {args.seed}, {len(runs)} group{'s' if len(runs) != 1 else ''}: "
          f"{'a confirmed finding' if failed else 'no confirmed finding'}")
    return 1 if failed else 0


def _classpath(args: argparse.Namespace, runs: list[tuple[str, str, str]]) -> tuple[str, ...]:
    from assigncheck.toolchains.java_build import resolve_classpath

    classpath = tuple(p for p in (args.classpath or "").split(os.pathsep) if p)
    if classpath and any(c != "java" for c, _, _ in runs):
        raise InputError("--classpath", "applies to --client java only")
    return resolve_classpath(classpath)  # absolute (a reproducer replays from anywhere), each checked before a read


def _group(args: argparse.Namespace, client: Client, schedule: Schedule, bootstrap: str, out: Path) -> bool:
    """Run the schedule with one client and report it: does it have a confirmed finding?"""
    from assigncheck.formats.bounded import shown
    from assigncheck.live import session

    spec = session.LiveSpec(client, schedule, args.seed, args.promises, args.converge)
    result = session.check_live(spec, bootstrap)
    head = (f"{spec.client}: {len(schedule.steps)} steps, {len(result.outcome.points)} stable points, "
            f"promises {spec.enforced().to_text() or 'none'}, {result.seconds:.0f} s")
    if not result.violations:
        print(f"✓ {head}")
        return False
    print(f"✗ {head}")
    failed = False
    for path, (step, v) in zip(session.write_reproducers(result, out), session.distinct(result)):
        confirmed, said = confirm(path, REPLAY_S + len(schedule.steps) * args.converge)
        failed |= confirmed
        where = "callback timelines" if step is None else f"after step {step}"
        print(f"    {v.invariant} ({where}): {shown(v.message)}")
        print(f"    reproducer: {path} ({'confirmed' if confirmed else f'unconfirmed: {said}'})")
        if confirmed and args.minimize:
            _minimize(spec, v.invariant, bootstrap, out)
    return failed


def _minimize(spec: LiveSpec, invariant: str, bootstrap: str, out: Path) -> None:
    """Shorten a confirmed finding's schedule while it breaks `invariant`, and write the shorter reproducer."""
    from assigncheck.live import session

    shorter = session.minimize(spec, partial(_breaks, invariant, bootstrap))
    again = session.check_live(shorter, bootstrap)
    kept = [p for p, (_, w) in zip(session.write_reproducers(again, out), session.distinct(again))
            if w.invariant == invariant]
    print(f"    minimized to {len(shorter.schedule.steps)} of {len(spec.schedule.steps)} steps: "
          f"{kept[0] if kept else 'did not fail again on its last run'}")
