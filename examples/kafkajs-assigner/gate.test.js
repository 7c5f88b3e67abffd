"use strict";
// `node --test` in this folder gates both assigners (assigncheck on the PATH, or ASSIGNCHECK naming it).
const assert = require("node:assert");
const path = require("node:path");
const test = require("node:test");
const { gate, GateFailed } = require("assigncheck");

test("SubscriptionRoundRobin passes the gate", (t) =>
  gate(path.join(__dirname, "assigner.js"), { promises: "balance=perfect", t }));

test("the planted bug fails it, with a reproducer", async (t) => {
  await assert.rejects(gate(path.join(__dirname, "planted-bug.js"), { promises: "balance=perfect", t }), (error) => {
    assert.ok(error instanceof GateFailed);
    assert.match(error.message, /✗ H5: .* unassigned/);
    assert.match(error.message, /reproducer: .*\.json/);
    return true;
  });
});
