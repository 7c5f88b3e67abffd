"""A finding on a `java:` class as a JUnit 5 test with its own Maven build: `pom.xml` (JUnit 5 and the reproducer's
Maven coordinates: its `--maven` artifacts, or the Kafka jars assigncheck pins for the class, as a test dependency)
and `src/test/java/<package>/<Name>Test.java`, in the assignor's own package, so `mvn -q test` runs it alone.

The test builds the problem from the API's public classes, drives the class through the API it implements exactly
as assigncheck's bridge does (`junit_apis`) and asserts the broken invariant (`junit_checks`). Where every Kafka
artifact shares one version, the pom names it once, as `kafka.version`: `mvn -q test -Dkafka.version=4.0.1` runs the
same test against another release."""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import escape

from assigncheck.findings.export.case import Case, Pairs
from assigncheck.findings.export.plan import REPEATED, ROUNDS, Plan, plan
from assigncheck.findings.export.reach import Reach
from assigncheck.findings.export.templates import check, fill, runner, text
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import StreamsProblem

JUNIT = "org.junit.jupiter:junit-jupiter:5.11.4"
PLUGINS = {"maven-compiler-plugin": "3.13.0", "maven-surefire-plugin": "3.5.2", "maven-resources-plugin": "3.3.1"}
KAFKA = "org.apache.kafka"
API_CLASS = {  # the API a class of each kind implements: the type a class of yours is loaded as
    "classic": "org.apache.kafka.clients.consumer.ConsumerPartitionAssignor",
    "consumer": "org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor",
    "share": "org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor",
    "streams": "org.apache.kafka.streams.processor.assignment.TaskAssignor",
}
STREAMS_GROUP_API = {True: "org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor",
                     False: "org.apache.kafka.coordinator.group.streams.assignor.TaskAssignor"}


def java(name: str) -> str:
    return text("java", name)


def camel(name: str, upper: bool = True) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name) if w]
    text = "".join(w[:1].upper() + w[1:] for w in words)
    return text if upper else text[:1].lower() + text[1:]


def jstr(text: str | None) -> str:
    if text is None:
        return "null"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _ints(values: Any) -> str:
    return f"List.of({', '.join(str(int(v)) for v in values)})"


def _map(entries: list[tuple[str, str]]) -> str:
    return "map(" + ", ".join(f"{jstr(k)}, {v}" for k, v in entries) + ")"


def _pairs(p: Pairs) -> str:
    return _map([(m, _map([(t, _ints(ps)) for t, ps in topics.items()])) for m, topics in p.items()])


def _group(doc: dict[str, Any]) -> str:
    members = []
    for m in doc["members"]:
        owned = _map([(t, _ints(ps)) for t, ps in m.get("owned", {}).items()])
        members.append(f"            new Member({jstr(m['id'])}, List.of({', '.join(map(jstr, m['subscription']))}), "
                       f"{owned}, {m.get('generation', -1)}, {jstr(m.get('instance_id'))}, {jstr(m.get('rack'))})")
    racks = doc.get("partition_racks")
    rack_text = "null" if not racks else _map(
        [(t, "List.of(" + ", ".join(f"List.of({', '.join(map(jstr, r))})" for r in per) + ")")
         for t, per in racks.items()])
    return (f"new Group({_map([(t, str(n)) for t, n in doc['topics'].items()])}, List.of(\n"
            + ",\n".join(members) + f"),\n            {jstr(doc.get('protocol', 'eager'))}, {rack_text})")


def _tasks(doc: dict[str, Any]) -> str:
    clients = []
    for c in doc["clients"]:
        active = _map([(s, _ints(ts)) for s, ts in c.get("active", {}).items()])
        standby = _map([(s, _ints(ts)) for s, ts in c.get("standby", {}).items()])
        clients.append(f"            new Client({jstr(c['id'])}, {c['capacity']}, {active}, {standby})")
    stateless = ", ".join(map(jstr, doc.get("stateless", [])))
    return (f"new Tasks({_map([(s, str(n)) for s, n in doc['subtopologies'].items()])}, Set.of({stateless}), "
            f"{doc.get('num_standby_replicas', 0)}, List.of(\n" + ",\n".join(clients) + "))")


# ---- the build ---------------------------------------------------------------------------------------------------


def coordinates(case: Case, reach: Reach) -> tuple[str, ...]:
    """The Maven artifacts the test runs against: the reproducer's, or those assigncheck pins for the class (Kafka's
    API at the version the class was run with, when the reproducer's classpath brought its own)."""
    from assigncheck.targets import java_bridge
    from assigncheck.toolchains import java_build, maven

    ref = case.ref
    if ref.maven:
        return ref.maven
    class_name = reach.name
    pinned = (maven.COORDINATOR if class_name.startswith(java_bridge.COORDINATOR_PACKAGE)
              else maven.STREAMS if class_name.startswith(java_bridge.STREAMS_PACKAGE) else maven.CLIENTS)
    entries = java_build.resolve_classpath(ref.classpath) if ref.classpath else ()
    if not entries or not any(java_build.holds(entries, f) for f in (
            java_bridge.ASSIGNOR_CLASS_FILE, java_bridge.GROUP_ASSIGNOR_CLASS_FILE)):
        return pinned
    artifact = {"classic": "kafka-clients", "consumer": "kafka-group-coordinator-api",
                "share": "kafka-group-coordinator-api", "streams": "kafka-streams",
                "streams-group": "kafka-group-coordinator"}[reach.kind]
    return (f"{KAFKA}:{artifact}:{reach.options[0]}",)


def pom(case: Case, reach: Reach, artifact: str) -> str:
    """The Maven build: JUnit 5 and the Kafka artifacts at test scope, the class's own classpath (if any) added to
    the tests' by Surefire."""
    from assigncheck.toolchains import java_build

    coords = coordinates(case, reach)
    versions = {c.split(":")[2] for c in coords}
    one = len(versions) == 1 and all(c.startswith(KAFKA + ":") for c in coords)
    props = [("project.build.sourceEncoding", "UTF-8"), ("maven.compiler.release", "17")]
    if one:
        props.append(("kafka.version", next(iter(versions))))
    deps = []
    for c in (*coords, JUNIT):
        g, a, v = c.split(":")
        deps.append(fill(java("dependency"), GROUP=escape(g), ARTIFACT=escape(a),
                         VERSION="${kafka.version}" if one and g == KAFKA else escape(v)).rstrip("\n"))
    configuration = ""
    if case.ref.classpath:
        entries = "".join(f"\n            <additionalClasspathElement>{escape(e)}</additionalClasspathElement>"
                          for e in java_build.resolve_classpath(case.ref.classpath))
        configuration = (f"\n        <configuration>\n          <additionalClasspathElements>{entries}\n"
                         "          </additionalClasspathElements>\n        </configuration>")
    plugins = "".join("\n" + fill(java("plugin"), ARTIFACT=name, VERSION=version, CONFIGURATION=configuration
                                  if name == "maven-surefire-plugin" else "").rstrip("\n")
                      for name, version in PLUGINS.items())
    properties = "".join(f"\n    <{k}>{escape(v)}</{k}>" for k, v in props)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Exported by assigncheck from {escape(case.source)}: `mvn -q test` fails while the bug is there and passes once it
     is fixed.{' Another Kafka release: mvn -q test -Dkafka.version=X.Y.Z.' if one else ''} -->
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.assigncheck.export</groupId>
  <artifactId>{escape(artifact)}</artifactId>
  <version>1</version>

  <properties>{properties}
  </properties>

  <dependencies>
{chr(10).join(deps)}
  </dependencies>

  <build>
    <plugins>{plugins}
    </plugins>
  </build>
</project>
"""


# ---- the test ----------------------------------------------------------------------------------------------------


def _new_streams_group_api(reach: Reach) -> bool:
    from assigncheck.targets.java import kafka_version

    return kafka_version(reach.options[0]) >= (4, 4)


def _api(case: Case, reach: Reach) -> tuple[str, str]:
    """The imports and the driver of the class's API."""
    kind = reach.kind
    if kind == "classic":
        return java("classic.imports"), java("classic")
    if kind in ("consumer", "share"):
        own = any(c.split(":")[1] == "kafka-group-coordinator" for c in coordinates(case, reach))
        return (java("group.imports") + (java("group-impl.imports") if own else ""),
                java("group") + "\n" + java("group-impl" if own else "group-api"))
    if kind == "streams":
        return java("streams.imports"), java("streams")
    if kind == "streams-group":
        new = _new_streams_group_api(reach)
        version = "4.4" if new else "4.1"
        return (java("streams-group.imports") + "\n" + java(f"streams-group-{version}.imports"),
                java(f"streams-group-{version}") + "\n" + java("streams-group"))
    raise InputError("finding.target.spec", f"{reach.name} implements no assignor API a JUnit test drives")


def _assignor(case: Case, reach: Reach) -> tuple[str, str]:
    """The import of the class (another package than the test's) and how the test makes its instances: a fresh one
    per member and per rebalance for the client-side APIs (as consumers and Streams do), one for the test for the
    broker-side ones (a broker keeps the instance it loaded). A class on a classpath of its own is loaded by name,
    as Kafka loads a configured class."""
    package, _, simple = reach.name.rpartition(".")
    by_name = bool(case.ref.classpath)
    api = STREAMS_GROUP_API[_new_streams_group_api(reach)] if reach.kind == "streams-group" else API_CLASS[reach.kind]
    api_simple = api.rpartition(".")[2]
    typ = api_simple if by_name else simple
    imports = [] if by_name or package == _package(reach) else [reach.name]
    if by_name and api.rpartition(".")[0] != _package(reach):
        imports.append(api)
    make = (f"{api_simple}.class.cast(Class.forName({jstr(reach.name)}).getDeclaredConstructor().newInstance())"
            if by_name else f"new {simple}()")
    throws = " throws ReflectiveOperationException" if by_name else ""
    if reach.kind in ("classic", "streams"):
        code = fill(java("assignor-fresh"), TYPE=typ, THROWS=throws, MAKE=make).replace("()  {", "() {")
    else:
        code = fill(java("assignor-kept-by-name" if by_name else "assignor-kept"), TYPE=typ, MAKE=make)
    return "".join(f"import {i};\n" for i in imports), code


def _package(reach: Reach) -> str:
    return reach.name.rpartition(".")[0]


def _protocol(case: Case, reach: Reach) -> str:
    """The classic protocol the group runs: the problem's when the class supports it, else the highest it supports
    (the coordinator's choice for a group whose consumers name this assignor alone)."""
    supported = [p for p in reach.options[1].split(",") if p] or ["EAGER"]
    wanted = str(getattr(case.problem, "protocol", "eager")).upper()
    chosen = wanted if wanted in supported else supported[-1]
    return f"    static final RebalanceProtocol PROTOCOL = RebalanceProtocol.{chosen};\n"


def _constants(p: Plan, reach: Reach) -> list[str]:
    case, f = p.case, p.case.figures
    out = ["    /** The rule this test holds the assignor to, in assigncheck's words (docs/SPEC.md §9.4). */"]
    out += [f"    static final String {r.key} = {jstr(r.text)};" for r in p.rules]
    if case.invariant == "H5":
        out.append(f"    static final String RULE_H5 = {p.rules[0].key};")
    if case.invariant == "stickiness.max_retained":
        out += ["    /** The partitions each member validly owns: an existing partition of a topic it subscribes to, "
                "claimed by it alone at\n     *  the highest generation (assigncheck's spec, docs/SPEC.md §2). */",
                f"    static final Map<String, Map<String, List<Integer>>> VALID = {_pairs(f.valid)};",
                f"    /** The most of them any assignment under {f.retained_balance} balance keeps: assigncheck's "
                "oracle (spec.oracle.max_retained), a min-cost flow. */",
                f"    static final int MAX_RETAINED = {f.max_retained};",
                f"    static final String BALANCE = {jstr(f.retained_balance)};"]
    if case.invariant == "balance.optimal":
        out += ["    /** The least sum of squared member counts of any complete assignment: assigncheck's oracle. */",
                f"    static final long OPTIMUM = {f.optimum};"]
    if case.invariant == "exact":
        out += [f"    /** What {f.reference} assigns this group: assigncheck's reference assignor "
                f"(spec.reference.REFERENCES[\"{f.reference}\"]). */",
                f"    static final Map<String, Map<String, List<Integer>>> EXPECTED = {_pairs(f.expected)};",
                f"    static final String REFERENCE = {jstr(f.reference + ' (the reference)')};"]
    if case.invariant == "streams.balance":
        out.append(f"    static final boolean CEILING = {str(p.way == 'ceiling').lower()};")
    if case.invariant == "streams.sticky":
        out += ["    /** Each client's valid previous active tasks: known tasks it alone ran (assigncheck's spec, "
                "docs/SPEC.md §7.4). */",
                f"    static final Map<String, Map<String, List<Integer>>> PREVIOUS = {_pairs(f.previous)};"]
    if case.invariant == "cooperative.rounds":
        out.append(f"    static final int MAX_ROUNDS = {case.promises.max_rounds};")
    if p.run == REPEATED:
        out.append(f"    static final int RUNS = {case.runs};  // a hash-order dependence may agree with itself a few "
                   "times")
    if reach.kind == "classic":
        out.append(_protocol(case, reach).rstrip("\n"))
    return out


def _problems(case: Case) -> list[str]:
    streams = isinstance(case.problem, StreamsProblem)
    typ, literal = ("Tasks", _tasks) if streams else ("Group", _group)
    out = ["    /** The problem, as the reproducer lists it. */",
           f"    static final {typ} PROBLEM = {literal(case.doc())};"]
    if len(case.listings) > 1:
        out += ["    /** The same problem listed in another order (members, topics and claims), as assigncheck's H8 "
                "check lists it. */",
                f"    static final {typ} LISTED_OTHERWISE = {literal(case.doc(case.listings[1]))};"]
    return out


def _test(p: Plan, method: str) -> str:
    return runner("java", p.run, method, listed=len(p.case.listings) > 1)


def source(case: Case, reach: Reach) -> tuple[str, str]:
    """(the test's path under src/test/java, its text)."""
    if case.processes is not None:
        raise InputError("finding.processes", "H8 across processes is exported for Python targets only: a JVM's "
                                              "hash orders do not follow an environment variable")
    p = plan(case)
    name = camel(case.name) + "Test"
    package = _package(reach)
    imports, driver = _api(case, reach)
    class_import, make = _assignor(case, reach)
    header = [f"package {package};" if package else "",
              imports.strip("\n") + ("\n" + class_import.rstrip("\n") if class_import else ""),
              "import org.junit.jupiter.api.Test;", "import static org.junit.jupiter.api.Assertions.fail;",
              "\n".join(["/**", *_javadoc(f"{case.invariant} on {case.ref.spec.removeprefix('java:')} "
                                          f"({', '.join(coordinates(case, reach))}): exported by assigncheck from "
                                          f"{case.source}."),
                         " * <p>{@code mvn -q test} fails while the bug is there and passes once it is fixed.",
                         *(_javadoc(case.note, "<p>") if case.note else []), " */"])
              + f"\npublic class {name} {{"]
    body = ["\n".join(_constants(p, reach)), java("tasks-records" if case.streams else "group-records"),
            "\n".join(_problems(case)), make, _test(p, camel(case.name, upper=False)), driver,
            check("java", case.invariant) or "", java("same") if p.run == REPEATED else "",
            java("waiting") if p.run == ROUNDS else "", java("helpers")]
    text_ = "\n\n".join(b for b in header if b) + "\n" + "\n\n".join(b.strip("\n") for b in body if b.strip()) + "\n}\n"
    path = "src/test/java/" + (package.replace(".", "/") + "/" if package else "") + f"{name}.java"
    return path, text_


def _javadoc(text: str, first: str = "") -> list[str]:
    """`text` as javadoc lines (a paragraph starting with `first`)."""
    import textwrap

    lines = textwrap.wrap(first + text, 112, break_on_hyphens=False, break_long_words=False) or [first]
    return [" * " + line.replace("*/", "*&#47;") for line in lines]


def files(case: Case, reach: Reach) -> dict[str, str]:
    path, text = source(case, reach)
    return {"pom.xml": pom(case, reach, case.name.lower()), path: text}


__all__ = ["API_CLASS", "JUNIT", "camel", "coordinates", "files", "jstr", "pom", "source"]
