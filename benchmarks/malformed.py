"""Malformed inputs for the CLI, and the reliability figures: `python -m benchmarks.malformed [-n N] [--seed S]`.

`case(rng, sandbox)` turns a `random.Random` into one command line (argument vector, standard input, the files
it names, written under `sandbox/in`) built from valid documents of every kind by JSON-ish mutations:
repeated keys, deep nesting, integers past 4300 digits, lone surrogates, NaN, wrong types, huge counts,
names with line breaks, truncation, binary bytes, other encodings; and from bad flag values, special
paths (`-`, /dev/zero, a FIFO, a directory, /proc) and bad output paths. `tests/ci/test_bad_input_fuzzed.py` draws the
`Random` from hypothesis; this script runs N seeded cases, each in its own `assigncheck` process, and
prints the exit codes, the peak resident memory of any one run, and the bytes written to disk.

The heavy verbs (prove, gate, campaign, fuzz) always get at least one bad flag value, so every case stops
at validation instead of running a proof or a gate; assign, check and replay run for real.
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import copy
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ASSIGNORS = ("range", "roundrobin", "sticky-constrained", "sticky-constrained-4phase", "sticky",
             "cooperative-sticky", "lag", "streams-sticky")
# Outside targets that import and run in-process; `cmd:` programs belong to the target tests.
TARGETS = (*ASSIGNORS, "os:getcwd", "builtins:print", "builtins:len", "no.such.module:X", "json:loads:x",
           "assigncheck.spec.reference.range:RangeReference", "cmd:'unterminated", "cmd:", ":x", "x:",
           "tests.fixtures.broken_assignors:CeilingForAllSticky", "", " ")
PROMISES = ("balance=perfect", "balance=", "balance=optimal", "stickiness=max_retained", "stickiness=",
            "fixpoint", "fixpoint=maybe", "exact=range", "exact=", "exact=nope", "max_rounds=2", "max_rounds=x",
            "per_topic_spread", "bogus", "=", ",,", "eager=false", "balance=perfect\u2028x")
LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x00", "\x1b[2J")
BAD_SECONDS = ("nan", "inf", "-inf", "-1", "0", "1e999", "", "x", "1e6")


# ---- valid documents -----------------------------------------------------------------------------------


def _problem(rng: random.Random) -> dict[str, Any]:
    topics = {f"t{i}": rng.randint(0, 6) for i in range(rng.randint(1, 3))}
    members = []
    for i in range(rng.randint(1, 4)):
        owned = {t: rng.sample(range(n), rng.randint(0, n)) for t, n in topics.items() if n and rng.random() < 0.5}
        member: dict[str, Any] = {"id": f"c{i}", "subscription": sorted(rng.sample(sorted(topics),
                                                                                   rng.randint(0, len(topics))))}
        if owned:
            member.update(owned=owned, generation=rng.randint(1, 3))
        if rng.random() < 0.3:
            member["rack"] = rng.choice(("r1", "r2"))
        if rng.random() < 0.2:
            member["instance_id"] = f"i{i}"
        members.append(member)
    doc: dict[str, Any] = {"format": 1, "kind": "consumer", "protocol": rng.choice(("eager", "cooperative")),
                           "topics": topics, "members": members}
    if rng.random() < 0.3:
        doc["partition_racks"] = {t: [["r1"] for _ in range(n)] for t, n in topics.items()}
    if rng.random() < 0.3:
        doc["lag"] = {"auto_offset_reset": rng.choice(("latest", "earliest", "none")),
                      "offsets": {t: {"begin": [0] * n, "end": [rng.randint(0, 9) for _ in range(n)],
                                      "committed": [rng.choice((None, 0, 3, 20)) for _ in range(n)]}
                                  for t, n in topics.items()}}
    return doc


def _streams(rng: random.Random) -> dict[str, Any]:
    return {"format": 1, "kind": "streams", "subtopologies": {"s0": rng.randint(0, 5), "s1": rng.randint(0, 3)},
            "clients": [{"id": f"A{i}", "capacity": rng.randint(1, 3), "active": {"s0": [i]}}
                        for i in range(rng.randint(1, 3))]}


def _assignment(rng: random.Random, problem: dict[str, Any]) -> dict[str, Any]:
    ids = [m["id"] for m in problem.get("members", [])] or ["c0"]
    out: dict[str, dict[str, list[int]]] = {m: {} for m in ids}
    for t, n in problem.get("topics", {}).items():
        for p in range(n):
            out[rng.choice(ids)].setdefault(t, []).append(p)
    return {"format": 1, "assignment": out}


def _reproducer(rng: random.Random) -> dict[str, Any]:
    doc = _problem(rng)
    target = rng.choice(("range", "sticky", "tests.fixtures.broken_assignors:CeilingForAllSticky", "nope"))
    doc["note"] = f"fuzz finding; target={target}; invariant={rng.choice(('H4', 'balance.perfect', 'x'))}; message=m"
    return doc


def _codec(rng: random.Random) -> dict[str, Any]:
    data = base64.b64encode(rng.randbytes(rng.randint(0, 24))).decode()
    return {"target": rng.choice(("codec:subscription", "codec:assignment", "codec:nope")),
            "invariant": "codec.crash", "input_base64": rng.choice((data, "!!not base64", 7))}


def _scenario(rng: random.Random) -> dict[str, Any]:
    initial = _problem(rng)
    initial["protocol"] = "eager"
    return {"format": 1, "kind": "scenario", "initial": initial,
            "steps": [{"leave": "c0"}, {"add_partitions": {"topic": "t0", "count": 8}}]}


# ---- mutations -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Raw:
    """Text spliced into the document as is (what json.dumps cannot or will not write)."""

    text: str


@dataclass
class Repeated:
    """An object written with one of its keys twice (the first value then the real one)."""

    obj: dict[str, Any]
    key: str
    first: Any = field(default=None)


def dumps(node: Any) -> str:
    """JSON text of a tree that may hold `Raw` and `Repeated` nodes."""
    if isinstance(node, Raw):
        return node.text
    if isinstance(node, Repeated):
        pairs = [(node.key, node.first), *node.obj.items()]
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {dumps(v)}" for k, v in pairs) + "}"
    if isinstance(node, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {dumps(v)}" for k, v in node.items()) + "}"
    if isinstance(node, list):
        return "[" + ", ".join(dumps(v) for v in node) + "]"
    return json.dumps(node, ensure_ascii=False)


def _spots(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into the tree (the root included)."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _spots(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _spots(v, (*path, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


def _nasty_value(rng: random.Random) -> Any:
    return rng.choice([
        Raw("9" * rng.choice((4299, 4301, 20000))), Raw(rng.choice(("NaN", "Infinity", "-Infinity", "1e999"))),
        2**31 - 1, 2**31, -(2**31) - 1, 2**63, 10**8, 10**30, -1, 0, 1.0, 0.5, True, False, None, "", "x" * 10_000,
        Raw('"\\ud800"'), Raw('"a\\udfffb"'), f"n{rng.choice(LINE_BREAKS)}m", [], {}, [[[]]], {"format": 1},
    ])


def _nested(value: Any, rng: random.Random) -> Any:
    depth = rng.choice((62, 63, 64, 65, 999, 5000, 100_000))
    return Raw("[" * depth + dumps(value) + "]" * depth)


def mutate_tree(doc: Any, rng: random.Random) -> Any:
    """One to three edits at random places: a nasty value, a repeated key, deep nesting, a dropped or an
    unknown field, a renamed key with a line break, a huge count."""
    for _ in range(rng.randint(1, 3)):
        spots = _spots(doc)
        path = rng.choice(spots)
        edit = rng.randrange(8)
        parent = _get(doc, path[:-1]) if path else None
        if not path:  # the root itself
            doc = rng.choice((_nested(doc, rng), [doc, doc], Raw(dumps(doc) * 2), "just a string", 1))
            continue
        if isinstance(parent, Repeated | Raw):
            continue
        key = path[-1]
        if edit == 0:
            parent[key] = _nasty_value(rng)
        elif edit == 1 and isinstance(parent, dict):
            parent_of = _get(doc, path[:-2]) if len(path) > 1 else None
            repeated = Repeated(dict(parent), key, _nasty_value(rng) if rng.random() < 0.5 else parent[key])
            if parent_of is None:
                doc = repeated
            else:
                parent_of[path[-2]] = repeated
        elif edit == 2:
            parent[key] = _nested(parent[key], rng)
        elif edit == 3 and isinstance(parent, dict):
            del parent[key]
        elif edit == 4 and isinstance(parent, dict):
            parent[f"extra{rng.choice(LINE_BREAKS)}field"] = 1
        elif edit == 5 and isinstance(parent, dict):
            parent[f"{key}{rng.choice(LINE_BREAKS)}"] = parent.pop(key)
        elif edit == 6:
            parent[key] = rng.choice((2**31 - 1, 10**8, 10_000_001, 100_001, 10**9))
        else:
            parent[key] = rng.choice(("", "1", 1.5, [1, "a"], {"a": None}, None, True))
    return doc


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage: truncation, junk bytes, a BOM, other encodings, several documents, nothing."""
    edit = rng.randrange(10)
    if edit == 0 and data:
        return data[: rng.randrange(len(data))]
    if edit == 1:
        at = rng.randrange(len(data) + 1)
        return data[:at] + rng.randbytes(rng.randint(1, 8)) + data[at:]
    if edit == 2:
        return b"\xef\xbb\xbf" + data
    if edit == 3:
        return data.decode("utf-8", "replace").encode(rng.choice(("utf-16", "utf-32", "latin-1")), "replace")
    if edit == 4:
        return data + b"\n" + data  # JSON lines
    if edit == 5:
        return rng.choice((b"", b" \n\t", b"\x00" * 64, rng.randbytes(rng.randint(1, 256)), b"null", b"[]", b"{}"))
    return data


# ---- command lines -------------------------------------------------------------------------------------


@dataclass
class Case:
    argv: list[str]
    stdin: bytes = b""
    kind: str = ""  # what was generated, for the figures


def _file(rng: random.Random, sandbox: Path, make: Any, label: str, stdin: list[bytes]) -> str:
    """A path for a document built by `make(rng)`, mutated or not, or a special path."""
    special = rng.random()
    if special < 0.06:
        return rng.choice(("/dev/zero", "/dev/null", "/proc/self/status", str(sandbox / "in"), str(sandbox / "missing"),
                           str(sandbox / "in" / "fifo")))
    doc = copy.deepcopy(make(rng))
    if rng.random() < 0.5:  # half the documents stay valid, so assignors and checks run to exit 0 or 1 too
        doc = mutate_tree(doc, rng)
    data = dumps(doc).encode("utf-8", "surrogatepass")
    if rng.random() < 0.15:
        data = mutate_bytes(data, rng)
    if special < 0.12 and not stdin:
        stdin.append(data)
        return "-"
    path = sandbox / "in" / f"{label}-{rng.randrange(10**9)}.json"
    path.write_bytes(data)
    return str(path)


def _output(rng: random.Random, sandbox: Path, *, directory: bool) -> str:
    good = sandbox / "out" / f"o{rng.randrange(10**6)}"
    return rng.choice([str(good), str(good) + ".json", "", "/dev/full", "/dev/null", "/proc/x/y", str(sandbox / "in"),
                       str(sandbox / "in" / "a-file" / "sub"), str(sandbox / "in" / "a-file")] if directory else
                      [str(good) + ".json", "", "/dev/full", "/proc/x/y.json", str(sandbox / "in"),
                       str(sandbox / "in" / "a-file" / "sub.json")])


def _heavy(rng: random.Random, sandbox: Path) -> list[str]:
    """prove, gate, campaign or fuzz with at least one bad value: validation must stop it."""
    verb = rng.choice(("prove", "gate", "campaign diff", "campaign fuzz", "fuzz"))
    bad = {
        "prove": [["--seconds", rng.choice(BAD_SECONDS)], ["--members", rng.choice(("0", "65", "1e3", "-3", ""))],
                  ["--partitions", rng.choice(("0", "257", "x"))], ["--jobs", rng.choice(("0", "10000", "-1"))],
                  ["--out", rng.choice(("", "/dev/full", str(sandbox / "in" / "a-file")))],
                  ["--members", "64", "--partitions", "256", "--topics", "8"], ["--assignor", ""],
                  ["--promises", rng.choice(("balance=", "fixpoint=maybe", "exact=", "exact=nope", "bogus", "="))],
                  ["--protocol", "sideways"]],
        "gate": [["--stages", rng.choice(("", ",", "magic", "properties,\n"))], ["--report-dir", rng.choice(
                  ("", "/dev/full", "/proc/x", str(sandbox / "in" / "a-file")))], ["--profile", "huge"],
                 ["--seed", rng.choice(("-1", "2147483648", "x"))],
                 ["--master", rng.choice(("nope://x", "", "local[x]"))],
                 ["--target", rng.choice(("", "no.such:X", "cmd:'x"))], ["--promises", "balance="]],
        "campaign diff": [["--instances", rng.choice(("-1", "100000001", "x"))], ["--shards", "0"],
                          ["--out", rng.choice(("", "/dev/full", "/proc/x", str(sandbox / "in" / "a-file")))],
                          ["--master", "nope://x"], ["--profile", "tiny"], ["--seed", "-5"]],
        "campaign fuzz": [["--rounds", "0"], ["--tasks", "100000"], ["--seconds", "0"], ["--out", ""],
                          ["--master", "yarn-ish"]],
        "fuzz": [["--seconds", rng.choice(BAD_SECONDS[:-1])], ["--jobs", "10000"], ["--max-len", "0"],
                 ["--out", rng.choice(("", "/dev/full", str(sandbox / "in" / "a-file")))], ["--budget", "nan"],
                 ["--target", ""], ["--engine", "afl"]],
    }[verb]
    flags = [x for pair in rng.sample(bad, rng.randint(1, min(3, len(bad)))) for x in pair]
    base = {"prove": ["--assignor", "range"], "gate": ["--target", "range", "--stages", "properties",
                                                      "--report-dir", str(sandbox / "out" / "gate")],
            "campaign diff": ["--target", "range", "--instances", "4", "--out", str(sandbox / "out" / "c")],
            "campaign fuzz": ["--target", "range", "--out", str(sandbox / "out" / "f")],
            "fuzz": ["--target", "range", "--seconds", "1", "--out", str(sandbox / "out" / "z")]}[verb]
    # argparse keeps the last value of a repeated flag: the bad values go last
    return [*verb.split(), *base, *flags]


def case(rng: random.Random, sandbox: Path) -> Case:
    """One command line (and its standard input) from `rng`; its files go under `sandbox/in`."""
    stdin: list[bytes] = []
    pick = rng.random()
    if pick < 0.35:
        make = rng.choice((_problem, _problem, _streams))
        who = (["--assignor", rng.choice(ASSIGNORS)] if rng.random() < 0.7 else ["--target", rng.choice(TARGETS)])
        argv = ["assign", *who, _file(rng, sandbox, make, "problem", stdin)] + (["--pretty"] * (rng.random() < 0.2))
        kind = "assign"
    elif pick < 0.6:
        problem = _problem(rng)
        argv = ["check", _file(rng, sandbox, lambda r: problem, "problem", stdin),
                _file(rng, sandbox, lambda r: _assignment(r, problem), "assignment", stdin)]
        if rng.random() < 0.5:
            argv += ["--promises", ",".join(rng.sample(PROMISES, rng.randint(1, 3)))]
        argv += ["--json"] * (rng.random() < 0.3) + ["--no-oracle"] * (rng.random() < 0.3)
        kind = "check"
    elif pick < 0.8:
        make = rng.choice((_reproducer, _reproducer, _codec, _problem, _scenario))
        argv = ["replay", _file(rng, sandbox, make, "reproducer", stdin)]
        if rng.random() < 0.4:
            argv += ["--target", rng.choice(TARGETS)]
        if rng.random() < 0.4:
            argv += ["--budget", rng.choice((*BAD_SECONDS, "2", "0.5"))]
        if rng.random() < 0.3:
            argv += ["--minimize", _output(rng, sandbox, directory=False)]
        kind = "replay"
    elif pick < 0.93:
        argv, kind = _heavy(rng, sandbox), "validation"
    else:
        argv = rng.choice((["list"], ["--version"], ["assign"], ["check", "x"], ["nope"], [], ["assign", "--bogus"],
                           ["campaign", "show-row", rng.choice(("small/1/2/3", "churn/0/0/1", "x", "small/-1/0/0",
                                                                "small/1/2", "huge/1/1/1", "small/1/2/3\n"))]))
        kind = "usage"
    return Case(argv, stdin[0] if stdin else b"", kind)


def prepare(sandbox: Path) -> None:
    """The sandbox's fixed inputs: a FIFO (which must be refused, not waited on) and a plain file."""
    (sandbox / "in").mkdir(parents=True, exist_ok=True)
    (sandbox / "out").mkdir(exist_ok=True)
    if not (sandbox / "in" / "fifo").exists():
        os.mkfifo(sandbox / "in" / "fifo")
    (sandbox / "in" / "a-file").write_text("an existing file\n")


def outcome_problems(rc: int, out: str, err: str) -> list[str]:
    """What is wrong with one run's result: exit codes 0/1/2 only, no traceback, one line for exit 2
    (argparse's usage errors excepted: they start with its usage line)."""
    problems = []
    if rc not in (0, 1, 2):
        problems.append(f"exit code {rc}")
    if "Traceback" in err or "Traceback" in out:
        problems.append("a traceback")
    if rc == 2 and not err.startswith("usage:") and len(err.strip().splitlines()) != 1:
        problems.append(f"{len(err.strip().splitlines())} lines on stderr")
    return problems


# ---- the figures ---------------------------------------------------------------------------------------


def _tree_bytes(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def _run(cli: str, c: Case, sandbox: Path, timeout: float, stdin_file: str | None = None) -> dict[str, Any]:
    """One `assigncheck` process: exit code, output, seconds, and its own peak RSS and blocks written
    (os.wait4 gives this child's rusage; RUSAGE_CHILDREN would only give the running maximum). Linux keeps
    the RSS high-water mark across exec, so a figure is never below this process's own RSS (~30 MiB)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    source = open(stdin_file, "rb") if stdin_file else subprocess.PIPE  # noqa: SIM115 - closed below
    t0 = time.perf_counter()
    proc = subprocess.Popen([cli, *c.argv], stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=sandbox, env=env)
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    chunks: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda n=name, f=f: chunks.__setitem__(n, f.read()))
               for name, f in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    if proc.stdin is not None:
        try:
            proc.stdin.write(c.stdin)
            proc.stdin.close()
        except BrokenPipeError:  # it stopped reading: a refused input
            pass
    for t in readers:
        t.join()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    hung = not killer.is_alive() and proc.returncode < 0
    killer.cancel()
    if stdin_file:
        source.close()  # type: ignore[union-attr]
    return {"rc": -1 if hung else proc.returncode, "out": chunks["out"].decode(errors="replace"),
            "err": "timeout" if hung else chunks["err"].decode(errors="replace"),
            "seconds": time.perf_counter() - t0, "peak_mib": usage.ru_maxrss / 1024,
            "written": usage.ru_oublock * 512}


def run_in_process(c: Case, limit_s: float = 30.0) -> tuple[int, str, str]:
    """`assigncheck.ci.cli.main(c.argv)` in this process, `c.stdin` as standard input; SystemExit (argparse,
    --version) counts as the exit code. A watchdog sends SIGINT after `limit_s`: main then answers 130,
    which `outcome_problems` refuses, so a hang fails instead of stalling."""
    from assigncheck.ci.cli import main as cli_main

    out, err = io.StringIO(), io.StringIO()
    stdin, path = sys.stdin, list(sys.path)
    sys.stdin = io.TextIOWrapper(io.BytesIO(c.stdin))
    watchdog = threading.Timer(limit_s, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    watchdog.start()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli_main(c.argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    finally:
        watchdog.cancel()
        sys.stdin, sys.path[:] = stdin, path
    return rc, out.getvalue(), err.getvalue()


def measure_in_process(n: int, seed: int, sandbox: Path) -> dict[str, Any]:
    """Many more cases than processes allow: exit codes and bad outcomes only (memory and disk are per process)."""
    prepare(sandbox)
    cwd = Path.cwd()
    os.chdir(sandbox)
    rng = random.Random(seed)
    codes: collections.Counter[str] = collections.Counter()
    bad: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        for _ in range(n):
            c = case(rng, sandbox)
            rc, out, err = run_in_process(c)
            codes[str(rc)] += 1
            if problems := outcome_problems(rc, out, err):
                bad.append({"argv": c.argv, "rc": rc, "problems": problems, "stderr": err[-400:]})
            for p in (sandbox / "in").glob("*-*.json"):  # keep the sandbox small: inputs are written per case
                p.unlink()
    finally:
        os.chdir(cwd)
    stray = sorted(str(p.relative_to(sandbox)) for p in sandbox.iterdir() if p.name not in ("in", "out"))
    return {"cases": n, "seed": seed, "in_process": True, "seconds": round(time.perf_counter() - started, 1),
            "exit_codes": dict(sorted(codes.items())), "bad_outcomes": bad, "stray_paths_in_cwd": stray}


def worst_cases(sandbox: Path) -> list[tuple[str, Case, str | None]]:
    """Fixed inputs at the edges: the largest admissible file, endless standard input, huge counts."""
    big = sandbox / "in" / "largest-admissible.json"
    head, tail = b'{"format": 1, "assignment": {"c0": {"t": [', b"0]}}}\n"
    from assigncheck.spec.limits import MAX_INPUT_BYTES

    claims = (MAX_INPUT_BYTES - len(head) - len(tail)) // 2
    with open(big, "wb") as f:  # just under the cap: 2 bytes per claim, ~67 M claims to parse
        f.write(head)
        for _ in range(claims // 2**20):  # in chunks: a child's ru_maxrss starts at this process's peak
            f.write(b"0," * 2**20)
        f.write(b"0," * (claims % 2**20) + tail)
    problem = sandbox / "in" / "small-problem.json"
    problem.write_text(json.dumps({"format": 1, "topics": {"t": 4}, "members": [{"id": "c0", "subscription": ["t"]}]}))
    huge = sandbox / "in" / "two-billion-partitions.json"
    huge.write_text(json.dumps({"format": 1, "topics": {"t": 2**31 - 1},
                                "members": [{"id": "c0", "subscription": ["t"]}]}))
    tasks = sandbox / "in" / "hundred-million-tasks.json"
    tasks.write_text(json.dumps({"format": 1, "kind": "streams", "subtopologies": {"s": 10**8},
                                 "clients": [{"id": "A", "capacity": 1}]}))
    return [
        ("check: a 128 MiB assignment (67 M claims)", Case(["check", str(problem), str(big)]), None),
        ("assign - < /dev/zero", Case(["assign", "--assignor", "range", "-"]), "/dev/zero"),
        ("assign /dev/zero", Case(["assign", "--assignor", "range", "/dev/zero"]), None),
        ("assign: 2^31 - 1 partitions", Case(["assign", "--assignor", "range", str(huge)]), None),
        ("assign: 10^8 Streams tasks", Case(["assign", "--assignor", "streams-sticky", str(tasks)]), None),
    ]


def measure(n: int, seed: int, sandbox: Path, timeout: float = 120.0) -> dict[str, Any]:
    """Run `n` cases in separate `assigncheck` processes, then the worst cases; the figures for the README's
    reliability section."""
    cli = str(Path(sys.executable).with_name("assigncheck"))
    prepare(sandbox)
    rng = random.Random(seed)
    codes: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    bad: list[dict[str, Any]] = []
    peaks: list[float] = []
    slowest = (0.0, "")
    written = 0
    started = time.perf_counter()

    def one(c: Case, stdin_file: str | None = None) -> dict[str, Any]:
        nonlocal written
        r = _run(cli, c, sandbox, timeout, stdin_file)
        written += r["written"]
        problems = outcome_problems(r["rc"], r["out"], r["err"]) + (["a hang"] if r["rc"] == -1 else [])
        if problems:
            bad.append({"argv": c.argv, "rc": r["rc"], "problems": problems, "stderr": r["err"][-400:]})
        return r

    for _ in range(n):
        c = case(rng, sandbox)
        kinds[c.kind] += 1
        r = one(c)
        codes[str(r["rc"])] += 1
        slowest = max(slowest, (r["seconds"], " ".join(c.argv)[:160]))
        peaks.append(r["peak_mib"])
    edges = {}
    for label, c, stdin_file in worst_cases(sandbox):
        r = one(c, stdin_file)
        edges[label] = {"exit": r["rc"], "seconds": round(r["seconds"], 2), "stderr": r["err"].strip()[:160],
                        "peak_rss_mib": round(r["peak_mib"], 1)}
    outputs, output_bytes = _tree_bytes(sandbox / "out")
    stray = sorted(str(p.relative_to(sandbox)) for p in sandbox.iterdir() if p.name not in ("in", "out"))
    return {
        "cases": n, "seed": seed, "seconds": round(time.perf_counter() - started, 1), "by_kind": dict(kinds),
        "exit_codes": dict(sorted(codes.items())), "bad_outcomes": bad,
        "slowest_case_s": round(slowest[0], 2), "slowest_case": slowest[1],
        "peak_rss_mib_random_cases": {"median": round(sorted(peaks)[len(peaks) // 2], 1) if peaks else None,
                                      "max": round(max(peaks), 1) if peaks else None},
        "worst_cases": edges, "disk_written_by_all_runs_bytes": written,
        "files_left_in_out": outputs, "bytes_left_in_out": output_bytes,
        "stray_paths_in_cwd": stray, "dev_full_is_a_device": Path("/dev/full").is_char_device(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.malformed", description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=400, help="cases to run (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sandbox", type=Path, default=None, help="working directory (default: a fresh temp dir)")
    parser.add_argument("--in-process", action="store_true",
                        help="call the CLI's main() in this process: many more cases, exit codes only")
    args = parser.parse_args()
    import tempfile

    from benchmarks import record

    started = record.begin()
    sandbox = args.sandbox or Path(tempfile.mkdtemp(prefix="assigncheck-malformed-"))
    try:
        figures = (measure_in_process if args.in_process else measure)(args.n, args.seed, sandbox)
    finally:
        if args.sandbox is None:
            shutil.rmtree(sandbox, ignore_errors=True)
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    kinds = collections.Counter("stderr" if p.endswith("stderr") else p
                                for b in figures["bad_outcomes"] for p in b["problems"])
    summary = {k: v for k, v in figures.items() if k != "bad_outcomes"}
    row = {**summary, "bad_outcomes": len(figures["bad_outcomes"]), "bad_by_kind": dict(kinds),
           "tracebacks": kinds.get("a traceback", 0), "hangs": kinds.get("a hang", 0),
           "stderr_over_one_line": kinds.get("stderr", 0)}
    record.save("malformed", started.finish([row], variant="in-process" if args.in_process else "processes"))
    return 1 if figures["bad_outcomes"] or figures["stray_paths_in_cwd"] else 0


if __name__ == "__main__":
    sys.exit(main())
