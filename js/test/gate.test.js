"use strict";
// gate() runs the real `assigncheck gate` (ASSIGNCHECK, or assigncheck on the PATH) and reads its report.json.
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const test = require("node:test");
const { gate, GateFailed } = require("..");

const fixture = (name) => path.join(__dirname, "..", "fixtures", name);
// A report directory of the test's own, removed after it.
function scratch(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assigncheck-js-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a gate that fails rejects with each confirmed bug and its reproducer, which is on disk", async (t) => {
  const reportDir = scratch(t);
  const error = await gate(fixture("drops-a-partition.js"), { stages: "proofs", reportDir }).catch((e) => e);
  assert.ok(error instanceof GateFailed, String(error));
  const bugs = error.report.bugs.filter((bug) => bug.status === "confirmed");
  assert.deepEqual(bugs.map((bug) => bug.invariant), ["H5"]);
  assert.match(error.message, /^assigncheck gate FAILED on cmd2:node .*drops-a-partition\.js: 1 confirmed bug\(s\)/);
  const [, reproducer] = /reproducer: (.*\.json)$/m.exec(error.message);
  assert.ok(path.isAbsolute(reproducer) && fs.existsSync(reproducer), reproducer);
  assert.equal(JSON.parse(fs.readFileSync(reproducer, "utf8")).finding.invariant, "H5");
});

test("a gate that cannot run rejects with the gate's own line", async (t) => {
  await assert.rejects(gate(fixture("drops-a-partition.js"), { promises: "balance=sideways", reportDir: scratch(t) }),
    (error) => {
      assert.ok(!(error instanceof GateFailed));
      assert.match(error.message, /could not run \(exit 2\): assigncheck: error: --promises: .*balance/);
      return true;
    });
});

test("without assigncheck it says how to get it", async () => {
  await assert.rejects(gate(fixture("drops-a-partition.js"), { assigncheck: "/nonexistent/assigncheck" }),
    /\/nonexistent\/assigncheck not found: install assigncheck .* or set ASSIGNCHECK/);
});
