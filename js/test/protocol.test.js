"use strict";
// The `cmd:`/`cmd2:` protocol as the harness speaks it, over a real child process's standard input and output.
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const path = require("node:path");
const test = require("node:test");

function talk(program, requests) {
  const input = requests.map((r) => (typeof r === "string" ? r : JSON.stringify(r)) + "\n").join("");
  // The timeout only keeps a program that never ends from hanging the suite: it fails the test instead.
  const done = spawnSync(process.execPath, [path.join(__dirname, "..", "fixtures", program)],
    { input, encoding: "utf8", timeout: 120000 });
  const answers = done.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return { ...done, answers };
}

const group = (topics, note) => ({ format: 1, topics: { [topics[0]]: 2 }, note,
  members: [{ id: "a", subscription: topics }, { id: "b", subscription: topics }] });

test("versions 1 and 2 and batches are answered in order, each answer saying it takes batches", () => {
  const { answers, status } = talk("chatty-assigner.js", [
    group(["t"]),
    { format: 2, id: 7, problem: group(["t"]) },
    { format: 2, batch: [{ format: 2, id: 8, problem: group(["boom"]) }, { format: 2, id: 9, problem: group(["t"]) }] },
  ]);
  assert.equal(status, 0);
  assert.deepEqual(answers[0], { format: 1, assignment: { a: { t: [0] }, b: { t: [1] } }, batch: true });
  assert.deepEqual(answers[1], { format: 2, id: 7, assignment: { a: { t: [0] }, b: { t: [1] } }, batch: true });
  assert.deepEqual(answers.slice(2).map((a) => a.id), [8, 9]);
  assert.deepEqual(answers[3].assignment, { a: { t: [0] }, b: { t: [1] } });
});

test("an assigner's exception is an error answer naming its type and the assigner's line", () => {
  const [answer] = talk("chatty-assigner.js", [{ format: 2, id: 1, problem: group(["boom"]) }]).answers;
  assert.deepEqual(answer, { format: 2, id: 1, error: "boom", exception: "RangeError",
    frame: `Object.assign(${path.relative(process.cwd(), path.join(__dirname, "..", "fixtures", "chatty-assigner.js"))}:12)`,
    batch: true });
});

test("what the assigner prints goes to standard error, never among the answers", () => {
  const { stdout, stderr } = talk("chatty-assigner.js", [group(["t"]), group(["t"])]);
  assert.equal(stdout.split("\n").filter(Boolean).length, 2);
  assert.match(stderr, /assigning \[ 't' \]/);
});

test("serveFunction takes an assignment document, a bare mapping or a promise of either", () => {
  const { answers } = talk("function.js", ["document", "mapping", "promise", "throw"].map((note, i) =>
    ({ format: 2, id: i + 1, problem: group(["t"], note) })));
  const nothing = { a: {}, b: {} };
  assert.deepEqual(answers.slice(0, 3), [
    { format: 2, id: 1, assignment: nothing, standby: {}, batch: true },
    { format: 2, id: 2, assignment: nothing, batch: true },
    { format: 2, id: 3, assignment: nothing, batch: true },
  ]);
  assert.equal(answers[3].exception, "TypeError");
});

test("the program ends when its input closes, whatever timers the assigner left running", () => {
  const { status, signal, answers } = talk("function.js", [{ format: 2, id: 1, problem: group(["t"], "linger") }]);
  assert.equal(signal, null);
  assert.equal(status, 0);
  assert.deepEqual(answers.map((a) => a.id), [1]);
});

test("a line that is not JSON stops the program with one line and exit 2", () => {
  const { status, stderr, answers } = talk("function.js", ["{nope", group(["t"])]);
  assert.equal(status, 2);
  assert.deepEqual(answers, []);
  assert.match(stderr, /^assigncheck: error: request: not JSON \(.*\)\n$/);
});
