"""A finding on a Go client's balancer (franz-go's, sarama's or kafka-go's, as our drivers serve them) as a `go test`
with its own module: `go.mod` and `go.sum` pinning the client exactly as assigncheck's Go module does (a copy of
`go/go.mod` and `go/go.sum`, held equal to them by the tests) and `<name>_test.go`, so `go test ./...` runs it alone.

The test leads the group as the client's leader does (`findings/export/templates/go/<client>.tmpl`, the same steps
as our driver's package: `go/franzgo`, `go/saramabalance`, `go/kafkago`) and asserts the broken invariant
(`findings/export/templates/go/checks/`)."""

from __future__ import annotations

import re
from typing import Any

from assigncheck.findings.export.case import Case, Pairs
from assigncheck.findings.export.plan import FED_BACK, REPEATED, ROUNDS, Plan, plan
from assigncheck.findings.export.reach import Reach
from assigncheck.findings.export.templates import check, runner, text
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import StreamsProblem

MODULES = {"franz-go": ("github.com/twmb/franz-go", "github.com/twmb/franz-go/pkg/kmsg"),
           "sarama": ("github.com/IBM/sarama",), "kafka-go": ("github.com/segmentio/kafka-go",)}
FRANZ_GO = {"range": "kgo.RangeBalancer()", "roundrobin": "kgo.RoundRobinBalancer()",
            "sticky": "kgo.StickyBalancer()", "cooperative-sticky": "kgo.CooperativeStickyBalancer()"}
SARAMA = {"range": "sarama.NewBalanceStrategyRange", "roundrobin": "sarama.NewBalanceStrategyRoundRobin",
          "sticky": "sarama.NewBalanceStrategySticky",
          "cooperative-sticky": "sarama.NewBalanceStrategyCooperativeSticky"}
KAFKA_GO = {"range": "kafka.RangeGroupBalancer{}", "roundrobin": "kafka.RoundRobinGroupBalancer{}",
            "rack-affinity": "kafka.RackAffinityGroupBalancer{Rack: rack}"}
_IMPORTS = re.compile(r"^// imports:(.*)\n", re.M)


def go(name: str) -> tuple[str, set[str]]:
    """A template's code and the imports its first line names."""
    code = text("go", name)
    found = _IMPORTS.match(code)
    imports = set(re.findall(r'"([^"]+)"', found.group(1))) if found else set()
    return code[found.end():] if found else code, imports


def gostr(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _ints(values: Any) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _pairs(p: Pairs) -> str:
    return "assignment{" + ", ".join(
        f"{gostr(m)}: {{" + ", ".join(f"{gostr(t)}: {_ints(ps)}" for t, ps in topics.items()) + "}"
        for m, topics in p.items()) + "}"


def _group(doc: dict[str, Any]) -> str:
    members = []
    for m in doc["members"]:
        owned = ", ".join(f"{gostr(t)}: {_ints(ps)}" for t, ps in m.get("owned", {}).items())
        fields = [f"id: {gostr(m['id'])}", f"topics: []string{{{', '.join(map(gostr, m['subscription']))}}}",
                  f"owned: map[string][]int32{{{owned}}}", f"generation: {m.get('generation', -1)}"]
        if m.get("instance_id") is not None:
            fields.append(f"instance: {gostr(m['instance_id'])}")
        if m.get("rack") is not None:
            fields.append(f"rack: {gostr(m['rack'])}")
        members.append("\t\t{" + ", ".join(fields) + "},")
    topics = ", ".join(f"{gostr(t)}: {n}" for t, n in doc["topics"].items())
    racks = doc.get("partition_racks")
    rack_text = "" if not racks else "\n\tracks:    map[string][][]string{" + ", ".join(
        f"{gostr(t)}: {{" + ", ".join("{" + ", ".join(map(gostr, r)) + "}" for r in per) + "}"
        for t, per in racks.items()) + "},"
    return (f"group{{\n\ttopics: map[string]int32{{{topics}}},\n\tmembers: []member{{\n" + "\n".join(members)
            + f"\n\t}},\n\tprotocol: {gostr(doc.get('protocol', 'eager'))},{rack_text}\n}}")


def _driver(reach: Reach) -> tuple[str, set[str]]:
    """The client's leader, with its balancer filled in."""
    code, imports = go(reach.kind)
    if reach.kind == "franz-go":
        return code.replace("NEW_BALANCER", FRANZ_GO[reach.name]), imports
    if reach.kind == "sarama":
        version = "sarama.DefaultVersion"
        if reach.options:
            version = (f"func() sarama.KafkaVersion {{\n\tv, err := sarama.ParseKafkaVersion("
                       f"{gostr(reach.options[1])})\n\tif err != nil {{\n\t\tpanic(err)\n\t}}\n\treturn v\n}}()")
        return code.replace("NEW_STRATEGY", SARAMA[reach.name]).replace("SARAMA_VERSION", version), imports
    make = ("// newBalancer is a member's balancer, made with its rack.\nfunc newBalancer(rack string) "
            f"kafka.GroupBalancer {{\n\treturn {KAFKA_GO[reach.name]}\n}}\n")
    return code + "\n" + make, imports


def _constants(p: Plan) -> list[str]:
    case, f = p.case, p.case.figures
    out = ["// The rule this test holds the balancer to, in assigncheck's words (docs/SPEC.md §9.4)."]
    out += [f"const {r.key} = {gostr(r.text)}" for r in p.rules]
    if case.invariant == "H5":
        out.append(f"const RULE_H5 = {p.rules[0].key}")
    if case.invariant == "stickiness.max_retained":
        out += ["", "// valid is the partitions each member validly owns: an existing partition of a topic it "
                    "subscribes to, claimed by it", "// alone at the highest generation (assigncheck's spec, "
                    "docs/SPEC.md §2).", f"var valid = {_pairs(f.valid)}", "",
                f"// maxRetained is the most of them any assignment under {f.retained_balance} balance keeps: "
                "assigncheck's oracle", "// (spec.oracle.max_retained), a min-cost flow.",
                f"const maxRetained = {f.max_retained}", f"const retainedBalance = {gostr(f.retained_balance)}"]
    if case.invariant == "balance.optimal":
        out += ["", "// optimum is the least sum of squared member counts of any complete assignment: assigncheck's "
                    "oracle.", f"const optimum = {f.optimum}"]
    if case.invariant == "exact":
        out += ["", f"// expected is what {f.reference} assigns this group: assigncheck's reference assignor "
                    f"(spec.reference.REFERENCES[{f.reference!r}]).", f"var expected = {_pairs(f.expected)}", "",
                f"const reference = {gostr(f.reference + ' (the reference)')}"]
    if case.invariant == "cooperative.rounds":
        out.append(f"const maxRounds = {case.promises.max_rounds}")
    if p.run == REPEATED:
        out.append(f"const runs = {case.runs} // Go randomizes map iteration: a map-order dependence may agree with "
                   "itself a few times")
    return out


def _test(p: Plan, func: str) -> tuple[str, set[str]]:
    code = runner("go", p.run, func, listed=len(p.case.listings) > 1)
    found = _IMPORTS.match(code)
    if found is None:
        return code, set()
    return code[found.end():], set(re.findall(r'"([^"]+)"', found.group(1)))


def _module_files(case: Case, reach: Reach) -> dict[str, str]:
    """go.mod (the client's pinned module, every module its graph needs) and go.sum, from assigncheck's own."""
    pinned = text("go", "go.mod")
    requires = dict(re.findall(r"^\t(\S+) (\S+)(?: // indirect)?$", pinned, re.M))
    indirect = re.findall(r"^\t(\S+ \S+) // indirect$", pinned, re.M)
    go_line = re.search(r"^go \S+$", pinned, re.M)
    direct = "".join(f"\t{m} {requires[m]}\n" for m in MODULES[reach.kind])
    mod = (f"// Exported by assigncheck from {case.source}:\n// `go test ./...` fails while the bug is there and "
           "passes once it is fixed. The client is pinned as assigncheck pins it.\n"
           f"module assigncheck.export/{case.name.lower()}\n\n{go_line.group(0) if go_line else 'go 1.26.0'}\n\n"
           f"require (\n{direct})\n\nrequire (\n" + "".join(f"\t{m} // indirect\n" for m in indirect) + ")\n")
    return {"go.mod": mod, "go.sum": text("go", "go.sum")}


# Where a client's leader, not its balancer, meets a subscribed topic the metadata lacks: our drivers re-enact that
# step (sarama's consumerGroup.balance fails on Client.Partitions; kafka-go's ReadPartitions answers no partitions at
# all), so a test of the balancer alone would stay red whatever the client's leader does.
LEADER_STEP = {"sarama": "sarama's consumerGroup.balance (Client.Partitions fails before Plan runs)",
               "kafka-go": "kafka-go's ConsumerGroup leader (ReadPartitions answers no partitions at all)"}


def _leader_step(case: Case, reach: Reach) -> None:
    """Refuse a finding whose fault is in the client's leader rather than in its balancer (see `LEADER_STEP`)."""
    problem = case.problem
    if reach.kind not in LEADER_STEP or isinstance(problem, StreamsProblem):
        return
    for m in problem.members:
        missing = sorted(t for t in m.subscription if t not in problem.topics)
        if missing:
            raise InputError("finding", f"{m.member_id} subscribes to {missing[0]}, which the metadata lacks: the "
                                        f"fault is in {LEADER_STEP[reach.kind]}, which a test of the balancer does "
                                        "not reach; replay the file with assigncheck replay")


def source(case: Case, reach: Reach) -> str:
    if case.streams:
        raise InputError("finding", "a Go balancer assigns consumer groups, not Streams tasks")
    if case.processes is not None:
        raise InputError("finding.processes", "H8 across processes is exported for Python targets only: Go "
                                              "randomizes map order in every process, which the test's repeated "
                                              "runs meet")
    _leader_step(case, reach)
    p = plan(case)
    types, imports = go("types")
    driver, more = _driver(reach)
    imports |= more | {"testing"}
    blocks = [driver]
    for name, wanted in (("same", p.run == REPEATED), ("next", p.run in (ROUNDS, FED_BACK))):
        if wanted:
            code, more = go(name)
            blocks.append(code)
            imports |= more
    checked = check("go", case.invariant)
    if checked is not None:
        found = _IMPORTS.match(checked)
        if found:
            imports |= set(re.findall(r'"([^"]+)"', found.group(1)))
            checked = checked[found.end():]
        blocks.append(checked)
    test, more = _test(p, "Test" + "".join(w[:1].upper() + w[1:] for w in case.name.split("-")))
    imports |= more
    problems = ["// problem is the group, as the reproducer lists it.", f"var problem = {_group(case.doc())}"]
    if len(case.listings) > 1:
        problems += ["", "// listedOtherwise is the same group listed in another order (members, topics and claims),",
                     "// as assigncheck's H8 check lists it.",
                     f"var listedOtherwise = {_group(case.doc(case.listings[1]))}"]
    std = sorted(i for i in imports if "." not in i.split("/")[0])
    external = sorted(i for i in imports if "." in i.split("/")[0])
    head = (f"// {case.invariant} on {case.ref.spec}: exported by assigncheck from {case.source}.\n//\n"
            "// `go test ./...` fails while the bug is there and passes once it is fixed.\n"
            + "".join(f"//{' ' + line if line else ''}\n" for line in _wrapped(case.note))
            + "package reproducer\n\nimport (\n"
            + "".join(f"\t{gostr(i)}\n" for i in std) + ("\n" if external else "")
            + "".join(f"\t{gostr(i)}\n" for i in external) + ")\n")
    parts = [head, "\n".join(_constants(p)), "\n".join(problems), test, types.strip("\n"), *blocks]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n"


def _wrapped(note: str) -> list[str]:
    import textwrap

    return ["", *textwrap.wrap(note, 114, break_on_hyphens=False, break_long_words=False)] if note else []


def files(case: Case, reach: Reach) -> dict[str, str]:
    return {**_module_files(case, reach), f"{case.name.lower().replace('-', '_')}_test.go": source(case, reach)}


__all__ = ["FRANZ_GO", "KAFKA_GO", "MODULES", "SARAMA", "files", "go", "gostr", "source"]
