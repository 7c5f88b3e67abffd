"""A finding on one of KafkaJS's own assigners (as `js/targets/` serves them) as a `node --test` file with its own
package: `package.json` and `package-lock.json` pinning KafkaJS as assigncheck's `js/` does (the lock's entry held equal
to `js/package-lock.json`'s by the tests) and `<name>.test.js`, so `npm ci && node --test` runs it alone.

The test runs one rebalance as KafkaJS's consumer group does (`findings/export/templates/node/kafkajs.tmpl`: the
leader's assigner on every member's metadata, the leader's own topics and cluster, as `js/lib/leader.js` drives it) and
asserts the broken invariant (`findings/export/templates/node/checks/`)."""

from __future__ import annotations

import json
from typing import Any

from assigncheck.findings.export.case import Case
from assigncheck.findings.export.plan import FED_BACK, REPEATED, ROUNDS, Plan, plan
from assigncheck.findings.export.reach import Reach
from assigncheck.findings.export.templates import check, runner, text
from assigncheck.spec.errors import InputError

KAFKAJS_VERSION = "2.2.4"


def _js(value: Any) -> str:
    return json.dumps(value, indent=2)


def _constants(p: Plan) -> list[str]:
    case, f = p.case, p.case.figures
    out = ["// The rule this test holds the assigner to, in assigncheck's words (docs/SPEC.md §9.4)."]
    out += [f"const {r.key} = {json.dumps(r.text)};" for r in p.rules]
    if case.invariant == "H5":
        out.append(f"const RULE_H5 = {p.rules[0].key};")
    if case.invariant == "stickiness.max_retained":
        out += ["// The partitions each member validly owns: an existing partition of a topic it subscribes to, "
                "claimed by it alone at the", "// highest generation (assigncheck's spec, docs/SPEC.md §2).",
                f"const VALID = {json.dumps(f.valid)};",
                f"// The most of them any assignment under {f.retained_balance} balance keeps: assigncheck's oracle "
                "(spec.oracle.max_retained).", f"const MAX_RETAINED = {f.max_retained};",
                f"const BALANCE = {json.dumps(f.retained_balance)};"]
    if case.invariant == "balance.optimal":
        out += ["// The least sum of squared member counts of any complete assignment: assigncheck's oracle.",
                f"const OPTIMUM = {f.optimum};"]
    if case.invariant == "exact":
        out += [f"// What {f.reference} assigns this group: assigncheck's reference assignor.",
                f"const EXPECTED = {json.dumps(f.expected)};",
                f"const REFERENCE = {json.dumps(f.reference + ' (the reference)')};"]
    if case.invariant == "cooperative.rounds":
        out.append(f"const MAX_ROUNDS = {case.promises.max_rounds};")
    if p.run == REPEATED:
        out.append(f"const RUNS = {case.runs};")
    return out


def _test(p: Plan) -> str:
    return runner("node", p.run, json.dumps(f"{p.case.invariant}: {p.case.name}"), listed=len(p.case.listings) > 1)


def source(case: Case, reach: Reach) -> str:
    if case.streams:
        raise InputError("finding", "a KafkaJS assigner assigns consumer groups, not Streams tasks")
    if case.processes is not None:
        raise InputError("finding.processes", "H8 across processes is exported for Python targets only")
    p = plan(case)
    header = [f"// {case.invariant} on {case.ref.spec}: exported by assigncheck from {case.source}.",
              "// `npm ci && node --test` fails while the bug is there and passes once it is fixed.",
              *(f"// {line}" for line in _wrapped(case.note)), '"use strict";',
              'const assert = require("node:assert");', 'const test = require("node:test");',
              'const { AssignerProtocol: { MemberAssignment }, PartitionAssigners } = require("kafkajs");']
    problems = ["// The group, as the reproducer lists it.", f"const PROBLEM = {_js(case.doc())};"]
    if len(case.listings) > 1:
        problems += ["// The same group listed in another order (members, topics and claims), as assigncheck's H8 "
                     "check lists it.", f"const LISTED_OTHERWISE = {_js(case.doc(case.listings[1]))};"]
    driver = text("node", "kafkajs").replace("NEW_ASSIGNER", f"PartitionAssigners.{reach.name}")
    blocks = ["\n".join(header), "\n".join(_constants(p)), "\n".join(problems), text("node", "helpers"), driver]
    if p.run == REPEATED:
        blocks.append(text("node", "same"))
    if p.run in (ROUNDS, FED_BACK):
        blocks.append(text("node", "next"))
    blocks += [check("node", case.invariant) or "", _test(p)]
    return "\n\n".join(b.strip("\n") for b in blocks if b.strip()) + "\n"


def _wrapped(note: str) -> list[str]:
    import textwrap

    return textwrap.wrap(note, 114, break_on_hyphens=False, break_long_words=False) if note else []


def package(case: Case) -> tuple[str, str]:
    """package.json and package-lock.json: KafkaJS alone, pinned."""
    name = case.name.lower()
    manifest = {"name": name, "version": "1.0.0", "private": True,
                "description": f"Exported by assigncheck from {case.source}: `npm ci && node --test` fails while the "
                               "bug is there and passes once it is fixed.",
                "scripts": {"test": "node --test"}, "dependencies": {"kafkajs": KAFKAJS_VERSION}}
    lock = {"name": name, "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": name, "version": "1.0.0", "dependencies": {"kafkajs": KAFKAJS_VERSION}},
                         "node_modules/kafkajs": json.loads(text("node", "kafkajs.lock"))}}
    return json.dumps(manifest, indent=2) + "\n", json.dumps(lock, indent=2) + "\n"


def files(case: Case, reach: Reach) -> dict[str, str]:
    manifest, lock = package(case)
    return {"package.json": manifest, "package-lock.json": lock, f"{case.name.lower()}.test.js": source(case, reach)}


__all__ = ["KAFKAJS_VERSION", "files", "package", "source"]
