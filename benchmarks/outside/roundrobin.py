"""A correct outside `cmd:` target in plain Python (the standard library only): round-robin over the members
sorted by id, each partition to the next member that subscribes to its topic. It speaks protocol 1 (`cmd:`) and
protocol 2 (`cmd2:`), batch requests included (its answers say `"batch": true`)."""

import json
import sys


def assign(problem):
    members = sorted(m["id"] for m in problem["members"])
    subscriptions = {m["id"]: set(m["subscription"]) for m in problem["members"]}
    out = {m: {} for m in members}
    k = 0
    for topic in sorted(problem["topics"]):
        for i in range(problem["topics"][topic]):
            for _ in members:
                m = members[k % len(members)]
                k += 1
                if topic in subscriptions[m]:
                    out[m].setdefault(topic, []).append(i)
                    break
    return out


def answer(request):
    if request.get("format") != 2:
        return {"format": 1, "assignment": assign(request)}
    return {"format": 2, "id": request["id"], "assignment": assign(request["problem"]), "batch": True}


for line in sys.stdin:
    request = json.loads(line)
    for one in request["batch"] if "batch" in request else [request]:
        sys.stdout.write(json.dumps(answer(one)) + "\n")
    sys.stdout.flush()
