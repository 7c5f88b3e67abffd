"""docs/TARGETS.md's example class is a working target: the gate passes it as the page says, and the page's classic
bug (raw claims instead of the valid ones) fails it with reproducers that match reproducer.json and replay. Its
JavaScript example (examples/kafkajs-assigner/, shown whole on the page) passes the gate in `node --test`, and its
planted bug fails it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema

from assigncheck.formats.documents import load_json
from assigncheck.formats.schemas import schema
from tests.paths import ROOT

ASSIGNCHECK = str(Path(sys.executable).with_name("assigncheck"))


def example() -> str:
    text = (ROOT / "docs" / "TARGETS.md").read_text()
    return re.search(r"<!-- example: topic_sticky\.py -->\n```python\n(.*?)```", text, re.S)[1]


def test_the_example_passes_and_its_classic_bug_fails_with_reproducers_that_replay(tmp_path):
    code = example()
    (tmp_path / "topic_sticky.py").write_text(code)
    bug = "valid = {m.member_id: m.owned for m in problem.members}"
    buggy = re.sub(r"valid = valid_owned\(problem\)", bug, code).replace('"topic-sticky"', '"topic-sticky-raw"')
    assert bug in buggy
    (tmp_path / "raw_claims.py").write_text(buggy)
    run = subprocess.run([ASSIGNCHECK, "gate", "--stages", "properties", "--report-dir", "reports",
                          "--target", "topic_sticky:TopicStickyAssignor", "--target", "raw_claims:TopicStickyAssignor"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr  # the buggy one fails the gate
    reproducers = sorted((tmp_path / "reports" / "reproducers").glob("*.json"))
    assert reproducers, run.stdout
    validator = jsonschema.Draft202012Validator(schema("reproducer"))
    specs = set()
    for path in reproducers:
        doc = load_json(path)
        assert validator.is_valid(doc), [e.message for e in validator.iter_errors(doc)]
        specs.add(doc["finding"]["target"]["spec"])
    assert specs == {"raw_claims:TopicStickyAssignor"}  # the example itself has no finding
    assert {load_json(p)["finding"]["invariant"] for p in reproducers} & {"H2", "H4", "H5"}
    replay = subprocess.run([ASSIGNCHECK, "replay", str(reproducers[0])], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert replay.returncode == 1, replay.stdout + replay.stderr  # still reproduces, from the file alone


JS_EXAMPLE = ROOT / "examples" / "kafkajs-assigner"


def test_the_javascript_section_shows_the_example_make_test_runs():
    text = (ROOT / "docs" / "TARGETS.md").read_text()
    for name in ("assigner.js", "gate.test.js"):
        marker = f"<!-- example: examples/kafkajs-assigner/{name} -->"
        shown = re.search(rf"{re.escape(marker)}\n```js\n(.*?)```", text, re.S)
        assert shown is not None, name
        assert shown[1] == (JS_EXAMPLE / name).read_text(), f"docs/TARGETS.md shows another {name}"
    planted = (JS_EXAMPLE / "planted-bug.js").read_text()
    assert "cluster.addMultipleTargetTopics" in (JS_EXAMPLE / "assigner.js").read_text()
    assert "await cluster.addMultipleTargetTopics" not in planted  # the one line the bug removes


def test_the_javascript_example_passes_and_its_planted_bug_fails(js_installed, tmp_path):
    # node --test runs gate.test.js: the gate passes assigner.js and fails planted-bug.js with reproducers.
    env = {**os.environ, "ASSIGNCHECK": ASSIGNCHECK}
    done = subprocess.run(["node", "--test", str(JS_EXAMPLE)], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# pass 2" in done.stdout and "# fail 0" in done.stdout
    assert list((tmp_path / "reports" / "planted-bug" / "reproducers").glob("*-H5-*.json"))
    assert not list((tmp_path / "reports" / "assigner" / "reproducers").glob("*.json"))
