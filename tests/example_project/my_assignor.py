"""An example user project's assignors, checked by the assigncheck pytest plugin in check_example.py."""

from assigncheck.spec.model import Assignment, Problem


class SimpleRoundRobin:
    """Correct: deals partitions of each topic round-robin over its subscribers (sorted by member id)."""

    name = "simple-round-robin"

    def assign(self, problem: Problem) -> Assignment:
        out: dict[str, dict[str, list[int]]] = {m.member_id: {} for m in problem.members}
        for topic in problem.subscribed_topics():
            subs = sorted(m.member_id for m in problem.subscribers(topic))
            for i in range(problem.topics[topic]):
                out[subs[i % len(subs)]].setdefault(topic, []).append(i)
        return Assignment.of(out)


class LosesTheLastPartition(SimpleRoundRobin):
    """Broken on purpose: forgets the last partition of every topic with more than two partitions."""

    name = "loses-the-last-partition"

    def assign(self, problem: Problem) -> Assignment:
        full = super().assign(problem)
        return Assignment.of({
            m: {t: [i for i in a.tolist() if not (problem.topics[t] > 2 and i == problem.topics[t] - 1)]
                for t, a in parts.items()}
            for m, parts in full.by_member.items()
        })


# A module-level instance: another process (a fuzz job, `assigncheck replay`) loads it as my_assignor:BROKEN.
BROKEN = LosesTheLastPartition()
