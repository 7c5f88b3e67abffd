"""A correct outside in-process target: a user's Python class (round-robin over the members sorted by id, each
partition to the next member that subscribes to its topic), loaded as `benchmarks.outside.roundrobin_class:
RoundRobin`; the fuzz stage instruments its module as it does any outside module."""

from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.promises import Promises


class RoundRobin:
    name = "outside-roundrobin"
    promises = Promises()

    def assign(self, problem: Problem) -> Assignment:
        members = sorted(m.member_id for m in problem.members)
        subscriptions = {m.member_id: m.subscription for m in problem.members}
        out: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
        k = 0
        for topic in sorted(problem.topics):
            for i in range(problem.topics[topic]):
                for _ in members:
                    m = members[k % len(members)]
                    k += 1
                    if topic in subscriptions[m]:
                        out[m].append((topic, i))
                        break
        return Assignment.of(out)
