"use strict";
// assigncheck for JavaScript: gate a KafkaJS partition assigner, or any function over assigncheck's problem
// document, with assigncheck's `cmd2:` protocol; and a `node --test` helper that runs the gate.
//
//   serve(createAssigner)   a KafkaJS PartitionAssigner factory, driven as KafkaJS's group leader drives it
//   serveFunction(assign)   problem document -> assignment (or an assignment document), sync or async
//   lead(createAssigner, problem)   one rebalance as `serve` runs it: {assignment, adapted}
//   gate(file, options)     runs `assigncheck gate` on `node FILE`; rejects with the bugs and their reproducers

const { serveLines } = require("./lib/protocol");
const { lead } = require("./lib/leader");
const { gate, GateFailed } = require("./lib/gate");

function serve(createAssigner) {
  if (typeof createAssigner !== "function") {
    throw new TypeError("serve(createAssigner): a KafkaJS PartitionAssigner factory, ({ cluster, groupId, logger }) => assigner");
  }
  serveLines((problem) => lead(createAssigner, problem));
}

// An answer from what `assign` returned: an assignment document ({format: 1, assignment, standby?}) or the bare
// mapping member -> topic -> partitions. A mapping's values are objects, so `format: 1` tells the two apart.
function answerOf(result) {
  if (result !== null && typeof result === "object" && result.format === 1 && "assignment" in result) {
    const { assignment, standby } = result;
    return standby === undefined ? { assignment } : { assignment, standby };
  }
  return { assignment: result };
}

function serveFunction(assign) {
  if (typeof assign !== "function") {
    throw new TypeError("serveFunction(assign): a function from a problem document to an assignment");
  }
  serveLines(async (problem) => answerOf(await assign(problem)));
}

module.exports = { serve, serveFunction, gate, GateFailed, lead };
