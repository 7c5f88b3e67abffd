"""Your own code, exported: a KIP-848 assignor compiled against kafka-group-coordinator-api alone (`java:` with its
classes on a classpath of their own) and a Python object (`module:Class`), each with a planted bug
(tests/fixtures/export_planted/buggy/: each topic dealt over every member, subscribed or not). Each finding's exported
test fails on the buggy code saying the rule it breaks, and passes once the code is fixed (fixed/: dealt over the
topic's subscribers), the same test, unchanged, run again."""

from __future__ import annotations

import json
import shutil
import subprocess

from assigncheck.ci.cli import main
from assigncheck.findings.export.rules import rule, say
from tests.findings.exports import export, run_maven, run_pytest
from tests.paths import TESTS

PLANTED = TESTS / "fixtures" / "export_planted"
API = "org.apache.kafka:kafka-group-coordinator-api:4.4.0"
JAVA_SOURCE = "com/example/group/DealingAssignor.java"
# Two members, each on a topic of its own: dealt over both members, one of them gets the other's topic.
GROUP = {"format": 1, "kind": "consumer", "group_type": "consumer", "topics": {"t0": 2, "t1": 2},
         "members": [{"id": "c0", "subscription": ["t0"]}, {"id": "c1", "subscription": ["t1"]}]}


def _reproducer(path, target: dict) -> str:
    doc = {**GROUP, "note": "a planted bug: each topic dealt over every member",
           "finding": {"target": target, "invariant": "H3", "stage": "properties", "seed": 0, "budget_s": 10.0}}
    path.write_text(json.dumps(doc, indent=1))
    return str(path)


def _broken(output: str) -> bool:
    """Whether `output` says H3's rule of one of the two members (which one takes the other's topic depends on the
    order of the topic ids)."""
    return any(say(rule("H3"), member=m, partition=f"{t}-{p}", topic=t) in output
               for m, t in (("c0", "t1"), ("c1", "t0")) for p in (0, 1))


def _javac(source_root, classes, classpath: str) -> None:
    classes.mkdir(exist_ok=True)
    done = subprocess.run(["javac", "-d", str(classes), "-cp", classpath, str(source_root / JAVA_SOURCE)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_your_kip848_assignor_red_on_its_bug_green_once_fixed(tmp_path):
    from assigncheck.toolchains import maven

    api = ":".join(maven.jars((API,)))
    classes = tmp_path / "classes"
    _javac(PLANTED / "buggy", classes, api)
    path = _reproducer(tmp_path / "dealing.json", {"spec": "java:com.example.group.DealingAssignor",
                                                   "classpath": [str(classes)], "maven": [API]})
    assert main(["replay", path, "--trust"]) == 1  # the finding is real: it breaks H3 on the buggy class
    out = tmp_path / "junit"
    export(path, "junit", out)
    red = run_maven(out)
    assert red.red and _broken(red.output), red.output[-3000:]
    shutil.rmtree(classes)
    _javac(PLANTED / "fixed", classes, api)  # the class fixed, on the same classpath; the test untouched
    green = run_maven(out)
    assert not green.red, green.output[-3000:]


def test_your_python_object_red_on_its_bug_green_once_fixed(tmp_path):
    module = tmp_path / "code"
    module.mkdir()
    shutil.copy(PLANTED / "buggy" / "planted_assignor.py", module)
    path = _reproducer(tmp_path / "dealing.json", {"spec": "planted_assignor:DealingAssignor"})
    (test,) = export(path, "pytest", tmp_path / "pytest", pythonpath=str(module))
    red = run_pytest(test.parent, pythonpath=str(module))
    assert red.red and _broken(red.output), red.output[-3000:]
    shutil.copy(PLANTED / "fixed" / "planted_assignor.py", module)  # the object fixed; the test untouched
    green = run_pytest(test.parent, pythonpath=str(module))
    assert not green.red, green.output[-3000:]


def test_your_python_object_that_follows_the_hash_seed_is_red_in_two_processes(tmp_path):
    """H8 across processes: the exported pytest runs the object in two fresh interpreters, started with the two values
    of PYTHONHASHSEED the finding records, red while its fill order is a set's (`set_order_target.SetOrder`), green once
    it fills in sorted order."""
    module = tmp_path / "code"
    module.mkdir()
    source = (TESTS / "fixtures" / "set_order_target.py").read_text()
    (module / "hash_order.py").write_text(source)
    doc = {"format": 1, "topics": {"t": 6}, "members": [{"id": f"m{i}", "subscription": ["t"]} for i in range(4)],
           "finding": {"target": {"spec": "hash_order:SetOrder"}, "invariant": "H8", "seed": 0, "cause": "processes",
                       "processes": {"env": "PYTHONHASHSEED", "values": ["1", "2"]}}}
    path = tmp_path / "hash-order.json"
    path.write_text(json.dumps(doc))
    (test,) = export(str(path), "pytest", tmp_path / "pytest", pythonpath=str(module))
    red = run_pytest(test.parent, pythonpath=str(module))
    assert red.red and "a process started with PYTHONHASHSEED=2" in red.output, red.output[-3000:]
    (module / "hash_order.py").write_text(source.replace("fill_sorted=False", "fill_sorted=True"))
    green = run_pytest(test.parent, pythonpath=str(module))
    assert not green.red, green.output[-3000:]
