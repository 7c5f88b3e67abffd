// A correct outside `cmd:` target in Node.js: round-robin over the members sorted by id, each partition to the
// next member that subscribes to its topic. It speaks protocol 1 (`cmd:`) and protocol 2 (`cmd2:`), batch
// requests included (its answers say "batch": true).
const readline = require("readline");

function assign(problem) {
  const members = problem.members.map((m) => m.id).sort();
  const subscriptions = {};
  for (const m of problem.members) subscriptions[m.id] = new Set(m.subscription);
  const out = {};
  for (const m of members) out[m] = {};
  let k = 0;
  for (const topic of Object.keys(problem.topics).sort()) {
    for (let i = 0; i < problem.topics[topic]; i++) {
      for (let j = 0; j < members.length; j++) {
        const m = members[k % members.length];
        k++;
        if (subscriptions[m].has(topic)) {
          (out[m][topic] = out[m][topic] || []).push(i);
          break;
        }
      }
    }
  }
  return out;
}

function answer(request) {
  if (request.format !== 2) return { format: 1, assignment: assign(request) };
  return { format: 2, id: request.id, assignment: assign(request.problem), batch: true };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  const answers = (request.batch || [request]).map((one) => JSON.stringify(answer(one)) + "\n");
  process.stdout.write(answers.join(""));
});
